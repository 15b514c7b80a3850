"""What a reader may conclude from statistics: SPEC.md section 4, as abstractions.

Each function turns one scope's statistics into a :class:`ColumnAbstract`,
applying the reading rules of the column order:

- ``nan_count`` missing: NaN may be present, of either sign;
- ``nan_count + null_count == num_values``: every non-null value is NaN;
- TYPE_ORDER (and files with no column orders): a NaN bound is ignored,
  a minimum of +0.0 may hide -0.0 and a maximum of -0.0 may hide +0.0;
- IEEE_754_TOTAL_ORDER: bounds are exact in totalOrder, and NaN bounds mark
  a scope whose non-null values are all NaN (their signs told by the bounds);
- an unknown column order: min/max are ignored, counts still count.

Our own :class:`~nanstats.core.stats.ColumnStats` knows more: the NaN signs.

>>> import numpy as np, nanstats
>>> from_column_stats(nanstats.summary(np.array([1.0, -np.nan, 2.0])))
ColumnAbstract(float: [1.0, 2.0], value, -nan)
>>> from nanstats.core.floats import DOUBLE
>>> plain = DOUBLE.bits_to_plain([0x0000000000000000, 0x4000000000000000])
>>> from_float_bounds(DOUBLE, "type_order", plain[0], plain[1], null_count=0, nan_count=None,
...                   num_values=10)
ColumnAbstract(float: [-0.0, 2.0], value, +nan, -nan)
"""

from __future__ import annotations

from typing import Any

from nanstats.core.floats import FloatType
from nanstats.core.stats import ColumnStats
from nanstats.metadata.footer import ColumnOrderKind, LeafColumn
from nanstats.metadata.thrift import pq
from nanstats.prune.abstract import ColumnAbstract, ValueKind

# Converted types (parquet.thrift ConvertedType) that keep plain integer order.
_UTF8 = 0
_SIGNED_INTS = {15, 16, 17, 18}  # INT_8 .. INT_64
_UNSIGNED_INTS = {11, 12, 13, 14}  # UINT_8 .. UINT_64


def from_column_stats(stats: ColumnStats) -> ColumnAbstract:
    """The abstraction of exact statistics (NaN signs known)."""
    ft = stats.float_type
    has_values = stats.value_count > 0
    lo = ft.bits_to_float(stats.value_min_bits) if stats.value_min_bits is not None else None
    hi = ft.bits_to_float(stats.value_max_bits) if stats.value_max_bits is not None else None
    return ColumnAbstract("float", lo, hi, has_values, stats.null_count > 0,
                          stats.pos_nan_count > 0, stats.neg_nan_count > 0)


def _counts(null_count: int | None, nan_count: int | None,
            num_values: int | None) -> tuple[bool, bool, bool]:
    """(may_null, may_nan, may_value) from counts that may be missing."""
    may_null = null_count is None or null_count > 0
    may_nan = nan_count is None or nan_count > 0
    if num_values is None or null_count is None or nan_count is None:
        may_value = True
    else:
        may_value = num_values - null_count - nan_count > 0
    if num_values is not None and null_count is not None and null_count >= num_values:
        may_nan = may_value = False  # all null (or an empty scope)
    return may_null, may_nan, may_value


def from_float_bounds(ft: FloatType, order: ColumnOrderKind, min_value: bytes | None,
                      max_value: bytes | None, *, null_count: int | None,
                      nan_count: int | None, num_values: int | None) -> ColumnAbstract:
    """A float scope from its PLAIN bounds and counts, read under its column order."""
    may_null, may_nan, may_value = _counts(null_count, nan_count, num_values)
    lo = hi = None
    usable = (order in ("ieee754", "type_order", "undefined") and min_value is not None
              and max_value is not None and len(min_value) == ft.nbytes
              and len(max_value) == ft.nbytes)
    if usable:
        lo_bits, hi_bits = ft.plain_to_bits(min_value), ft.plain_to_bits(max_value)  # type: ignore[arg-type]
        lo_nan, hi_nan = ft.is_nan_bits(lo_bits), ft.is_nan_bits(hi_bits)
        if order == "ieee754":
            if lo_nan and hi_nan:
                # Every non-null value is NaN; the bounds' signs say which.
                return ColumnAbstract("float", None, None, False, may_null,
                                      not hi_bits & ft.sign_mask or not lo_bits & ft.sign_mask,
                                      bool(lo_bits & ft.sign_mask))
            if not lo_nan and not hi_nan:
                lo, hi = ft.bits_to_float(lo_bits), ft.bits_to_float(hi_bits)
            # One NaN bound and one number breaks the rules: ignore both.
        elif not lo_nan and not hi_nan:
            lo, hi = ft.bits_to_float(lo_bits), ft.bits_to_float(hi_bits)
            # A zero bound may hide the other zero.
            if lo == 0.0:
                lo = -0.0
            if hi == 0.0:
                hi = 0.0
    if not may_value:
        lo = hi = None
    return ColumnAbstract("float", lo, hi, may_value, may_null, may_nan, may_nan)


def leaf_kind(footer: Any, leaf: LeafColumn) -> ValueKind:
    """How a leaf's bounds compare: 'float', 'int', 'bytes' or 'any' (not used)."""
    if leaf.float_type is not None:
        return "float"
    el = footer.metadata.schema[leaf.schema_index]
    logical, converted = el.logicalType, el.converted_type
    if leaf.physical_type in (pq.TYPE_INT32, pq.TYPE_INT64):
        if logical is not None and logical.INTEGER is None:
            return "any"
        if converted is not None and converted not in _SIGNED_INTS | _UNSIGNED_INTS:
            return "any"
        return "int"
    if leaf.physical_type == pq.TYPE_BYTE_ARRAY:
        if (logical is not None and logical.STRING is not None) or converted == _UTF8:
            return "bytes"
    return "any"


def _is_unsigned(footer: Any, leaf: LeafColumn) -> bool:
    el = footer.metadata.schema[leaf.schema_index]
    if el.logicalType is not None and el.logicalType.INTEGER is not None:
        return el.logicalType.INTEGER.isSigned is False
    return el.converted_type in _UNSIGNED_INTS


def from_bounds(footer: Any, leaf: LeafColumn, order: ColumnOrderKind,
                min_value: bytes | None, max_value: bytes | None, *,
                null_count: int | None, nan_count: int | None,
                num_values: int | None) -> ColumnAbstract:
    """Any supported leaf's scope from PLAIN bounds and counts."""
    if leaf.float_type is not None:
        return from_float_bounds(leaf.float_type, order, min_value, max_value,
                                 null_count=null_count, nan_count=nan_count,
                                 num_values=num_values)
    kind = leaf_kind(footer, leaf)
    may_null, _, may_value = _counts(null_count, 0, num_values)
    lo: Any = None
    hi: Any = None
    if order in ("type_order", "undefined") and min_value is not None and max_value is not None:
        if kind == "int":
            width = 4 if leaf.physical_type == pq.TYPE_INT32 else 8
            if len(min_value) == width and len(max_value) == width:
                signed = not _is_unsigned(footer, leaf)
                lo = int.from_bytes(min_value, "little", signed=signed)
                hi = int.from_bytes(max_value, "little", signed=signed)
        elif kind == "bytes":
            lo, hi = bytes(min_value), bytes(max_value)
    if not may_value:
        lo = hi = None
    return ColumnAbstract(kind, lo, hi, may_value, may_null, False, False)


def chunk_abstract(footer: Any, row_group: int, leaf: LeafColumn) -> ColumnAbstract:
    """A column chunk from its footer Statistics."""
    kind = leaf_kind(footer, leaf)
    md = footer.chunk(row_group, leaf.index).meta_data
    if md is None:
        return ColumnAbstract.anything(kind)
    st = md.statistics
    if st is None:
        return ColumnAbstract.anything(kind)
    order = footer.column_order(leaf.index)
    lo, hi = st.min_value, st.max_value
    # The deprecated fields sort floats and signed integers as numbers; bytes and
    # FLOAT16 they sort by signed bytes, which is no order we can use.
    legacy_ok = leaf.physical_type in (pq.TYPE_FLOAT, pq.TYPE_DOUBLE, pq.TYPE_INT32,
                                       pq.TYPE_INT64) and not _is_unsigned(footer, leaf)
    if (lo is None or hi is None) and order in ("type_order", "undefined") and legacy_ok:
        lo, hi = st.min, st.max
    nulls = st.null_count
    if nulls is not None and nulls < 0:
        nulls = None
    nans = st.nan_count if leaf.float_type is not None else 0
    if nans is not None and nans < 0:
        nans = None
    # num_values counts leaf values; for flat and struct leaves, one per row.
    num = md.num_values if leaf.max_repetition_level == 0 else None
    return from_bounds(footer, leaf, order, lo, hi, null_count=nulls, nan_count=nans,
                       num_values=num)


def page_abstracts(footer: Any, leaf: LeafColumn, column_index: Any,
                   page_rows: list[int]) -> list[ColumnAbstract]:
    """Each page of a chunk from its ColumnIndex entry; ``page_rows`` from the OffsetIndex."""
    kind = leaf_kind(footer, leaf)
    order = footer.column_order(leaf.index)
    ci = column_index
    out = []
    for i, rows in enumerate(page_rows):
        if ci.null_pages[i]:
            out.append(ColumnAbstract.only_null(kind) if rows else
                       ColumnAbstract(kind, None, None, False, False, False, False))
            continue
        nulls = ci.null_counts[i] if ci.null_counts is not None else None
        nans = (ci.nan_counts[i] if ci.nan_counts is not None else None) \
            if leaf.float_type is not None else 0
        out.append(from_bounds(footer, leaf, order, ci.min_values[i], ci.max_values[i],
                               null_count=None if nulls is not None and nulls < 0 else nulls,
                               nan_count=None if nans is not None and nans < 0 else nans,
                               num_values=rows))
    return out
