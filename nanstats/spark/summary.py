"""``nanstats.spark.summary``: per-group float statistics of a Spark DataFrame.

Each executor reads its partition as Arrow record batches (``mapInArrow``),
sorts a batch by the group keys and computes the statistics of every group
of every float column in one kernel call per column, as int64 totalOrder
keys and counts.  Spark then merges the partial rows exactly (sums of counts,
min/max of keys) and a last small pass turns keys back into values.  Spark
passes float bits through Arrow unchanged, so NaN signs and payloads and
``-0.0`` survive end to end.

>>> from nanstats.spark.session import local_session
>>> spark = local_session()
>>> df = spark.createDataFrame([("a", 1.0), ("a", float("nan")), ("b", -0.0)], "k string, x double")
>>> rows = summary(df, by="k").orderBy("k").collect()
>>> [(r.k, r.nan_count, r.min) for r in rows]
[('a', 1, 1.0), ('b', 0, -0.0)]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from nanstats.arrow import record_arrays, record_schema
from nanstats.core.floats import BY_PHYSICAL_TYPE
from nanstats.core.records import COLUMN, STATS_FIELDS, stats_columns
from nanstats.core.stats import page_table
from nanstats.core.table import PARTIAL_COLUMNS, StatsTable, merge_rows

# What a task sends Spark: the column's name and a partial StatsTable row.
_PARTIAL_SCHEMA = pa.schema([(COLUMN.name, pa.string()),
                             *((name, pa.int64()) for name, _ in PARTIAL_COLUMNS)])
# What the summary returns after the group columns.
_OUTPUT_FIELDS = (COLUMN, *STATS_FIELDS)


def spark_schema(df: Any, by: Sequence[str], schema: pa.Schema) -> Any:
    """The Spark schema of the group columns ``by`` of ``df``, then an Arrow schema's fields.

    >>> from nanstats.spark.session import local_session
    >>> df = local_session().createDataFrame([("a", 1.0)], "k string, x double")
    >>> spark_schema(df, ["k"], record_schema(STATS_FIELDS[:2])).simpleString()
    'struct<k:string,physical_type:string,num_values:bigint>'
    """
    from pyspark.sql.pandas.types import from_arrow_schema
    from pyspark.sql.types import StructField, StructType

    types = {f.name: f.dataType for f in df.schema.fields}
    keys = [StructField(name, types[name], True) for name in by]
    return StructType([*keys, *from_arrow_schema(schema).fields])


def _float_columns(df: Any, columns: Sequence[str] | None) -> list[tuple[str, str]]:
    from pyspark.sql.types import DoubleType, FloatType

    kinds = {f.name: f.dataType for f in df.schema.fields}
    names = list(columns) if columns is not None else [
        n for n, t in kinds.items() if isinstance(t, (DoubleType, FloatType))]
    out = []
    for n in names:
        t = kinds.get(n)
        if t is None:
            raise ValueError(f"no column {n!r} in the DataFrame (it has {', '.join(kinds)})")
        if not isinstance(t, (DoubleType, FloatType)):
            raise TypeError(f"column {n!r} is {t.simpleString()}, not float or double")
        out.append((n, "DOUBLE" if isinstance(t, DoubleType) else "FLOAT"))
    if not out:
        raise ValueError("the DataFrame has no float or double column")
    return out


def _group_boundaries(table: pa.Table, by: list[str]) -> np.ndarray:
    """Start rows of the runs of equal group keys in a table sorted by them."""
    n = table.num_rows
    if not by or n == 0:
        return np.zeros(1, dtype=np.int64)
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for name in by:
        col = table.column(name).combine_chunks()
        a, b = col.slice(0, n - 1), col.slice(1)
        null_a = np.asarray(a.is_null(), dtype=bool)
        null_b = np.asarray(b.is_null(), dtype=bool)
        import pyarrow.compute as pc

        neq = np.asarray(pc.fill_null(pc.not_equal(a, b), False), dtype=bool)
        change[1:] |= neq | (null_a != null_b)
    return np.flatnonzero(change).astype(np.int64)


def partial_batches(batches: Iterator[pa.RecordBatch], by: list[str],
                    columns: list[tuple[str, str]]) -> Iterator[pa.RecordBatch]:
    """Per partition: rows of (group, column) with counts and totalOrder keys.

    Without groups, the batches of a partition are merged as they come and
    one row per column leaves the task; with groups, one row per group and
    column per batch (Spark merges them).
    """
    totals: dict[str, list[StatsTable]] = {}  # column -> its rows so far, no groups
    for batch in batches:
        table = pa.Table.from_batches([batch])
        if not by:
            for name, _ in columns:
                totals.setdefault(name, []).append(page_table(table.column(name)))
            continue
        table = table.sort_by([(k, "ascending") for k in by])
        starts = _group_boundaries(table, by)
        groups = table.select(by).take(pa.array(starts))
        for name, _ in columns:
            stats = page_table(table.column(name), page_starts=starts)
            keys = [groups.column(k).combine_chunks() for k in by]
            yield _partial_batch(keys, groups.schema, name, stats)
    yield from _total_batches(totals)


def _partial_batch(keys: list[pa.Array], key_schema: pa.Schema, name: str,
                   stats: StatsTable) -> pa.RecordBatch:
    """Partial rows of one column: the group keys, the column's name, the StatsTable."""
    arrays = [pa.array([name] * len(stats), pa.string()), *map(pa.array, stats.columns())]
    schema = pa.schema([*(f.with_nullable(True) for f in key_schema), *_PARTIAL_SCHEMA])
    return pa.RecordBatch.from_arrays([*keys, *arrays], schema=schema)


def _total_batches(totals: dict[str, list[StatsTable]]) -> Iterator[pa.RecordBatch]:
    """One partial row per column: the merge of the rows a task saw (no groups)."""
    for name, tables in totals.items():
        rows = StatsTable(tables[0].float_type, np.concatenate([t.counts for t in tables]),
                          np.concatenate([t.keys for t in tables]))
        yield _partial_batch([], pa.schema([]), name, merge_rows(rows))


def _finish(batches: Iterator[pa.RecordBatch], kinds: dict[str, str],
            by: Sequence[str]) -> Iterator[pa.RecordBatch]:
    """Merged partial rows back to records: bit patterns and values of the bounds."""
    import pyarrow.compute as pc

    names = [name for name, _ in PARTIAL_COLUMNS]
    for batch in batches:
        for physical_type in sorted(set(kinds.values())):  # one pass per float type
            columns = [c for c, kind in kinds.items() if kind == physical_type]
            part = batch.filter(pc.is_in(batch.column(COLUMN.name), pa.array(columns)))
            if part.num_rows == 0:
                continue
            table = StatsTable.from_columns(BY_PHYSICAL_TYPE[physical_type],
                                            [part.column(n).to_numpy() for n in names])
            records = stats_columns(table).with_columns(
                column=part.column(COLUMN.name).to_numpy(zero_copy_only=False))
            keys = [part.column(k) for k in by]
            # Bits travel as signed longs (Spark has no unsigned type).
            schema = pa.schema([*(part.schema.field(k).with_nullable(True) for k in by),
                                *record_schema(_OUTPUT_FIELDS, signed_bits=True)])
            arrays = record_arrays(records, _OUTPUT_FIELDS, signed_bits=True)
            yield pa.RecordBatch.from_arrays([*keys, *arrays], schema=schema)


def plain_parquet_files(df: Any) -> list[str] | None:
    """The files of ``df`` when it is a plain Parquet scan (columns selected at
    most), else None.  Such a frame can be summarised straight from its files."""
    try:
        plan = df._jdf.queryExecution().optimizedPlan().toString()
    except Exception:  # noqa: BLE001 - not a classic DataFrame (Spark Connect, ...)
        return None
    lines = [ln.strip().lstrip("+- ").strip() for ln in plan.strip().splitlines()]
    if not lines or not lines[-1].startswith("Relation ") or not lines[-1].endswith(" parquet"):
        return None
    for ln in lines[:-1]:
        if not ln.startswith("Project [") or " AS " in ln or "(" in ln:
            return None
    files = list(df.inputFiles())
    return files or None


def _file_batches(batches: Iterator[pa.RecordBatch], columns: list[tuple[str, str]]
                  ) -> Iterator[pa.RecordBatch]:
    """Executor side of the file path: read the float columns with pyarrow."""
    import pyarrow.parquet as papq

    totals: dict[str, list[StatsTable]] = {}  # column -> its rows so far
    for batch in batches:
        for path in batch.column(0).to_pylist():
            local = path[len("file:"):] if path.startswith("file:") else path
            table = papq.read_table(local, columns=[c for c, _ in columns], use_threads=False)
            for name, _ in columns:
                totals.setdefault(name, []).append(page_table(table.column(name)))
    yield from _total_batches(totals)


def summary(df: Any, columns: Sequence[str] | None = None,
            by: str | Sequence[str] | None = None, *, read_files: bool = True) -> Any:
    """Statistics of the float columns of a Spark DataFrame, per group.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
    columns : float/double columns to describe (default: all of them).
    by : group-by column(s), or None for the whole frame.
    read_files : when ``df`` is a plain Parquet scan and ``by`` is None, read
        its files with pyarrow on the executors instead of taking rows through
        Spark (same result, a fraction of the cost).

    Returns a DataFrame with the group columns, ``column``,
    ``physical_type``, ``num_values``, ``null_count``, ``nan_count``,
    ``pos_nan_count``, ``neg_nan_count``, ``min``, ``max`` (doubles, NaN
    extremes when every non-null value is NaN) and ``min_bits``/``max_bits``
    (the exact bit patterns as signed longs).

    Examples
    --------
    >>> import pyarrow as pa
    >>> from nanstats.spark.session import local_session
    >>> t = pa.table({"k": ["a", "a", "b"], "x": [1.0, float("nan"), -0.0]})
    >>> df = local_session().createDataFrame(t)
    >>> rows = summary(df, by="k").orderBy("k").collect()
    >>> [(r.k, r.column, r.nan_count, r.min, r.max) for r in rows]
    [('a', 'x', 1, 1.0, 1.0), ('b', 'x', 0, -0.0, -0.0)]
    """
    from pyspark.sql import functions as F

    by_list = [by] if isinstance(by, str) else list(by or [])
    cols = _float_columns(df, columns)
    kinds = dict(cols)
    partial_schema = spark_schema(df, by_list, _PARTIAL_SCHEMA)
    files = plain_parquet_files(df) if read_files and not by_list else None
    if files is not None:
        spark = df.sparkSession
        parallelism = max(1, min(len(files), spark.sparkContext.defaultParallelism * 2))
        paths = spark.createDataFrame(pa.table({"path": files})).repartition(parallelism)
        partial = paths.mapInArrow(lambda it: _file_batches(it, cols), partial_schema)
    else:
        selected = df.select(*by_list, *(c for c, _ in cols))
        partial = selected.mapInArrow(lambda it: partial_batches(it, by_list, cols),
                                      partial_schema)
    # The exact merge, as the core merges (PARTIAL_COLUMNS: sum, min or max).
    merged = partial.groupBy(*by_list, COLUMN.name).agg(
        *(getattr(F, op)(name).alias(name) for name, op in PARTIAL_COLUMNS))
    final_schema = spark_schema(df, by_list, record_schema(_OUTPUT_FIELDS, signed_bits=True))
    return merged.mapInArrow(lambda it: _finish(it, kinds, by_list), final_schema)
