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

_KEY_FIELDS = ["vmin", "vmax", "nmin", "nmax"]
_COUNT_FIELDS = ["num_values", "null_count", "pos_nan_count", "neg_nan_count"]


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
    from nanstats.core.stats import page_table

    totals: dict[str, np.ndarray] = {}  # column -> [4 counts, 4 keys], no groups
    for batch in batches:
        table = pa.Table.from_batches([batch])
        if not by:
            for name, _ in columns:
                stats = page_table(table.column(name))
                row = np.concatenate([stats.counts[0], stats.keys[0]])
                prev = totals.get(name)
                if prev is None:
                    totals[name] = row
                else:
                    prev[:4] += row[:4]
                    prev[4] = min(prev[4], row[4])
                    prev[5] = max(prev[5], row[5])
                    prev[6] = min(prev[6], row[6])
                    prev[7] = max(prev[7], row[7])
            continue
        table = table.sort_by([(k, "ascending") for k in by])
        starts = _group_boundaries(table, by)
        groups = table.select(by).take(pa.array(starts))
        for name, _ in columns:
            stats = page_table(table.column(name), page_starts=starts)
            data: dict[str, Any] = {k: groups.column(k).combine_chunks() for k in by}
            data["column"] = pa.array([name] * len(starts), pa.string())
            for i, f in enumerate(_COUNT_FIELDS):
                data[f] = pa.array(stats.counts[:, i])
            for i, f in enumerate(_KEY_FIELDS):
                data[f] = pa.array(stats.keys[:, i])
            yield pa.RecordBatch.from_pydict(data)
    if totals:
        names = list(totals)
        rows = np.stack([totals[n] for n in names])
        data = {"column": pa.array(names, pa.string())}
        for i, f in enumerate([*_COUNT_FIELDS, *_KEY_FIELDS]):
            data[f] = pa.array(rows[:, i])
        yield pa.RecordBatch.from_pydict(data)


def _finish(batches: Iterator[pa.RecordBatch], kinds: dict[str, str]) -> Iterator[pa.RecordBatch]:
    """Merged keys back to bit patterns and values."""
    from nanstats.core.floats import BY_PHYSICAL_TYPE

    for batch in batches:
        cols = batch.to_pydict()
        n = batch.num_rows
        out_min, out_max, min_bits, max_bits, ptypes = [], [], [], [], []
        for i in range(n):  # one row per group and column: a small result
            ft = BY_PHYSICAL_TYPE[kinds[cols["column"][i]]]
            nulls, pos, neg = (cols["null_count"][i], cols["pos_nan_count"][i],
                               cols["neg_nan_count"][i])
            numbers = cols["num_values"][i] - nulls - pos - neg
            if numbers > 0:
                lo, hi = cols["vmin"][i], cols["vmax"][i]
            elif pos + neg > 0:
                lo, hi = cols["nmin"][i], cols["nmax"][i]
            else:
                lo = hi = None
            bits = [None if k is None else int(ft.keys_to_bits(np.array([k], np.int64))[0])
                    for k in (lo, hi)]
            ptypes.append(ft.physical_type)
            min_bits.append(bits[0])
            max_bits.append(bits[1])
            out_min.append(None if bits[0] is None else ft.bits_to_float(bits[0]))
            out_max.append(None if bits[1] is None else ft.bits_to_float(bits[1]))
        data = {k: v for k, v in cols.items() if k not in _KEY_FIELDS}
        data["nan_count"] = [p + q for p, q in zip(cols["pos_nan_count"], cols["neg_nan_count"],
                                                   strict=True)]
        data["physical_type"] = ptypes
        data["min"] = out_min
        data["max"] = out_max
        # Bits travel as signed longs (Spark has no unsigned type).
        data["min_bits"] = [None if b is None else b - (1 << 64) if b >= 1 << 63 else b
                            for b in min_bits]
        data["max_bits"] = [None if b is None else b - (1 << 64) if b >= 1 << 63 else b
                            for b in max_bits]
        yield pa.RecordBatch.from_pydict(data)


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

    from nanstats.core.stats import page_table

    totals: dict[str, np.ndarray] = {}
    for batch in batches:
        for path in batch.column(0).to_pylist():
            local = path[len("file:"):] if path.startswith("file:") else path
            table = papq.read_table(local, columns=[c for c, _ in columns], use_threads=False)
            for name, _ in columns:
                stats = page_table(table.column(name))
                row = np.concatenate([stats.counts[0], stats.keys[0]])
                prev = totals.get(name)
                if prev is None:
                    totals[name] = row
                else:
                    prev[:4] += row[:4]
                    prev[4], prev[6] = min(prev[4], row[4]), min(prev[6], row[6])
                    prev[5], prev[7] = max(prev[5], row[5]), max(prev[7], row[7])
    if totals:
        names = list(totals)
        rows = np.stack([totals[n] for n in names])
        data = {"column": pa.array(names, pa.string())}
        for i, f in enumerate([*_COUNT_FIELDS, *_KEY_FIELDS]):
            data[f] = pa.array(rows[:, i])
        yield pa.RecordBatch.from_pydict(data)


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
    key_schema = ", ".join(f"`{f.name}` {f.dataType.simpleString()}"
                           for f in df.schema.fields if f.name in by_list)
    partial_schema = ", ".join(
        [*([key_schema] if key_schema else []), "column string",
         *(f"{f} long" for f in _COUNT_FIELDS), *(f"{f} long" for f in _KEY_FIELDS)])
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
    merged = partial.groupBy(*by_list, "column").agg(
        *(F.sum(f).alias(f) for f in _COUNT_FIELDS),
        F.min("vmin").alias("vmin"), F.max("vmax").alias("vmax"),
        F.min("nmin").alias("nmin"), F.max("nmax").alias("nmax"),
    )
    final_schema = ", ".join(
        [*([key_schema] if key_schema else []), "column string",
         *(f"{f} long" for f in _COUNT_FIELDS), "nan_count long", "physical_type string",
         "min double", "max double", "min_bits long", "max_bits long"])
    out = merged.mapInArrow(lambda it: _finish(it, kinds), final_schema)
    return out.select(*by_list, "column", "physical_type", "num_values", "null_count",
                      "nan_count", "pos_nan_count", "neg_nan_count", "min", "max",
                      "min_bits", "max_bits")
