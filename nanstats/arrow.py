"""nanstats for Arrow users: a summary table and Arrow compute functions.

``import nanstats`` registers, when pyarrow is installed, three aggregate
functions, one per float type (Arrow user-defined functions have one kernel
per name): ``nanstats_summary`` (double), ``nanstats_summary_float`` and
``nanstats_summary_halffloat``.  Each returns a struct of num_values,
null_count, nan_count, pos_nan_count, neg_nan_count, min and max (the last two
of the input's type, bit for bit).  They work in ``pc.call_function`` and in
``Table.group_by(...).aggregate(...)``.  Arrow's UDF machinery gathers every
row of a group into one array before calling us, so on large groups the
direct call :func:`nanstats.summary` is cheaper (benchmarks/compare.py
measures the difference).  Arrow does not call an aggregate UDF on an empty
array (it raises ``ArrowInvalid: Finalized is called with empty inputs``);
:func:`nanstats.summary` handles empty input.

>>> import pyarrow as pa, pyarrow.compute as pc
>>> import nanstats
>>> pc.call_function("nanstats_summary", [pa.array([2.0, None, float("nan")])])
<pyarrow.StructScalar: [('num_values', 3), ('null_count', 1), ('nan_count', 1), ('pos_nan_count', 1), ('neg_nan_count', 0), ('min', 2.0), ('max', 2.0)]>
>>> t = pa.table({"k": ["a", "a", "b"], "v": [1.0, -0.0, float("nan")]})
>>> t.group_by("k").aggregate([("v", "nanstats_summary")])["v_nanstats_summary"][1]["nan_count"]
<pyarrow.Int64Scalar: 1>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from nanstats.core.floats import BY_ARROW_NAME, FLOAT_TYPES
from nanstats.core.records import (
    COLUMN,
    STATS_FIELDS,
    Field,
    StatsColumns,
    select,
    stats_columns,
)
from nanstats.core.stats import ColumnStats, summary

#: The Arrow float types by name (``str(type)``).
ARROW_FLOAT_TYPES = {ft.arrow_name: pa.from_numpy_dtype(ft.float_dtype) for ft in FLOAT_TYPES}
FUNCTION_NAMES = {
    "double": "nanstats_summary",
    "float": "nanstats_summary_float",
    "halffloat": "nanstats_summary_halffloat",
}
_FLOAT64 = pa.float64()
# The fields of the aggregate's struct: counts and bounds in the input's type.
_AGGREGATE_FIELDS = select("count", "value")


def _arrow_type(field: Field, value_type: pa.DataType, signed_bits: bool) -> pa.DataType:
    if field.kind in ("label", "physical_type"):
        return pa.string()
    if field.kind == "value":
        return value_type
    if field.kind == "bits":
        return pa.int64() if signed_bits else pa.uint64()
    return pa.from_numpy_dtype(field.dtype)


def record_schema(fields: Sequence[Field] = STATS_FIELDS, *,
                  value_type: pa.DataType = _FLOAT64, signed_bits: bool = False) -> pa.Schema:
    """The Arrow schema of statistics records (see :mod:`nanstats.core.records`).

    Bounds are of ``value_type`` (float64 holds every float type exactly);
    bit patterns are uint64, or int64 (two's complement) with ``signed_bits``
    for engines with no unsigned type (Spark).

    >>> record_schema(select("count", "bits"), signed_bits=True).field("max_bits").type
    DataType(int64)
    """
    return pa.schema([pa.field(f.name, _arrow_type(f, value_type, signed_bits))
                      for f in fields])


def record_arrays(columns: StatsColumns, fields: Sequence[Field] = STATS_FIELDS, *,
                  value_type: pa.DataType = _FLOAT64,
                  signed_bits: bool = False) -> list[pa.Array]:
    """One Arrow array per field, typed as :func:`~nanstats.arrow.record_schema` says.

    Bounds are null for a scope with no non-null value; in a ``value_type``
    narrower than float64 they are the exact bit patterns of the scope's own type.

    >>> import nanstats
    >>> cols = stats_columns([nanstats.summary(pa.array([None], pa.float32()))])
    >>> [a.to_pylist() for a in record_arrays(cols, select("count", "bits"))][-2:]
    [[None], [None]]
    """
    mask = None if columns.has_bounds.all() else ~columns.has_bounds
    out = []
    for f in fields:
        arrow_type = _arrow_type(f, value_type, signed_bits)
        if f.kind == "value" and arrow_type != _FLOAT64:
            out.append(_native_bounds(columns, f, arrow_type, mask))
            continue
        data = columns.column(f, signed_bits=signed_bits)
        out.append(pa.array(data, arrow_type, mask=mask if f.bounded else None))
    return out


def _native_bounds(columns: StatsColumns, field: Field, value_type: pa.DataType,
                   mask: np.ndarray | None) -> pa.Array:
    """Bounds in a float type of their own width, from their bits (NaN payloads kept)."""
    ft = BY_ARROW_NAME[str(value_type)]
    if (columns["physical_type"] != ft.physical_type).any():
        raise ValueError(f"statistics of another physical type than {ft.physical_type} "
                         f"cannot be given as {value_type}")
    raw = columns[f"{field.name}_bits"].astype(ft.bits_dtype)
    validity = None if mask is None else pa.py_buffer(np.packbits(~mask, bitorder="little"))
    return pa.Array.from_buffers(value_type, len(raw), [validity, pa.py_buffer(raw.tobytes())])


def summary_type(value_type: pa.DataType) -> pa.StructType:
    """The struct type the aggregate returns for a float type.

    >>> summary_type(pa.float32()).field("min").type
    DataType(float)
    """
    return pa.struct(list(record_schema(_AGGREGATE_FIELDS, value_type=value_type)))


def stats_struct_array(stats: list[ColumnStats], value_type: pa.DataType) -> pa.StructArray:
    """ColumnStats as a struct array (min/max bit-exact in ``value_type``).

    >>> import nanstats
    >>> stats = [nanstats.summary(pa.array([1.0, None])), nanstats.summary(pa.array([-0.0]))]
    >>> [(s["null_count"], s["min"]) for s in stats_struct_array(stats, pa.float64()).to_pylist()]
    [(1, 1.0), (0, -0.0)]
    """
    arrays = record_arrays(stats_columns(stats), _AGGREGATE_FIELDS, value_type=value_type)
    return pa.StructArray.from_arrays(arrays, fields=list(summary_type(value_type)))


def summary_table(table: pa.Table) -> pa.Table:
    """One row per float column of a table (other columns are skipped).

    min/max are given as float64 (exact for every float type, NaN sign kept)
    and, bit for bit, as ``min_bits``/``max_bits`` of the column's own width.

    >>> t = pa.table({"x": [1.0, float("nan"), None], "s": ["a", "b", "c"]})
    >>> summary_table(t).to_pylist()[0]["nan_count"]
    1
    """
    floats = [(name, column) for name, column in zip(table.column_names, table.columns,
                                                     strict=True)
              if str(column.type) in ARROW_FLOAT_TYPES]
    columns = stats_columns([summary(column) for _, column in floats])
    columns = columns.with_columns(column=np.array([name for name, _ in floats], dtype=object))
    fields = (COLUMN, *STATS_FIELDS)
    return pa.Table.from_arrays(record_arrays(columns, fields), schema=record_schema(fields))


def _make_udf(value_type: pa.DataType) -> Any:
    out_type = summary_type(value_type)

    def nanstats_summary(ctx: Any, values: pa.Array) -> pa.StructScalar:
        return stats_struct_array([summary(values)], value_type)[0].cast(out_type)

    return nanstats_summary


def register_compute_functions() -> None:
    """Register the aggregates with Arrow compute (idempotent).

    ``import nanstats`` calls it when pyarrow is installed.  One function per
    float type (``FUNCTION_NAMES``): ``nanstats_summary`` for double,
    ``nanstats_summary_float`` and ``nanstats_summary_halffloat``.

    >>> register_compute_functions()
    >>> f32 = pa.array([2.0, float("nan")], pa.float32())
    >>> pc.call_function("nanstats_summary_float", [f32])["nan_count"]
    <pyarrow.Int64Scalar: 1>
    """
    registry = set(pc.list_functions())
    for arrow_name, function_name in FUNCTION_NAMES.items():
        if function_name in registry:
            continue
        value_type = ARROW_FLOAT_TYPES[arrow_name]
        pc.register_aggregate_function(
            _make_udf(value_type),
            function_name,
            {"summary": f"nanstats statistics of a {arrow_name} array",
             "description": "Counts of values, nulls and NaNs by sign, and IEEE 754 "
                            "total-order min/max of the non-NaN values (the NaN extremes "
                            "when every non-null value is NaN)."},
            {"values": value_type},
            summary_type(value_type),
        )
