"""``nanstats.spark.summary``: per-group float statistics of a Spark DataFrame.

A plain Parquet scan is read from its files by pyarrow on the executors, a
file or a range of its row groups per task (rows never go through Spark);
any other DataFrame reaches the executors as Arrow record batches
(``mapInArrow``).  Either way a task numbers the rows by group (hashing the
keys), puts them in group order and computes the statistics of every group
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
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from nanstats.arrow import record_arrays, record_schema
from nanstats.core.floats import BY_PHYSICAL_TYPE
from nanstats.core.records import COLUMN, STATS_FIELDS, stats_columns
from nanstats.core.stats import page_table
from nanstats.core.table import PARTIAL_COLUMNS, StatsTable, merge_rows
from nanstats.lake.fs import resolve
from nanstats.lake.listing import hive_partitions
from nanstats.spark.splits import opened, split_batches, split_frame

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


def _float_columns(df: Any, columns: Sequence[str] | None,
                   by: Sequence[str] = ()) -> list[tuple[str, str]]:
    """The (name, physical type) of the columns to describe: those asked for, or
    every float and double column that is not a group key."""
    from pyspark.sql.types import DoubleType, FloatType

    kinds = {f.name: f.dataType for f in df.schema.fields}
    for k in by:
        if k not in kinds:
            raise ValueError(f"no group column {k!r} in the DataFrame (it has {', '.join(kinds)})")
    names = list(columns) if columns is not None else [
        n for n, t in kinds.items() if isinstance(t, (DoubleType, FloatType)) and n not in by]
    out = []
    for n in names:
        t = kinds.get(n)
        if t is None:
            raise ValueError(f"no column {n!r} in the DataFrame (it has {', '.join(kinds)})")
        if not isinstance(t, (DoubleType, FloatType)):
            raise TypeError(f"column {n!r} is {t.simpleString()}, not float or double")
        out.append((n, "DOUBLE" if isinstance(t, DoubleType) else "FLOAT"))
    if not out:
        raise ValueError("the DataFrame has no float or double column"
                         + (" besides its group columns" if by and columns is None else ""))
    return out


def _group_codes(keys: pa.Table) -> np.ndarray:
    """A group number per row: rows with equal keys share one (nulls are a key of
    their own).  Unequal keys never share a number; Spark's own grouping of the
    partial rows then merges what Spark considers equal (-0.0 and 0.0, NaNs)."""
    import pyarrow.compute as pc

    codes = np.zeros(keys.num_rows, dtype=np.int64)
    for name in keys.column_names:
        encoded = pc.dictionary_encode(keys.column(name).combine_chunks())
        size = len(encoded.dictionary) + 1
        indices = pc.fill_null(encoded.indices, size - 1)
        codes = codes * size + np.asarray(indices, dtype=np.int64)
        if len(keys.column_names) > 1:  # keep the numbers small: renumber densely
            codes = np.unique(codes, return_inverse=True)[1].astype(np.int64)
    return codes


def _values(column: pa.ChunkedArray, kind: str, order: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray | None]:
    """A float column's values (bits untouched) and validity, in the order ``order``."""
    array = column.combine_chunks()
    dtype = np.float64 if kind == "DOUBLE" else np.float32
    data = np.frombuffer(array.buffers()[1], dtype=dtype)[array.offset:array.offset + len(array)]
    valid = np.asarray(array.is_valid(), dtype=bool)[order] if array.null_count else None
    return data[order], valid


#: Rows a task gathers before it sorts them by the group keys: one sort and one
#: kernel call per column for many of Spark's batches (of 10,000 rows by
#: default), and fewer partial rows for Spark to merge.
GROUP_ROWS = 1 << 20


def partial_batches(batches: Iterator[pa.RecordBatch], by: list[str],
                    columns: list[tuple[str, str]]) -> Iterator[pa.RecordBatch]:
    """Per partition: rows of (group, column) with counts and totalOrder keys.

    A batch holds the group keys (named) and then the described columns, in
    the order of ``columns`` (read by position: a float key may also be
    described).  Without groups, the batches of a partition are merged as
    they come and one row per column leaves the task; with groups, one row
    per group and column per :data:`GROUP_ROWS` rows (Spark merges them).
    """
    totals: dict[str, list[StatsTable]] = {}  # column -> its rows so far, no groups
    pending: list[pa.RecordBatch] = []
    rows = 0
    for batch in batches:
        if not by:
            for j, (name, _) in enumerate(columns):
                totals.setdefault(name, []).append(page_table(batch.column(j)))
            continue
        pending.append(batch)
        rows += batch.num_rows
        if rows >= GROUP_ROWS:
            yield from _grouped(pa.Table.from_batches(pending), by, columns)
            pending, rows = [], 0
    if pending:
        yield from _grouped(pa.Table.from_batches(pending), by, columns)
    yield from _total_batches(totals)


def _grouped(table: pa.Table, by: list[str], columns: list[tuple[str, str]]
             ) -> Iterator[pa.RecordBatch]:
    """The partial rows of every group of ``table`` (keys, then the described columns).

    Rows are numbered by group (hashing, no sort of the keys), put in group
    order by a stable sort of those numbers, and each column is scanned once
    with the groups as pages.
    """
    if table.num_rows == 0:
        return
    keys = table.select(list(range(len(by))))
    codes = _group_codes(keys)
    if codes.max() < 1 << 16:  # NumPy's stable sort of 16-bit numbers is a radix sort
        codes = codes.astype(np.uint16)
    order = np.argsort(codes, kind="stable")
    ordered = codes[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]).astype(np.int64)
    groups = keys.take(pa.array(order[starts]))
    key_arrays = [groups.column(i).combine_chunks() for i in range(len(by))]
    for j, (name, kind) in enumerate(columns):
        values, valid = _values(table.column(len(by) + j), kind, order)
        stats = page_table(values, valid, page_starts=starts)
        yield _partial_batch(key_arrays, groups.schema, name, stats)


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


@dataclass(frozen=True)
class FileKeys:
    """How the executors of the file path get the group keys: their names, the
    Arrow types Spark expects, and which come from Hive partition folders
    (``day=0``) rather than from the files."""

    names: tuple[str, ...] = ()
    types: tuple[pa.DataType, ...] = ()
    from_folders: tuple[bool, ...] = ()


# Key types the file path reads as Spark does: from the files, and from folder names.
_FILE_KEY_TYPES = frozenset({"tinyint", "smallint", "int", "bigint", "boolean", "string",
                             "float", "double", "date"})
_FOLDER_KEY_TYPES = frozenset({"tinyint", "smallint", "int", "bigint", "string", "date"})


def file_keys(df: Any, by: Sequence[str], columns: Sequence[str], first_file: str
              ) -> FileKeys | None:
    """The keys of the file path, or None when its files cannot give what Spark's
    scan gives (a key or column neither in the first file nor a partition
    folder, a key type read differently)."""
    import pyarrow.parquet as papq
    from pyspark.sql.pandas.types import to_arrow_type

    with opened(first_file) as source:
        in_file = set(papq.read_schema(source).names)
    if not set(columns) <= in_file:
        return None
    folders = {name for name, _ in hive_partitions(resolve(first_file).path)}
    types = {f.name: f.dataType for f in df.schema.fields}
    from_folders = []
    for k in by:
        from_folder = k in folders
        allowed = _FOLDER_KEY_TYPES if from_folder else _FILE_KEY_TYPES
        if types[k].simpleString() not in allowed or not (from_folder or k in in_file):
            return None
        from_folders.append(from_folder)
    return FileKeys(tuple(by), tuple(to_arrow_type(types[k]) for k in by), tuple(from_folders))


def _read_split(path: str, pf: Any, groups: list[int], keys: FileKeys,
                columns: list[tuple[str, str]]) -> pa.Table:
    """The keys, then the described columns, of a split's row groups (columns a file
    lacks are null, as in Spark's scan)."""
    import pyarrow.compute as pc

    in_file = set(pf.schema_arrow.names)
    file_keys_ = [k for k, f in zip(keys.names, keys.from_folders, strict=True) if not f]
    names = [c for c, _ in columns]
    wanted = list(dict.fromkeys(n for n in (*file_keys_, *names) if n in in_file))
    table = pf.read_row_groups(groups, columns=wanted, use_threads=False)
    n = table.num_rows
    folders = dict(hive_partitions(resolve(path).path))
    arrays: list[Any] = []
    for k, t, from_folder in zip(keys.names, keys.types, keys.from_folders, strict=True):
        if from_folder:
            value = pc.cast(pa.array([folders.get(k)], pa.string()), t)[0]
            arrays.append(pa.repeat(value, n))
        else:
            column = table.column(k)
            arrays.append(column if column.type == t else pc.cast(column, t))
    for c, kind in columns:
        t = pa.float64() if kind == "DOUBLE" else pa.float32()
        arrays.append(table.column(c) if c in in_file else pa.nulls(n, t))
    return pa.Table.from_arrays(arrays, names=[*keys.names, *(f"__value_{j}" for j in
                                                              range(len(columns)))])


def _file_batches(batches: Iterator[pa.RecordBatch], keys: FileKeys,
                  columns: list[tuple[str, str]]) -> Iterator[pa.RecordBatch]:
    """Executor side of the file path: each split's keys and float columns read with
    pyarrow through the filesystem layer, then grouped as the rows path groups."""
    totals: dict[str, list[StatsTable]] = {}  # column -> its rows so far, no groups
    by = list(keys.names)
    for path, _, pf, groups in split_batches(batches):
        table = _read_split(path, pf, groups, keys, columns)
        if by:
            yield from _grouped(table, by, columns)
            continue
        for j, (name, _) in enumerate(columns):
            totals.setdefault(name, []).append(page_table(table.column(j)))
    yield from _total_batches(totals)


def summary(df: Any, columns: Sequence[str] | None = None,
            by: str | Sequence[str] | None = None, *, read_files: bool = True) -> Any:
    """Statistics of the float columns of a Spark DataFrame, per group.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
    columns : float/double columns to describe (default: all of them).
    by : group-by column(s), or None for the whole frame.
    read_files : when ``df`` is a plain Parquet scan, read its files with
        pyarrow on the executors instead of taking rows through Spark (same
        result, a fraction of the cost); group keys then come from the files
        or from Hive partition folders (``day=0``).  Big files are split
        into row-group ranges, one task each.

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
    cols = _float_columns(df, columns, by_list)
    kinds = dict(cols)
    partial_schema = spark_schema(df, by_list, _PARTIAL_SCHEMA)
    files = plain_parquet_files(df) if read_files else None
    keys = file_keys(df, by_list, [c for c, _ in cols], files[0]) if files else None
    if files is not None and keys is not None:
        partial = split_frame(df.sparkSession, files).mapInArrow(
            lambda it: _file_batches(it, keys, cols), partial_schema)
    else:
        # Described columns by position, under names of their own (a float key
        # may be described too).
        values = [F.col(c).alias(f"__value_{j}") for j, (c, _) in enumerate(cols)]
        partial = df.select(*by_list, *values).mapInArrow(
            lambda it: partial_batches(it, by_list, cols), partial_schema)
    # The exact merge, as the core merges (PARTIAL_COLUMNS: sum, min or max).
    merged = partial.groupBy(*by_list, COLUMN.name).agg(
        *(getattr(F, op)(name).alias(name) for name, op in PARTIAL_COLUMNS))
    final_schema = spark_schema(df, by_list, record_schema(_OUTPUT_FIELDS, signed_bits=True))
    return merged.mapInArrow(lambda it: _finish(it, kinds, by_list), final_schema)
