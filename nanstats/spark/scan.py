"""``plan_scan`` and ``read``: query a Parquet lake reading only what may match.

``plan_scan`` decides, from the statistics table of
:func:`~nanstats.spark.index.index_files` (exact, NaN signs known) or from
the files' own footers and page indexes, which files, row groups and rows
(page ranges) a predicate must read under an engine's NaN semantics.
``read`` executes such a plan on the executors: each task opens its files
with pyarrow, reads the row groups that remain, keeps the planned row
ranges, applies the exact filter, and hands Arrow batches to Spark.  The
result equals Spark's own full scan with the same filter (the default
engine profile, ``spark``, is Spark's: NaN greatest, literals typed as
double).

>>> import os, tempfile, numpy as np, pyarrow as pa
>>> from nanstats.parquet.writing import write_table
>>> from nanstats.spark.session import local_session
>>> spark, folder = local_session(), tempfile.mkdtemp()
>>> for i in range(3):
...     _ = write_table(pa.table({"x": np.arange(100.0) + 100 * i}),
...                     os.path.join(folder, f"part-{i}.parquet"))
>>> plan = plan_scan(folder, "x >= 150 and x < 170")
>>> [os.path.basename(f) for f in plan.files], plan.rows
(['part-1.parquet'], 100)
>>> read(spark, folder, "x >= 150 and x < 170").count()
20
"""

from __future__ import annotations

import json
import os
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from nanstats.core.floats import BY_PHYSICAL_TYPE
from nanstats.core.stats import ColumnStats
from nanstats.lake.fs import FileCache
from nanstats.lake.listing import list_parquet_files
from nanstats.prune.binding import bind
from nanstats.prune.expressions import Expr
from nanstats.prune.parser import as_predicate
from nanstats.prune.planner import plan
from nanstats.prune.profiles import EngineProfile, profile
from nanstats.prune.results import RowSelection
from nanstats.prune.sources import LayeredSource, StatsSource


@dataclass(frozen=True)
class ScanPlan:
    """What a query must read: a RowSelection per file (files with nothing to read omitted).

    >>> import os, tempfile, numpy as np, pyarrow as pa
    >>> from nanstats.parquet.writing import write_table
    >>> folder = tempfile.mkdtemp()
    >>> _ = write_table(pa.table({"x": np.arange(10.0)}), os.path.join(folder, "a.parquet"))
    >>> plan = plan_scan(folder, "x > 7")
    >>> plan
    ScanPlan((x > 7) under spark: 1 of 1 files, 1 of 1 row groups, 10 of 10 rows)
    >>> [(os.path.basename(t["path"]), t["row_group"], t["ranges"]) for t in plan.tasks()]
    [('a.parquet', 0, '[[0, 10]]')]
    """

    predicate: str
    semantics: str  #: the engine profile's name
    selections: dict[str, RowSelection]
    all_files: tuple[str, ...]
    row_groups_total: int
    rows_total: int
    #: Width in bits of each float column of the files (for literal typing).
    float_widths: dict[str, int] = field(default_factory=dict)

    @property
    def files(self) -> list[str]:
        """The files to open."""
        return sorted(self.selections)

    @property
    def row_groups(self) -> int:
        """Row groups to read, over all files."""
        return sum(len(s.ranges) for s in self.selections.values())

    @property
    def rows(self) -> int:
        """Rows in the selected page ranges, over all files."""
        return sum(s.num_rows for s in self.selections.values())

    def tasks(self) -> list[dict[str, Any]]:
        """One entry per file and row group: what a read task does."""
        return [{"path": path, "row_group": g, "ranges": json.dumps(sel.ranges[g])}
                for path, sel in sorted(self.selections.items()) for g in sel.row_groups]

    def to_dict(self) -> dict[str, Any]:
        """Plain Python objects."""
        return {"predicate": self.predicate, "semantics": self.semantics,
                "files": {p: s.to_dict() for p, s in self.selections.items()},
                "files_total": len(self.all_files), "row_groups_total": self.row_groups_total,
                "rows_total": self.rows_total, "float_widths": dict(self.float_widths)}

    def __repr__(self) -> str:
        return (f"ScanPlan({self.predicate} under {self.semantics}: "
                f"{len(self.selections)} of {len(self.all_files)} files, "
                f"{self.row_groups} of {self.row_groups_total} row groups, "
                f"{self.rows:,} of {self.rows_total:,} rows)")


def _unsigned(bits: int, width: int) -> int:
    return bits & ((1 << width) - 1)


def _canonical_nan(ft: Any, negative: bool) -> int:
    quiet = int(ft.inf_bits) | (1 << ({16: 10, 32: 23, 64: 52}[ft.width] - 1))
    return quiet | (int(ft.sign_mask) if negative else 0)


def _stats_of(row: dict[str, Any]) -> ColumnStats:
    ft = BY_PHYSICAL_TYPE[row["physical_type"]]
    num, nulls = int(row["num_values"]), int(row["null_count"])
    pos, neg = int(row["pos_nan_count"]), int(row["neg_nan_count"])
    lo = None if row["min_bits"] is None else _unsigned(int(row["min_bits"]), ft.width)
    hi = None if row["max_bits"] is None else _unsigned(int(row["max_bits"]), ft.width)
    has_values = num - nulls - pos - neg > 0
    if has_values:
        nan_lo = _canonical_nan(ft, True) if neg else _canonical_nan(ft, False) if pos else None
        nan_hi = _canonical_nan(ft, False) if pos else _canonical_nan(ft, True) if neg else None
        return ColumnStats(ft.physical_type, num, nulls, pos, neg, lo, hi, nan_lo, nan_hi)
    if pos + neg:
        return ColumnStats(ft.physical_type, num, nulls, pos, neg, None, None, lo, hi)
    return ColumnStats(ft.physical_type, num, nulls, 0, 0, None, None, None, None)


def _build_sources(index: Any, columns: Sequence[str] | None = None
                       ) -> dict[str, StatsSource]:
    """A StatsSource per file from a statistics table (Spark DataFrame or pyarrow Table)."""
    if hasattr(index, "toArrow"):  # a Spark DataFrame: fetch only the columns needed
        if columns is not None:
            from pyspark.sql import functions as F

            index = index.where(F.col("column").isin(list(columns)))
        table = index.toArrow()
    elif isinstance(index, pa.Table):
        table = index
    else:
        raise TypeError(f"index must be a Spark DataFrame or a pyarrow Table, "
                        f"not {type(index).__name__}")
    rows = table.to_pylist()
    by_file: dict[str, dict[int, dict[str, list[dict[str, Any]]]]] = {}
    for r in rows:
        if columns is not None and r["column"] not in columns:
            continue
        by_file.setdefault(r["path"], {}).setdefault(r["row_group"], {}) \
            .setdefault(r["column"], []).append(r)
    out: dict[str, StatsSource] = {}
    for path, groups in by_file.items():
        n_groups = max(groups) + 1
        group_list: list[dict[str, tuple[list[int], list[ColumnStats]]]] = []
        counts: list[int] = []
        for g in range(n_groups):
            cols = groups.get(g, {})
            entry: dict[str, tuple[list[int], list[ColumnStats]]] = {}
            num_rows = 0
            for name, pages in cols.items():
                pages.sort(key=lambda r: r["page"])
                base = pages[0]["first_row"]
                entry[name] = ([int(p["first_row"] - base) for p in pages],
                               [_stats_of(p) for p in pages])
                num_rows = sum(int(p["num_values"]) for p in pages)
            group_list.append(entry)
            counts.append(num_rows)
        out[path] = StatsSource(group_list, counts)
    return out


def sources_from_index(index: Any, columns: Sequence[str] | None = None
                       ) -> dict[str, StatsSource]:
    """A StatsSource per file from a statistics table (Spark DataFrame or pyarrow Table).

    For a pyarrow Table the sources of all its columns are built once and
    kept while the table lives (later calls, for any columns, reuse them),
    and each page's abstraction is computed once: planning many queries over
    one index pays for the conversion once.

    >>> import os, tempfile, numpy as np, pyarrow as pa, pyarrow.parquet as papq
    >>> from nanstats.spark.index import INDEX_SCHEMA, file_rows
    >>> path = os.path.join(tempfile.mkdtemp(), "a.parquet")
    >>> papq.write_table(pa.table({"x": np.arange(10.0)}), path)
    >>> index = pa.Table.from_pydict(file_rows(path), schema=INDEX_SCHEMA)
    >>> sources_from_index(index)[path] is sources_from_index(index, ["x"])[path]
    True
    """
    if not isinstance(index, pa.Table):
        return _build_sources(index, columns)
    key = id(index)
    cached = _SOURCES.get(key)
    if cached is None or cached[0]() is not index:
        built = _build_sources(index)
        ref = weakref.ref(index, lambda _: _SOURCES.pop(key, None))
        _SOURCES[key] = cached = (ref, built)
    return cached[1]


#: Sources built from pyarrow index tables, by id() of the table (weakly held).
_SOURCES: dict[int, tuple[Any, dict[str, Any]]] = {}


def _open_file_source(path: str) -> Any:
    from nanstats.prune.parquet_source import FileSource

    return FileSource(path)


#: The FileSource of a file, kept while the file is unchanged.
_file_source: FileCache[Any] = FileCache(_open_file_source)


def plan_scan(index_or_path: Any, predicate: Expr | str,
              semantics: str | EngineProfile = "spark", *,
              path: str | Sequence[str] | None = None) -> ScanPlan:
    """The files, row groups and row ranges a query must read.

    ``index_or_path`` is the statistics table of
    :func:`~nanstats.spark.index.index_files` (a Spark DataFrame or a
    pyarrow Table; exact, NaN signs known), or a folder / list of files whose
    own footers and page indexes are used.  With a table, columns it does not
    cover (non-float columns) come from the files' footers when ``path`` (or
    the table's paths) can be opened, else count as "anything".  See the
    module example; with a statistics table:

    >>> import os, tempfile, numpy as np, pyarrow as pa
    >>> from nanstats.parquet.writing import write_table
    >>> from nanstats.spark.index import INDEX_SCHEMA, file_rows
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "a.parquet")
    >>> _ = write_table(pa.table({"x": np.r_[np.arange(10.0), -np.nan]}), path)
    >>> index = pa.Table.from_pydict(file_rows(path), schema=INDEX_SCHEMA)
    >>> plan_scan(index, "x > 20", "total_order", path=folder).rows   # only a -NaN: skip
    0
    >>> plan_scan(folder, "x > 20", "total_order").rows   # the file: a NaN of either sign
    11
    """
    pred = as_predicate(predicate)
    prof = profile(semantics)
    names = pred.columns()
    if isinstance(index_or_path, (str, os.PathLike)) or (
            isinstance(index_or_path, Sequence) and not isinstance(index_or_path, pa.Table)):
        files = list_parquet_files(index_or_path)
        exact: dict[str, StatsSource] = {}
    else:
        exact = sources_from_index(index_or_path, sorted(names))
        files = list_parquet_files(path) if path is not None else sorted(exact)
    selections: dict[str, RowSelection] = {}
    widths: dict[str, int] = {}
    groups_total = rows_total = 0
    for f in files:
        file_src = _file_source(f)
        layers: list[Any] = [exact[f], file_src] if f in exact else [file_src]
        src = LayeredSource(layers)
        file_widths = file_src.float_widths()
        widths.update(file_widths)
        report = plan(src, bind(pred, file_widths, prof), prof, detail=False,
                      name=f)
        groups_total += len(report.row_groups)
        rows_total += report.selection.total_rows
        if report.selection.ranges:
            selections[f] = report.selection
    return ScanPlan(repr(pred), prof.name, selections, tuple(files), groups_total, rows_total,
                    widths)


def read(spark: Any, path: str, predicate: Expr | str,
         semantics: str | EngineProfile = "spark", *, index: Any = None,
         scan_plan: ScanPlan | None = None, method: str = "auto") -> Any:
    """The rows of a Parquet lake that satisfy the predicate, reading only what may match.

    ``index`` (the statistics table) makes the plan exact for float columns;
    without it the files' own statistics are used.  A plan made earlier by
    :func:`plan_scan` may be passed as ``scan_plan``.  ``method`` picks the
    read path: ``"native"`` (Spark's own Parquet reader over the kept files,
    row groups and pages skipped through the files' integer statistics, see
    ``nanstats.spark.native_scan``), ``"arrow"`` (pyarrow on the
    executors reads exactly the planned pages, see
    ``nanstats.spark.arrow_scan``) or ``"auto"`` (:func:`~nanstats.spark.scan.choose_method`).
    Its result equals Spark's full scan with the same filter (see the module
    example):

    >>> import os, tempfile, numpy as np, pyarrow as pa
    >>> from nanstats.parquet.writing import write_table
    >>> from nanstats.spark.session import local_session
    >>> folder = tempfile.mkdtemp()
    >>> _ = write_table(pa.table({"x": [1.0, np.nan, 3.0]}), os.path.join(folder, "a.parquet"))
    >>> [r.x for r in read(local_session(), folder, "x >= 2").collect()]   # NaN is greatest
    [nan, 3.0]
    >>> read(local_session(), folder, "x >= 2", method="arrow").count()
    2
    """
    from nanstats.spark.arrow_scan import arrow_frame
    from nanstats.spark.native_scan import lake_schema, native_frame

    if method not in ("auto", "native", "arrow"):
        raise ValueError(f"method must be 'auto', 'native' or 'arrow', not {method!r}")
    pred = as_predicate(predicate)
    prof = profile(semantics)
    if scan_plan is None:
        scan_plan = plan_scan(index if index is not None else path, pred, prof,
                              path=path if index is not None else None)
    schema = lake_schema(spark, path, scan_plan.all_files)
    if method == "auto":
        method = choose_method(scan_plan, len(schema.fields))
    if method == "native":
        return native_frame(spark, path, scan_plan, schema=schema)
    return arrow_frame(spark, path, scan_plan, schema, tasks=arrow_tasks(
        scan_plan, len(schema.fields), spark.sparkContext.defaultParallelism))


#: The pyarrow path's extra fixed cost (a Python job's set-up on top of a JVM
#: job's), in values Spark's reader decodes in the same time (measured on the
#: 16-million-row lake, ``benchmarks/spark_read.py``; docs/performance).
ARROW_FIXED_VALUES = 12_000_000
#: Share of the kept rows whose other columns the pyarrow path is assumed to
#: read after the filter (it reads them only where rows pass).
ARROW_LATE_SHARE = 0.5


def choose_method(scan_plan: ScanPlan, num_columns: int | None = None) -> str:
    """The read path for a plan: the one whose cost, by the rule below, is lower.

    Spark's own reader (``"native"``) decodes the predicate's columns of every
    kept file in the JVM; the pyarrow path (``"arrow"``) decodes only the
    kept pages of those columns, then the other columns (``num_columns`` in
    all, default: the predicate's) where rows passed, in Python workers, for
    a fixed cost more (a Python job).  In values decoded::

        native = rows of the kept files x predicate columns
        arrow  = kept rows x (predicate columns + ARROW_LATE_SHARE x other columns)
                 + ARROW_FIXED_VALUES

    The pyarrow path is also the only one for predicates Spark SQL cannot
    evaluate (another NaN order, a hash membership, NaN as missing).

    >>> import os, tempfile, numpy as np, pyarrow as pa, pyarrow.parquet as papq
    >>> folder = tempfile.mkdtemp()
    >>> papq.write_table(pa.table({"x": [1.0]}), os.path.join(folder, "a.parquet"))
    >>> choose_method(plan_scan(folder, "x > 0")), choose_method(plan_scan(folder, "x > 0", "ieee"))
    ('native', 'arrow')
    """
    from nanstats.spark.native_scan import native_sql

    try:
        native_sql(scan_plan, scan_plan.semantics)
    except ValueError:
        return "arrow"
    if not scan_plan.selections:
        return "native"
    used = _predicate_columns(scan_plan)
    native = sum(s.total_rows for s in scan_plan.selections.values()) * used
    arrow = arrow_values(scan_plan, num_columns) + ARROW_FIXED_VALUES
    return "arrow" if arrow < native else "native"


#: Values (by :func:`arrow_values`) a task of the pyarrow path should decode
#: before one more task pays for its own Python worker (on the 16-million-row
#: lake, 2 cores: a plan of 11 M values read faster as one task, one of 24 M
#: as two; ``benchmarks/spark_read.py --tasks``; docs/performance).
ARROW_TASK_VALUES = 12_000_000


def _predicate_columns(scan_plan: ScanPlan) -> int:
    from nanstats.prune.parser import parse

    return len({c.split(".")[0] for c in parse(scan_plan.predicate).columns()}) or 1


def arrow_values(scan_plan: ScanPlan, num_columns: int | None = None) -> float:
    """The values the pyarrow path decodes for a plan, by the rule of
    :func:`nanstats.spark.scan.choose_method`:
    kept rows x (predicate columns + ARROW_LATE_SHARE x other columns).

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
    >>> folder = tempfile.mkdtemp()
    >>> papq.write_table(pa.table({"x": [1.0, 2.0], "y": [3, 4]}), os.path.join(folder, "a.parquet"))
    >>> arrow_values(plan_scan(folder, "x > 0"), num_columns=2)    # 2 rows x (1 + 0.5 x 1)
    3.0
    """
    used = _predicate_columns(scan_plan)
    other = max(0, (num_columns or used) - used)
    return float(scan_plan.rows * (used + ARROW_LATE_SHARE * other))


def arrow_tasks(scan_plan: ScanPlan, num_columns: int | None, cores: int) -> int:
    """How many tasks the pyarrow path splits a plan into: one per
    ``ARROW_TASK_VALUES`` values decoded (:func:`nanstats.spark.scan.arrow_values`), at least one,
    at most ``cores``.  A Python task costs a worker's set-up and competes with
    the JVM for the cores, so a small read is faster as one task.

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as papq
    >>> folder = tempfile.mkdtemp()
    >>> papq.write_table(pa.table({"x": [1.0, 2.0]}), os.path.join(folder, "a.parquet"))
    >>> arrow_tasks(plan_scan(folder, "x > 0"), 1, cores=8)
    1
    """
    share = int(arrow_values(scan_plan, num_columns) // ARROW_TASK_VALUES)
    return max(1, min(cores, share))
