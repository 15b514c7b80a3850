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

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from nanstats.core.floats import FloatType
from nanstats.core.stats import ColumnStats, summary

_COUNT_FIELDS = ["num_values", "null_count", "nan_count", "pos_nan_count", "neg_nan_count"]
ARROW_FLOAT_TYPES = {"halffloat": pa.float16(), "float": pa.float32(), "double": pa.float64()}
FUNCTION_NAMES = {
    "double": "nanstats_summary",
    "float": "nanstats_summary_float",
    "halffloat": "nanstats_summary_halffloat",
}


def summary_type(value_type: pa.DataType) -> pa.StructType:
    """The struct type the aggregate returns for a float type.

    >>> summary_type(pa.float32()).field("min").type
    DataType(float)
    """
    return pa.struct([*(pa.field(n, pa.int64()) for n in _COUNT_FIELDS),
                      pa.field("min", value_type), pa.field("max", value_type)])


def _bits_array(ft: FloatType, value_type: pa.DataType, bits: list[int | None]) -> pa.Array:
    """A float array holding exactly these bit patterns (None = null)."""
    raw = np.array([0 if b is None else b for b in bits], dtype=ft.bits_dtype)
    valid = np.array([b is not None for b in bits], dtype=bool)
    validity = None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(value_type, len(bits), [validity, pa.py_buffer(raw.tobytes())])


def stats_struct_array(stats: list[ColumnStats], value_type: pa.DataType) -> pa.StructArray:
    """ColumnStats as a struct array (min/max bit-exact in ``value_type``).

    >>> import nanstats
    >>> stats = [nanstats.summary(pa.array([1.0, None])), nanstats.summary(pa.array([-0.0]))]
    >>> [(s["null_count"], s["min"]) for s in stats_struct_array(stats, pa.float64()).to_pylist()]
    [(1, 1.0), (0, -0.0)]
    """
    counts = [pa.array([getattr(s, n) for s in stats], pa.int64()) for n in _COUNT_FIELDS]
    ft = stats[0].float_type if stats else None
    if ft is None:
        mins = maxs = pa.array([], value_type)
    else:
        mins = _bits_array(ft, value_type, [s.min_bits for s in stats])
        maxs = _bits_array(ft, value_type, [s.max_bits for s in stats])
    return pa.StructArray.from_arrays([*counts, mins, maxs],
                                      fields=list(summary_type(value_type)))


def summary_table(table: pa.Table) -> pa.Table:
    """One row per float column of a table (other columns are skipped).

    min/max are given as float64 (exact for every float type, NaN sign kept)
    and, bit for bit, as ``min_bits``/``max_bits`` of the column's own width.

    >>> t = pa.table({"x": [1.0, float("nan"), None], "s": ["a", "b", "c"]})
    >>> summary_table(t).to_pylist()[0]["nan_count"]
    1
    """
    rows: dict[str, list[Any]] = {k: [] for k in ["column", "physical_type", *_COUNT_FIELDS,
                                                  "min", "max", "min_bits", "max_bits"]}
    for name, column in zip(table.column_names, table.columns, strict=True):
        if str(column.type) not in ARROW_FLOAT_TYPES:
            continue
        s = summary(column)
        rows["column"].append(name)
        rows["physical_type"].append(s.physical_type)
        for n in _COUNT_FIELDS:
            rows[n].append(getattr(s, n))
        rows["min"].append(s.min)
        rows["max"].append(s.max)
        rows["min_bits"].append(s.min_bits)
        rows["max_bits"].append(s.max_bits)
    schema = pa.schema([("column", pa.string()), ("physical_type", pa.string()),
                        *((n, pa.int64()) for n in _COUNT_FIELDS),
                        ("min", pa.float64()), ("max", pa.float64()),
                        ("min_bits", pa.uint64()), ("max_bits", pa.uint64())])
    return pa.table(rows, schema=schema)


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
