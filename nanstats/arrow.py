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

from collections.abc import Iterator, Sequence
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
from nanstats.core.stats import ColumnStats, page_table, summary
from nanstats.core.table import StatsTable, empty_table, merge_into

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


def _float_columns(schema: pa.Schema, columns: Sequence[str] | None,
                   by: Sequence[str]) -> list[str]:
    """The float columns to describe: ``columns``, checked, or every float one not in ``by``."""
    names = schema.names
    for key in by:
        if key not in names:
            raise ValueError(f"no group column {key!r} in the data (it has {', '.join(names)})")
    if columns is None:
        return [f.name for f in schema if str(f.type) in ARROW_FLOAT_TYPES and f.name not in by]
    for name in columns:
        if name not in names:
            raise ValueError(f"no column {name!r} in the data (it has {', '.join(names)})")
        kind = schema.field(name).type
        if str(kind) not in ARROW_FLOAT_TYPES:
            raise TypeError(f"column {name!r} is {kind}, not halffloat, float or double")
    return list(columns)


def _key_runs(table: pa.Table, by: Sequence[str]) -> np.ndarray:
    """Start rows of the runs of equal group keys of a table sorted by them.

    Nulls equal nulls and NaNs equal NaNs, as in SQL's GROUP BY.
    """
    n = table.num_rows
    change = np.zeros(n, dtype=bool)
    if n:
        change[0] = True
    for name in by:
        col = table.column(name).combine_chunks()
        a, b = col.slice(0, n - 1), col.slice(1)
        differ = pc.fill_null(pc.not_equal(a, b), True)
        same_null = pc.and_(pc.is_null(a), pc.is_null(b))
        same = same_null
        if pa.types.is_floating(col.type):
            same = pc.or_(same, pc.fill_null(pc.and_(pc.is_nan(a), pc.is_nan(b)), False))
        change[1:] |= np.asarray(pc.and_not(differ, same), dtype=bool)
    return np.flatnonzero(change).astype(np.int64)


# Arrow cannot sort the view types (polars exports its strings as string_view).
_SORTABLE = {pa.string_view(): pa.large_string(), pa.binary_view(): pa.large_binary()}


def _sortable(table: pa.Table, by: Sequence[str]) -> pa.Table:
    """``table`` with group columns of a view type cast to the plain type of their values."""
    for k in by:
        kind = table.schema.field(k).type
        if kind in _SORTABLE:
            table = table.set_column(table.schema.get_field_index(k), k,
                                     table.column(k).cast(_SORTABLE[kind]))
    return table


def _group_key(row: tuple[Any, ...]) -> tuple[Any, ...]:
    # NaN keys are one group (a NaN is not equal to itself as a dict key).
    return tuple(("NaN",) if isinstance(v, float) and v != v else v for v in row)


class _Groups:
    """The groups seen so far: a global id per distinct key, first key values kept."""

    def __init__(self, by: Sequence[str]) -> None:
        self.by = list(by)
        self.ids: dict[tuple[Any, ...], int] = {}
        self.keys: list[tuple[Any, ...]] = []

    def ids_of(self, keys: pa.Table) -> np.ndarray:
        """The global id of each row of ``keys`` (new groups get the next ids)."""
        out = np.empty(keys.num_rows, dtype=np.intp)
        rows = zip(*(keys.column(k).to_pylist() for k in self.by), strict=True)
        for i, row in enumerate(rows):
            key = _group_key(row)
            gid = self.ids.get(key)
            if gid is None:
                gid = self.ids[key] = len(self.keys)
                self.keys.append(row)
            out[i] = gid
        return out


def _grow(table: StatsTable, n: int) -> StatsTable:
    """``table`` with empty rows added up to ``n`` rows."""
    if len(table) >= n:
        return table
    extra = empty_table(table.float_type, n - len(table))
    return StatsTable(table.float_type, np.concatenate([table.counts, extra.counts]),
                      np.concatenate([table.keys, extra.keys]))


def summary_table(data: Any, columns: Sequence[str] | None = None,
                  by: str | Sequence[str] | None = None) -> pa.Table:
    """Statistics of the float columns of any Arrow data, per group, in bounded memory.

    ``data`` is anything that exposes the Arrow C stream interface
    (``__arrow_c_stream__``): a pyarrow ``Table``, ``RecordBatch`` or
    ``RecordBatchReader``, a polars ``DataFrame``, a DuckDB relation, ...
    It is read one record batch at a time; each batch's statistics (per group
    when ``by`` is given) are merged exactly into running totals
    (:func:`nanstats.core.table.merge_into`), so memory grows with the number
    of groups, not of rows.

    The columns are those of :func:`nanstats.spark.summary`: the group
    columns, ``column``, ``physical_type``, the counts, ``min``/``max`` as
    float64 (exact for every float type, NaN sign kept; the NaN extremes when
    every non-null value is NaN; null when every value is null) and
    ``min_bits``/``max_bits``, the bounds bit for bit in the column's own
    width (uint64).  One row per group and column, groups sorted by key.

    Parameters
    ----------
    data : an Arrow C stream producer
    columns : the float columns to describe (default: every float column not in ``by``).
    by : group column(s), or None for the whole data.

    Examples
    --------
    >>> t = pa.table({"k": ["a", "b", "a"], "x": [1.0, float("nan"), -0.0],
    ...               "s": ["u", "v", "w"]})
    >>> summary_table(t).select(["column", "nan_count", "min", "max"]).to_pylist()
    [{'column': 'x', 'nan_count': 1, 'min': -0.0, 'max': 1.0}]
    >>> out = summary_table(t, by="k")
    >>> [(r["k"], r["nan_count"], r["min"]) for r in out.to_pylist()]
    [('a', 0, -0.0), ('b', 1, nan)]
    >>> import polars as pl
    >>> summary_table(pl.DataFrame({"y": [2.5, None]}))["null_count"].to_pylist()
    [1]
    """
    by_list = [by] if isinstance(by, str) else list(by or [])
    reader = data if isinstance(data, (pa.Table, pa.RecordBatch, pa.RecordBatchReader)) \
        else None
    if reader is None:
        if not hasattr(data, "__arrow_c_stream__"):
            raise TypeError(
                f"summary_table needs an Arrow C stream producer (__arrow_c_stream__: a "
                f"pyarrow Table or RecordBatchReader, a polars DataFrame, a DuckDB "
                f"relation), not {type(data).__name__}")
        reader = pa.RecordBatchReader.from_stream(data)
    schema = reader.schema
    names = _float_columns(schema, columns, by_list)
    batches: Iterator[pa.RecordBatch] = (
        iter(reader.to_batches()) if isinstance(reader, pa.Table)
        else iter([reader]) if isinstance(reader, pa.RecordBatch) else iter(reader))
    types = {n: BY_ARROW_NAME[str(schema.field(n).type)] for n in names}
    groups = _Groups(by_list)
    totals = {n: empty_table(types[n], 0 if by_list else 1) for n in names}
    for batch in batches:
        if batch.num_rows == 0:
            continue
        table = pa.Table.from_batches([batch]).select([*by_list, *names])
        if by_list:
            table = _sortable(table, by_list).sort_by([(k, "ascending") for k in by_list])
            starts = _key_runs(table, by_list)
            ids = groups.ids_of(table.select(by_list).take(pa.array(starts)))
        else:
            starts, ids = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.intp)
        for n in names:
            part = page_table(table.column(n), page_starts=starts)
            totals[n] = _grow(totals[n], len(groups.keys) if by_list else 1)
            merge_into(totals[n], ids, part)
    return _summary_records(schema, by_list, names, groups, totals)


def _summary_records(schema: pa.Schema, by: list[str], names: list[str], groups: _Groups,
                     totals: dict[str, StatsTable]) -> pa.Table:
    """The summary's rows: groups sorted by key, then the columns in their order."""
    fields = (COLUMN, *STATS_FIELDS)
    out_schema = pa.schema([*(schema.field(k).with_nullable(True) for k in by),
                            *record_schema(fields)])
    if not names:
        return out_schema.empty_table()
    n_groups = len(groups.keys) if by else 1
    order = np.arange(n_groups)
    if by:
        key_table = _sortable(pa.table({k: pa.array([row[i] for row in groups.keys],
                                                    schema.field(k).type)
                                        for i, k in enumerate(by)}), by)
        order = np.asarray(pc.sort_indices(key_table, [(k, "ascending") for k in by]),
                           dtype=np.int64)
    records = [stats_columns(_grow(totals[name], n_groups)).with_columns(
        column=np.full(n_groups, name, dtype=object)) for name in names]
    per_column = [record_arrays(r, fields) for r in records]
    # Row r of the output: group order[r // m], column r % m of the m described.
    m = len(names)
    take = pa.array((np.arange(m)[None, :] * n_groups + order[:, None]).ravel())
    arrays = [pa.concat_arrays([cols[f] for cols in per_column]).take(take)
              for f in range(len(fields))]
    keys = [pa.array([groups.keys[g][i] for g in order for _ in range(m)],
                     schema.field(k).type) for i, k in enumerate(by)]
    return pa.Table.from_arrays([*keys, *arrays], schema=out_schema)


def group_by(table: pa.Table, keys: str | Sequence[str],
             columns: Sequence[str] | None = None) -> pa.Table:
    """``table.group_by(keys)`` with the nanstats aggregate of each float column.

    Picks the compute function of each column's type (``nanstats_summary``,
    ``nanstats_summary_float`` or ``nanstats_summary_halffloat``: Arrow allows
    one signature per function name) and names every output struct column
    ``<column>_nanstats_summary`` whatever the type.  The whole table is in
    memory; for a stream, :func:`summary_table` with ``by`` merges batch by
    batch.

    >>> t = pa.table({"k": ["a", "a", "b"],
    ...               "f": pa.array([1.0, float("nan"), 2.0], pa.float32())})
    >>> out = group_by(t, "k")
    >>> out.column_names
    ['k', 'f_nanstats_summary']
    >>> [s["nan_count"] for s in out["f_nanstats_summary"].to_pylist()]
    [1, 0]
    """
    key_list = [keys] if isinstance(keys, str) else list(keys)
    names = _float_columns(table.schema, columns, key_list)
    aggregates = [(n, FUNCTION_NAMES[str(table.schema.field(n).type)]) for n in names]
    if table.num_rows == 0:  # Arrow does not call an aggregate UDF on no rows
        fields = [*(table.schema.field(k) for k in key_list),
                  *(pa.field(f"{n}_nanstats_summary",
                             summary_type(table.schema.field(n).type)) for n in names)]
        return pa.schema(fields).empty_table()
    out = table.group_by(key_list).aggregate(aggregates)
    renames = {f"{n}_{fn}": f"{n}_nanstats_summary" for n, fn in aggregates}
    return out.rename_columns([renames.get(c, c) for c in out.column_names])


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
