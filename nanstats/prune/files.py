"""Which row groups and pages of a Parquet file a predicate may skip.

Row groups are judged by their footer statistics; pages by the ColumnIndex
and OffsetIndex of every column the predicate reads (a file is a local path,
any URI of :func:`nanstats.lake.fs.resolve`, or a path on ``filesystem=``;
a remote one is read by ranges, footer and page index only), through the engine of
:mod:`nanstats.prune.planner` (segments of rows, loose binary page search) over
a :class:`~nanstats.prune.parquet_source.FileSource`.

>>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> x = np.r_[np.arange(300.0), np.full(100, np.nan)]
>>> papq.write_table(pa.table({"x": x}), path, row_group_size=100,
...                  write_page_index=True, data_page_size=256, write_batch_size=25)
>>> row_groups(path, "x > 250", semantics="ieee")   # pyarrow's statistics: no nan_count
[2, 3]
>>> from nanstats.parquet.writing import write_table
>>> _ = write_table(pa.table({"x": x}), path, row_group_size=100,
...             data_page_size=256, write_batch_size=25)
>>> row_groups(path, "x > 250", semantics="ieee")   # nanstats': row group 3 is all NaN
[2]
>>> row_groups(path, "x > 250")   # nan_greatest: NaN is above 250
[2, 3]
>>> sel = pages(path, "x > 250 and x < 260", semantics="ieee")
>>> sel.ranges
{2: ((50, 75),)}
>>> sel.num_rows
25
"""

from __future__ import annotations

from typing import Any

from nanstats.lake.fs import Target
from nanstats.prune.abstract import may_match
from nanstats.prune.binding import bind
from nanstats.prune.expressions import Expr
from nanstats.prune.parquet_source import FileSource
from nanstats.prune.parser import as_predicate
from nanstats.prune.planner import plan
from nanstats.prune.profiles import EngineProfile, profile
from nanstats.prune.results import PruneReport, RowSelection
from nanstats.prune.semantics import DEFAULT_SEMANTICS


def _bound(src: FileSource, pred: Expr, prof: EngineProfile) -> Expr:
    """The predicate's literals typed against the file's float columns (binding.bind)."""
    return bind(pred, src.float_widths(), prof)


def row_groups(path: Target, predicate: Expr | str, *,
               semantics: str | EngineProfile = DEFAULT_SEMANTICS,
               filesystem: Any = None) -> list[int]:
    """The row groups of a file that may hold a row the predicate accepts.

    Judged from the footer statistics only, read under each column's order
    (SPEC.md section 4); a row group without usable statistics is kept.

    >>> import numpy as np, pyarrow as pa, tempfile, os
    >>> from nanstats.parquet.writing import write_table
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> _ = write_table(pa.table({"x": np.arange(100.0)}), path, row_group_size=50,
    ...                 data_page_size=64, write_batch_size=10)
    >>> row_groups(path, "x > 60"), row_groups(path, "x > 1000")
    ([1], [])
    """
    pred = as_predicate(predicate)
    prof = profile(semantics)
    src = FileSource(path, pred.columns(), filesystem=filesystem)
    names = sorted(pred.columns())
    pred = _bound(src, pred, prof)
    return [g for g in range(src.num_row_groups)
            if may_match(pred, src.chunk_env(g, names), prof)]


def _plan(path: Target | FileSource, predicate: Expr | str, semantics: str | EngineProfile, detail: bool,
          filesystem: Any = None) -> PruneReport:
    pred = as_predicate(predicate)
    prof = profile(semantics)
    src = path if isinstance(path, FileSource) else FileSource(path, pred.columns(),
                                                                 filesystem=filesystem)
    return plan(src, _bound(src, pred, prof), prof, detail=detail, name=src.path)


def pages(path: Target | FileSource, predicate: Expr | str, *,
          semantics: str | EngineProfile = DEFAULT_SEMANTICS,
          filesystem: Any = None) -> RowSelection:
    """The rows of a file (as row ranges per row group) that may satisfy the predicate.

    Uses the footer statistics, then every ColumnIndex/OffsetIndex of the
    columns the predicate reads; a column without a page index counts as one
    page per row group.  ``path`` may be a :class:`FileSource` already open
    (its footer and page index are then not read again).

    >>> import numpy as np, pyarrow as pa, tempfile, os
    >>> from nanstats.parquet.writing import write_table
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> _ = write_table(pa.table({"x": np.arange(100.0)}), path, row_group_size=50,
    ...                 data_page_size=64, write_batch_size=10)
    >>> pages(path, "x >= 55 and x < 72").ranges   # pages of 10 rows
    {1: ((0, 30),)}
    """
    return _plan(path, predicate, semantics, False, filesystem).selection


def explain(path: Target, predicate: Expr | str, *,
            semantics: str | EngineProfile = DEFAULT_SEMANTICS,
            filesystem: Any = None) -> PruneReport:
    """Why each row group and segment of pages was kept or skipped, with search steps.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, 2.0, 3.0, 4.0]}), path, row_group_size=2)
    >>> report = explain(path, "x >= 3", semantics="ieee")
    >>> [(d.row_group, d.kept) for d in report.row_groups]
    [(0, False), (1, True)]
    >>> print(report.row_groups[0].reason)
    chunk statistics: x in [1.0, 2.0] or NaN, so the predicate is false
    >>> explain(path, "x >= 3").row_groups[0].kept   # NaN may be present, and is above 3
    True
    """
    return _plan(path, predicate, semantics, True, filesystem)
