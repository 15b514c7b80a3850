"""asv benchmarks of pruning: planning, and a pruned read against pyarrow's read + filter.

The file is the tightness benchmark's sensor data (``benchmarks/prune_tightness.py``),
written by pyarrow and upgraded by nanstats.  ``time_plan`` times deciding
which pages a query may skip; ``time_read_table`` nanstats' pruned read with
the exact filter; ``track_speedup_vs_pyarrow`` how many times faster that is
than ``pyarrow.parquet.read_table`` of the same columns followed by the same
filter (``pyarrow.compute``, IEEE semantics, so the results are equal).
"""

from __future__ import annotations

import os
import sys
import tempfile

import pyarrow.compute as pc
import pyarrow.parquet as papq
from bench_support.timing import best

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))

QUERIES = {
    "narrow": ("temp between 20 and 20.5", lambda t: pc.and_(
        pc.greater_equal(t["temp"], 20.0), pc.less_equal(t["temp"], 20.5))),
    "rare": ("temp > 31", lambda t: pc.greater(t["temp"], 31.0)),
    "wide": ("temp > 10", lambda t: pc.greater(t["temp"], 10.0)),
}


class Prune:
    params = [list(QUERIES)]
    param_names = ["query"]

    def setup_cache(self):
        from prune_tightness import sensor_table

        from nanstats.parquet.upgrading import upgrade

        folder = tempfile.mkdtemp(prefix="nanstats-asv-prune-")
        legacy = os.path.join(folder, "legacy.parquet")
        path = os.path.join(folder, "spec.parquet")
        papq.write_table(sensor_table(16, 16, 1024), legacy, row_group_size=16 * 1024,
                         write_page_index=True, data_page_size=1, write_batch_size=1024,
                         use_dictionary=False)
        upgrade(legacy, path)
        return path

    def time_plan(self, path, query):
        from nanstats.prune.files import pages

        pages(path, QUERIES[query][0], semantics="ieee")

    def time_read_table(self, path, query):
        from nanstats.parquet.reading import read_table

        read_table(path, QUERIES[query][0], semantics="ieee", columns=["ts", "temp"])

    def track_speedup_vs_pyarrow(self, path, query):
        from nanstats.parquet.reading import read_table

        text, arrow_filter = QUERIES[query]

        def ours():
            return read_table(path, text, semantics="ieee", columns=["ts", "temp"])

        def theirs():
            t = papq.read_table(path, columns=["ts", "temp"])
            return t.filter(arrow_filter(t))

        assert ours().num_rows == theirs().num_rows
        return best(theirs) / best(ours)

    track_speedup_vs_pyarrow.unit = "times faster"
