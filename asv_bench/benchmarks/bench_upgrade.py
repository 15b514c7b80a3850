"""asv benchmarks of upgrade against pyarrow.parquet.read_table of the same columns.

The file is ``benchmarks/upgrade_speed.py``'s (8 float64 columns with NaNs
of both signs and nulls, pyarrow's defaults), at 128 MB so that a run stays
short; ``make upgrade-speed`` (that script) measures the issue's 1 GB case.
``time_upgrade`` times the whole rewrite (memory-mapped source, or pread
with ``memory_map=False``), fsync and rename included; ``time_read_table``
the decoding any reader pays; ``track_ratio_to_read_table`` the issue's
measure (target <= 1.5), both sides timed in turn; ``track_write_floor_ratio``
what writing and fsyncing as many bytes costs alone, in the same units.
"""

from __future__ import annotations

import os
import sys
import tempfile

import pyarrow.parquet as papq

from nanstats.testing.timing import best_interleaved

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))

MB = 128
NAMES = [f"x{c}" for c in range(8)]


def _remove(path: str) -> None:
    if os.path.exists(path):
        os.unlink(path)


class Upgrade:
    params = [[True, False]]
    param_names = ["memory_map"]
    timeout = 300

    def setup_cache(self):
        from upgrade_speed import write_file

        folder = tempfile.mkdtemp(prefix="nanstats-asv-upgrade-")
        src = os.path.join(folder, "src.parquet")
        write_file(src, MB)
        os.sync()
        return src

    def setup(self, src, memory_map):
        self.dst = src + f".{os.getpid()}.out.parquet"
        papq.read_table(src, columns=NAMES)  # the page cache warm for both

    def teardown(self, src, memory_map):
        _remove(self.dst)

    def _clean(self) -> None:
        """dst removed and the disk synced, untimed, before each timed call."""
        _remove(self.dst)
        os.sync()

    def time_upgrade(self, src, memory_map):
        from nanstats.parquet.upgrade import upgrade

        upgrade(src, self.dst, memory_map=memory_map)

    def time_read_table(self, src, memory_map):
        papq.read_table(src, columns=NAMES)

    def track_ratio_to_read_table(self, src, memory_map):
        from nanstats.parquet.upgrade import upgrade

        up, read = best_interleaved([lambda: upgrade(src, self.dst, memory_map=memory_map),
                                     lambda: papq.read_table(src, columns=NAMES)], 3, self._clean)
        return up / read

    track_ratio_to_read_table.unit = "x read_table"

    def track_write_floor_ratio(self, src, memory_map):
        from upgrade_speed import write_and_fsync

        size, block = os.path.getsize(src), os.urandom(1 << 22)

        floor, read = best_interleaved([lambda: write_and_fsync(self.dst, size, block),
                                        lambda: papq.read_table(src, columns=NAMES)], 3, self._clean)
        return floor / read

    track_write_floor_ratio.unit = "x read_table"
