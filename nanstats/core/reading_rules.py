"""What a reader may conclude from statistics: SPEC.md section 4, as abstractions.

Each function turns one scope's statistics into a
:class:`~nanstats.core.abstraction.ColumnAbstract`, applying the reading
rules of the column order:

- ``nan_count`` missing: NaN may be present, of either sign;
- ``nan_count + null_count == num_values``: every non-null value is NaN;
- TYPE_ORDER (and files with no column orders): a NaN bound is ignored,
  a minimum of +0.0 may hide -0.0 and a maximum of -0.0 may hide +0.0;
- IEEE_754_TOTAL_ORDER: bounds are exact in totalOrder, and NaN bounds mark
  a scope whose non-null values are all NaN (their signs told by the bounds);
- an unknown column order: min/max are ignored, counts still count.

Our own :class:`~nanstats.core.stats.ColumnStats` knows more: the NaN signs.
Where the bytes come from (a footer, a page index) is the files layer's
business; these rules take the values and counts alone.

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

from typing import Any, Literal

from nanstats.core.abstraction import ColumnAbstract, ValueKind
from nanstats.core.floats import FloatType
from nanstats.core.stats import ColumnStats

#: A column's order as the reading rules tell them apart (the files layer's
#: ColumnOrderKind has the same names): IEEE_754_TOTAL_ORDER, TYPE_ORDER, no
#: column order at all, and an order this library does not know.
ReadOrder = Literal["ieee754", "type_order", "undefined", "other"]


def from_column_stats(stats: ColumnStats) -> ColumnAbstract:
    """The abstraction of exact statistics (NaN signs known).

    >>> import numpy as np, nanstats
    >>> from_column_stats(nanstats.summary(np.array([np.nan, 1.0]), mask=np.array([True, False])))
    ColumnAbstract(float: no numbers, null, +nan)
    """
    ft = stats.float_type
    has_values = stats.value_count > 0
    lo = ft.bits_to_float(stats.value_min_bits) if stats.value_min_bits is not None else None
    hi = ft.bits_to_float(stats.value_max_bits) if stats.value_max_bits is not None else None
    return ColumnAbstract("float", lo, hi, has_values, stats.null_count > 0,
                          stats.pos_nan_count > 0, stats.neg_nan_count > 0)


def from_counts(null_count: int | None, nan_count: int | None,
                num_values: int | None) -> tuple[bool, bool, bool]:
    """(may_null, may_nan, may_value) from counts that may be missing.

    A missing ``nan_count`` means NaN may be present; nulls and NaNs that
    account for every value leave no number.

    >>> from_counts(2, None, 10), from_counts(2, 8, 10), from_counts(10, None, 10)
    ((True, True, True), (True, True, False), (True, False, False))
    """
    may_null = null_count is None or null_count > 0
    may_nan = nan_count is None or nan_count > 0
    if num_values is None or null_count is None or nan_count is None:
        may_value = True
    else:
        may_value = num_values - null_count - nan_count > 0
    if num_values is not None and null_count is not None and null_count >= num_values:
        may_nan = may_value = False  # all null (or an empty scope)
    return may_null, may_nan, may_value


def from_float_bounds(ft: FloatType, order: ReadOrder, min_value: bytes | None,
                      max_value: bytes | None, *, null_count: int | None,
                      nan_count: int | None, num_values: int | None) -> ColumnAbstract:
    """A float scope from its PLAIN bounds and counts, read under its column order.

    >>> from nanstats.core.floats import FLOAT
    >>> nan, neg_nan = FLOAT.bits_to_plain([0x7FC00000, 0xFFC00000])
    >>> from_float_bounds(FLOAT, "ieee754", neg_nan, nan, null_count=1, nan_count=3,
    ...                   num_values=4)
    ColumnAbstract(float: no numbers, null, +nan, -nan)
    """
    may_null, may_nan, may_value = from_counts(null_count, nan_count, num_values)
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


def from_value_bounds(kind: ValueKind, order: ReadOrder, min_value: bytes | None,
                      max_value: bytes | None, *, width: int | None = None,
                      signed: bool = True, null_count: int | None,
                      num_values: int | None) -> ColumnAbstract:
    """An integer or byte-string scope (no NaN) from its PLAIN bounds and counts.

    ``kind`` 'int' reads little-endian integers of ``width`` bytes (``signed``
    or not); 'bytes' takes the bounds as they are (byte-wise order); 'any'
    ignores them.  Bounds count only under TYPE_ORDER or no column order.

    >>> from_value_bounds("int", "type_order", b"\\xff\\xff\\xff\\xff", b"\\x07\\x00\\x00\\x00",
    ...                   width=4, null_count=0, num_values=5)
    ColumnAbstract(int: [-1, 7], value)
    >>> from_value_bounds("int", "type_order", b"\\x01\\x00\\x00\\x00", b"\\xff\\xff\\xff\\xff",
    ...                   width=4, signed=False, null_count=None, num_values=5)
    ColumnAbstract(int: [1, 4294967295], value, null)
    >>> from_value_bounds("bytes", "ieee754", b"a", b"b", null_count=0, num_values=1)
    ColumnAbstract(bytes: [-, +], value)
    """
    may_null, _, may_value = from_counts(null_count, 0, num_values)
    lo: Any = None
    hi: Any = None
    if order in ("type_order", "undefined") and min_value is not None and max_value is not None:
        if kind == "int":
            if len(min_value) == width and len(max_value) == width:
                lo = int.from_bytes(min_value, "little", signed=signed)
                hi = int.from_bytes(max_value, "little", signed=signed)
        elif kind == "bytes":
            lo, hi = bytes(min_value), bytes(max_value)
    if not may_value:
        lo = hi = None
    return ColumnAbstract(kind, lo, hi, may_value, may_null, False, False)
