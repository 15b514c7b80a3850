"""Pruning: which files, row groups and pages a predicate may skip.

:func:`row_groups`, :func:`pages` and :func:`explain` judge a Parquet file by
its statistics, under the NaN semantics of the engine that reads it.

>>> import os, tempfile, numpy as np, pyarrow as pa, nanstats.parquet, nanstats.prune
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> _ = nanstats.parquet.write_table(pa.table({"x": np.r_[np.arange(200.0), np.nan]}),
...                                  path, row_group_size=100)
>>> nanstats.prune.row_groups(path, "x > 150", semantics="ieee")
[1]
"""

from nanstats.prune.files import explain, pages, row_groups
from nanstats.prune.parquet_source import FileSource
from nanstats.prune.results import (
    ColumnSearch,
    PruneReport,
    RowGroupDecision,
    RowSelection,
    SegmentDecision,
)

__all__ = ["ColumnSearch", "FileSource", "PruneReport", "RowGroupDecision", "RowSelection",
           "SegmentDecision", "explain", "pages", "row_groups"]
