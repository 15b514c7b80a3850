"""The pandas flavour: pandas UDFs that give the numbers of ``nanstats.spark.summary``.

Spark hands a pandas UDF a float Series in which nulls have become NaN, so
every function here also receives ``col.isNull()`` and rebuilds the mask.
NaN bits (sign, payload) and ``-0.0`` survive the conversion.

* :func:`summary_udf` — the grouped-aggregate pandas UDF of one field;
* :func:`summary_columns` — grouped-aggregate pandas UDFs, one per field, for
  ``groupBy(...).agg(...)``.  Each recomputes the column's statistics, so
  asking for all nine fields costs nine passes; ask for the ones you need.
* :func:`summary_in_pandas` — the whole table of :func:`nanstats.spark.summary`
  through ``groupBy().applyInPandas``: one pass per group and column.

Both are slower than :func:`nanstats.spark.summary` (Arrow batches, no pandas
objects); benchmarks/spark_stats.py measures them side by side.

>>> from nanstats.spark.session import local_session
>>> spark = local_session()
>>> df = spark.createDataFrame([("a", 1.0), ("a", None), ("b", float("nan"))], "k string, x double")
>>> sorted(tuple(r) for r in df.groupBy("k").agg(*summary_columns("x", ["null_count", "nan_count"])).collect())
[('a', 1, 0), ('b', 0, 1)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from nanstats.arrow import record_schema
from nanstats.core.records import COLUMN, STATS_FIELDS, Field, StatsColumns, select, stats_columns
from nanstats.core.stats import ColumnStats, summary
from nanstats.spark.summary import _float_columns, spark_schema

#: The fields a pandas UDF can compute, by name.
FIELDS: dict[str, Field] = {f.name: f for f in select("count", "value", "bits")}
# The table of summary_in_pandas after the group columns, as nanstats.spark.summary's.
_OUTPUT_FIELDS = (COLUMN, *STATS_FIELDS)


def _stats(values: pd.Series, is_null: pd.Series) -> ColumnStats:
    data = values.to_numpy(dtype=values.dtype, copy=False)
    return summary(np.ascontiguousarray(data), ~is_null.to_numpy(dtype=bool))


def _field_aggregate(name: str) -> Any:
    field = FIELDS[name]

    def aggregate(values: pd.Series, is_null: pd.Series) -> Any:
        # Bits travel as signed longs (Spark has no unsigned type).
        record = stats_columns([_stats(values, is_null)])
        return record.to_pylists([field], signed_bits=True)[name][0]

    return aggregate


def summary_udf(field: str) -> Any:
    """The grouped-aggregate pandas UDF of one statistic: ``(values, is_null) -> scalar``.

    Pass the column and ``column.isNull()`` (Spark hands pandas UDFs nulls
    as NaN; the second argument tells them apart).  :func:`summary_columns`
    builds these for several fields at once.

    >>> import pyarrow as pa
    >>> from pyspark.sql import functions as F
    >>> from nanstats.spark.session import local_session
    >>> t = pa.table({"k": ["a", "a", "b"], "x": [-0.0, float("nan"), None]})
    >>> nan_count = summary_udf("nan_count")
    >>> df = local_session().createDataFrame(t)
    >>> df.groupBy("k").agg(nan_count("x", F.col("x").isNull()).alias("nans")).orderBy("k").collect()
    [Row(k='a', nans=1), Row(k='b', nans=0)]
    """
    from pyspark.sql.functions import pandas_udf  # type: ignore[attr-defined]
    from pyspark.sql.pandas.types import from_arrow_type

    if field not in FIELDS:
        raise ValueError(f"unknown field {field!r}; fields: {', '.join(FIELDS)}")
    arrow_type = record_schema([FIELDS[field]], signed_bits=True).field(0).type
    return pandas_udf(_field_aggregate(field), from_arrow_type(arrow_type))


def summary_columns(column: str, fields: Sequence[str] | None = None) -> list[Any]:
    """Aggregate expressions (``<column>_<field>``) for ``groupBy().agg``.

    >>> import pyarrow as pa
    >>> from nanstats.spark.session import local_session
    >>> t = pa.table({"k": ["a", "a", "b"], "x": [1.0, float("nan"), None]})
    >>> df = local_session().createDataFrame(t)
    >>> out = df.groupBy("k").agg(*summary_columns("x", ["nan_count", "null_count"]))
    >>> out.orderBy("k").collect()
    [Row(k='a', x_nan_count=1, x_null_count=0), Row(k='b', x_nan_count=0, x_null_count=1)]
    """
    from pyspark.sql import functions as F

    out = []
    for name in fields or list(FIELDS):
        if name not in FIELDS:
            raise ValueError(f"unknown field {name!r}; fields: {', '.join(FIELDS)}")

        udf = summary_udf(name)
        out.append(udf(F.col(column), F.col(column).isNull()).alias(f"{column}_{name}"))
    return out


def _typed_frame(records: StatsColumns, keys: dict[str, list[Any]]) -> pd.DataFrame:
    """Records as a DataFrame whose columns keep exact longs and NaN-vs-null floats.

    A plain DataFrame would turn a long column with a null into float64
    (losing the low bits of a bit pattern) and a NaN into a null on the way
    to Spark; masked arrays built from explicit masks keep both.
    """
    out: dict[str, Any] = {**keys, COLUMN.name: records[COLUMN.name].tolist()}
    no_bounds = ~records.has_bounds
    for f in STATS_FIELDS:
        data = records.column(f, signed_bits=True)
        mask = no_bounds if f.bounded else np.zeros(len(records), dtype=bool)
        if f.kind in ("count", "bits"):
            out[f.name] = pd.arrays.IntegerArray(data, mask)
        elif f.kind == "value":
            out[f.name] = pd.arrays.FloatingArray(data, mask)
        else:
            out[f.name] = data.tolist()
    return pd.DataFrame(out)


def summary_in_pandas(df: Any, columns: Sequence[str] | None = None,
                      by: str | Sequence[str] | None = None) -> Any:
    """The table of :func:`nanstats.spark.summary`, computed with applyInPandas.

    >>> import pyarrow as pa
    >>> from nanstats.spark.session import local_session
    >>> t = pa.table({"k": ["a", "a", "b"], "x": [1.0, float("nan"), -0.0]})
    >>> df = local_session().createDataFrame(t)
    >>> rows = summary_in_pandas(df, by="k").orderBy("k").collect()
    >>> [(r.k, r.nan_count, r.min, r.max) for r in rows]
    [('a', 1, 1.0, 1.0), ('b', 0, -0.0, -0.0)]
    """
    from pyspark.sql import functions as F

    by_list = [by] if isinstance(by, str) else list(by or [])
    cols = _float_columns(df, columns)
    # The group columns in the frame's order (nanstats.spark.summary uses the order of `by`).
    in_frame_order = [f.name for f in df.schema.fields if f.name in by_list]
    schema = spark_schema(df, in_frame_order, record_schema(_OUTPUT_FIELDS, signed_bits=True))
    flags = [F.col(c).isNull().alias(f"__null_{c}") for c, _ in cols]
    selected = df.select(*by_list, *(c for c, _ in cols), *flags)
    if not by_list:
        selected = selected.withColumn("__all", F.lit(0))

    def per_group(pdf: pd.DataFrame) -> pd.DataFrame:
        stats = [_stats(pdf[c], pdf[f"__null_{c}"]) for c, _ in cols]
        records = stats_columns(stats).with_columns(
            column=np.array([c for c, _ in cols], dtype=object))
        keys = {k: [pdf[k].iloc[0]] * len(cols) for k in by_list}
        return _typed_frame(records, keys)

    grouped = selected.groupBy(*(by_list or ["__all"]))
    return grouped.applyInPandas(per_group, schema)
