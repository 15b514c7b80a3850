"""The writing rules of the two float column orders (SPEC.md section 3), and
the same rules in the form that checks what a file wrote.

One source of truth: both the footer/page-header ``Statistics`` of a single
scope and the per-page bounds of a ``ColumnIndex`` come from
:func:`bounds_to_write`, vectorised over the rows of a StatsTable; a
checker (``verify``) asks :func:`bounds_within_rules`,
:func:`breaks_zero_rule`, :func:`excludes_extreme` and :func:`order_keys`,
vectorised over the written bounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from nanstats.core.floats import FloatType
from nanstats.core.table import StatsTable

ColumnOrderName = Literal["ieee754", "type_order"]
BoundaryOrder = Literal["UNORDERED", "ASCENDING", "DESCENDING"]
TypeOrderPolicy = Literal["safe", "format_minimum"]

COLUMN_ORDERS: tuple[ColumnOrderName, ...] = ("ieee754", "type_order")
POLICIES: tuple[TypeOrderPolicy, ...] = ("safe", "format_minimum")


def check_order(order: object, policy: object = "safe") -> ColumnOrderName:
    """Validate a column order name (and a TYPE_ORDER policy).

    >>> check_order("ieee754")
    'ieee754'
    >>> check_order("type_order", policy="lenient")
    Traceback (most recent call last):
    ...
    ValueError: policy must be one of ('safe', 'format_minimum'), not 'lenient'
    """
    if order not in COLUMN_ORDERS:
        raise ValueError(f"order must be one of {COLUMN_ORDERS}, not {order!r}")
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")
    return order


@dataclass(frozen=True, eq=False)
class Bounds:
    """Per scope: whether bounds are written, and their bit patterns.

    ``min_bits``/``max_bits`` are in the column's bit dtype, zero where
    ``present`` is False.  :func:`bounds_to_write` makes them.

    >>> import numpy as np
    >>> b = Bounds(np.array([True, False]), np.array([1, 0], np.uint16),
    ...            np.array([2, 0], np.uint16))
    >>> b.present.tolist(), b.min_bits.tolist(), b.max_bits.tolist()
    ([True, False], [1, 0], [2, 0])
    """

    present: npt.NDArray[np.bool_]
    min_bits: npt.NDArray[np.unsignedinteger]
    max_bits: npt.NDArray[np.unsignedinteger]


def bounds_to_write(
    table: StatsTable, order: ColumnOrderName, policy: TypeOrderPolicy = "safe"
) -> Bounds:
    """The min/max a writer puts in each scope's statistics under ``order``.

    ``ieee754``: the totalOrder extremes of the non-NaN values; the NaN
    extremes when every non-null value is NaN; nothing when all are null.

    ``type_order``: extremes of the non-NaN values with the zero rule (a zero
    minimum is written -0.0, a zero maximum +0.0).  Policy ``safe`` (the
    default, as parquet-java writes) writes nothing for a scope holding any
    NaN; ``format_minimum`` writes nothing only when no non-NaN value exists.

    >>> import numpy as np
    >>> from nanstats.core.stats import page_table
    >>> t = page_table(np.array([1.0, np.nan, 5.0, 0.0]), page_rows=2)
    >>> b = bounds_to_write(t, "ieee754")
    >>> b.present.tolist(), b.min_bits.view(np.float64).tolist()
    ([True, True], [1.0, 0.0])
    >>> b = bounds_to_write(t, "type_order")   # the NaN page gets none; a zero min is -0.0
    >>> b.present.tolist(), b.min_bits.view(np.float64).tolist(), b.max_bits.view(np.float64).tolist()
    ([False, True], [0.0, -0.0], [0.0, 5.0])
    >>> bounds_to_write(t, "type_order", "format_minimum").present.tolist()
    [True, True]
    """
    check_order(order, policy)
    ft = table.float_type
    has_values = table.value_count > 0
    has_nan = table.nan_count > 0
    vmin = ft.keys_to_bits(table.keys[:, 0])
    vmax = ft.keys_to_bits(table.keys[:, 1])
    if order == "ieee754":
        present = has_values | has_nan
        min_bits = np.where(has_values, vmin, ft.keys_to_bits(table.keys[:, 2]))
        max_bits = np.where(has_values, vmax, ft.keys_to_bits(table.keys[:, 3]))
    else:
        present = has_values & ~has_nan if policy == "safe" else has_values
        zero_min = (vmin & ft.bits_dtype.type(ft.abs_mask)) == 0
        zero_max = (vmax & ft.bits_dtype.type(ft.abs_mask)) == 0
        min_bits = np.where(zero_min, ft.bits_dtype.type(ft.sign_mask), vmin)
        max_bits = np.where(zero_max, ft.bits_dtype.type(0), vmax)
    zero = ft.bits_dtype.type(0)
    return Bounds(
        present,
        np.where(present, min_bits, zero).astype(ft.bits_dtype),
        np.where(present, max_bits, zero).astype(ft.bits_dtype),
    )


def column_index_refusal(
    table: StatsTable, order: ColumnOrderName, policy: TypeOrderPolicy = "safe"
) -> str | None:
    """Why the rules forbid a column index for these pages, or None.

    >>> import numpy as np
    >>> from nanstats.core.inputs import from_numpy
    >>> from nanstats.core.table import page_starts_for, scan
    >>> t = scan(from_numpy(np.array([1.0, np.nan])), page_starts_for(2, page_rows=1))
    >>> column_index_refusal(t, "type_order")
    'page 1 holds 1 NaN value(s); under TYPE_ORDER no column index is written for a chunk with NaN (policy safe)'
    >>> column_index_refusal(t, "ieee754") is None
    True
    """
    check_order(order, policy)
    if order == "ieee754":
        return None
    has_nan = table.nan_count > 0
    if policy == "safe":
        if has_nan.any():
            page = int(np.argmax(has_nan))
            return (
                f"page {page} holds {int(table.nan_count[page])} NaN value(s); under "
                "TYPE_ORDER no column index is written for a chunk with NaN (policy safe)"
            )
        return None
    all_nan = has_nan & (table.value_count == 0)
    if all_nan.any():
        page = int(np.argmax(all_nan))
        return (
            f"page {page} holds only NaN and null values; under TYPE_ORDER such a page "
            "has no valid bounds, so the chunk gets no column index"
        )
    return None


def boundary_order(min_keys: npt.NDArray[Any] | Sequence[Any],
                   max_keys: npt.NDArray[Any] | Sequence[Any]) -> BoundaryOrder:
    """ASCENDING when both bound lists are non-decreasing, DESCENDING when both
    are non-increasing (and not ASCENDING), else UNORDERED.  Null pages are
    left out by the caller; fewer than two pages count as ASCENDING.

    Keys are numpy arrays (int64 totalOrder keys of a float column) or
    sequences of any mutually comparable values: Python ints of any size,
    ``bytes`` (compared byte-wise, trailing zero bytes included).

    >>> import numpy as np
    >>> boundary_order(np.array([1, 2, 2]), np.array([3, 3, 4]))
    'ASCENDING'
    >>> boundary_order(np.array([2, 1]), np.array([3, 4]))
    'UNORDERED'
    >>> big = np.iinfo(np.int64)
    >>> boundary_order(np.array([big.max, big.min]), np.array([big.max, big.min]))
    'DESCENDING'
    >>> boundary_order([b"b\\x00", b"b"], [b"c", b"c"]), boundary_order([2**64, 1], [2**64, 1])
    ('DESCENDING', 'DESCENDING')
    """
    # Sequences become object arrays: numpy's own bytes dtype would drop
    # trailing zero bytes, and its integers stop at 64 bits.
    lo = min_keys if isinstance(min_keys, np.ndarray) else np.array(list(min_keys), dtype=object)
    hi = max_keys if isinstance(max_keys, np.ndarray) else np.array(list(max_keys), dtype=object)
    # Compare neighbours rather than subtract them: keys span all of int64,
    # so a difference can overflow.
    lo0, lo1, hi0, hi1 = lo[:-1], lo[1:], hi[:-1], hi[1:]
    if (lo0 <= lo1).all() and (hi0 <= hi1).all():
        return "ASCENDING"
    if (lo0 >= lo1).all() and (hi0 >= hi1).all():
        return "DESCENDING"
    return "UNORDERED"


# ------------------------------------------------------------------ checking
#
# The same rules in the form a checker needs: given bounds a file wrote
# (bit patterns, vectorised over scopes), which break them.


def numeric_keys(ft: FloatType, bits: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Keys ordering non-NaN values as numbers (-0.0 equal to +0.0), as TYPE_ORDER does.

    >>> from nanstats.core.floats import DOUBLE
    >>> k = numeric_keys(DOUBLE, [0x8000000000000000, 0, 0x3FF0000000000000])
    >>> bool(k[0] == k[1] < k[2])
    True
    """
    b = np.asarray(bits, dtype=ft.bits_dtype)
    zero = (b & ft.bits_dtype.type(ft.abs_mask)) == 0
    return ft.bits_to_keys(np.where(zero, ft.bits_dtype.type(0), b))


def excludes_extreme(ft: FloatType, bits: npt.ArrayLike, extreme: npt.ArrayLike,
                     is_min: bool) -> npt.NDArray[np.bool_]:
    """Where a non-NaN bound excludes the scope's non-NaN extreme, compared as numbers.

    >>> from nanstats.core.floats import DOUBLE
    >>> excludes_extreme(DOUBLE, [0x4000000000000000, 0x8000000000000000],
    ...                  [0x3FF0000000000000, 0], True).tolist()   # 2.0 > 1.0; -0.0 == +0.0
    [True, False]
    """
    key, want = numeric_keys(ft, bits), numeric_keys(ft, extreme)
    out: npt.NDArray[np.bool_] = key > want if is_min else key < want
    return out


def breaks_zero_rule(ft: FloatType, bits: npt.ArrayLike, extreme: npt.ArrayLike,
                     is_min: bool) -> npt.NDArray[np.bool_]:
    """TYPE_ORDER: where a zero extreme is written as the wrong zero (a zero min
    must be -0.0, a zero max +0.0).

    >>> from nanstats.core.floats import FLOAT
    >>> breaks_zero_rule(FLOAT, [0, 0x80000000], [0x80000000, 0], True).tolist()
    [True, False]
    """
    b = np.asarray(bits, dtype=ft.bits_dtype)
    e = np.asarray(extreme, dtype=ft.bits_dtype)
    abs_mask = ft.bits_dtype.type(ft.abs_mask)
    zero = ft.bits_dtype.type(ft.sign_mask if is_min else 0)
    out: npt.NDArray[np.bool_] = ((e & abs_mask) == 0) & ((b & abs_mask) == 0) & (b != zero)
    return out


def bounds_within_rules(table: StatsTable, order: ColumnOrderName, bits: npt.ArrayLike,
                        ok: npt.NDArray[np.bool_], is_min: bool) -> npt.NDArray[np.bool_]:
    """Scopes whose written bound (``bits``; ``ok`` False where it is malformed)
    certainly breaks no rule of ``order``.

    ``ieee754``: the bound is exactly the one :func:`bounds_to_write` gives.
    ``type_order``: a non-NaN bound for a scope with non-NaN values that
    excludes none of them and keeps the zero rule (wider bounds are allowed).
    A scope this leaves out may still be fine: its bound is checked one by
    one.

    >>> import numpy as np
    >>> from nanstats.core.inputs import from_numpy
    >>> from nanstats.core.table import page_starts_for, scan
    >>> t = scan(from_numpy(np.array([1.0, -0.0])), page_starts_for(2, page_rows=1))
    >>> mins = np.array([0x3FF0000000000000, 0], dtype=np.uint64)   # 1.0, +0.0
    >>> ok = np.ones(2, dtype=bool)
    >>> bounds_within_rules(t, "type_order", mins, ok, True).tolist()   # +0.0 breaks the zero rule
    [True, False]
    >>> bounds_within_rules(t, "ieee754", mins, ok, True).tolist()      # -0.0 was the minimum
    [True, False]
    """
    ft = table.float_type
    b = np.asarray(bits, dtype=ft.bits_dtype)
    if order == "ieee754":
        want = bounds_to_write(table, "ieee754")
        want_bits = want.min_bits if is_min else want.max_bits
        exact: npt.NDArray[np.bool_] = ok & want.present & (b == want_bits)
        return exact
    has_values = table.value_count > 0
    extreme = ft.keys_to_bits(table.keys[:, 0 if is_min else 1])
    clean: npt.NDArray[np.bool_] = ok & has_values & ~ft.is_nan_array(b) & \
        ~excludes_extreme(ft, b, extreme, is_min) & ~breaks_zero_rule(ft, b, extreme, is_min)
    return clean


def order_keys(ft: FloatType, order: ColumnOrderName, min_bits: npt.ArrayLike,
               max_bits: npt.ArrayLike,
               used: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The keys by which ``order`` sorts the bounds of the ``used`` pages, for
    checking a claimed boundary order.

    ``ieee754``: totalOrder keys.  ``type_order``: pages with a NaN bound are
    left out (NaN has no place in that order) and the zeros compare equal.

    >>> import numpy as np
    >>> from nanstats.core.floats import DOUBLE
    >>> lo = np.array([0x8000000000000000, 0, 0x7FF8000000000000], dtype=np.uint64)
    >>> used = np.ones(3, dtype=bool)
    >>> [k.tolist() == sorted(k.tolist()) for k in order_keys(DOUBLE, "ieee754", lo, lo, used)]
    [True, True]
    >>> len(order_keys(DOUBLE, "type_order", lo, lo, used)[0])    # the NaN page left out
    2
    """
    if order == "ieee754":
        lo, hi = ft.bits_to_keys(min_bits), ft.bits_to_keys(max_bits)
    else:
        used = used & ~(ft.is_nan_array(min_bits) | ft.is_nan_array(max_bits))
        lo, hi = numeric_keys(ft, min_bits), numeric_keys(ft, max_bits)
    return lo[used], hi[used]


def claimed_order_holds(claim: BoundaryOrder, min_keys: npt.NDArray[np.int64],
                        max_keys: npt.NDArray[np.int64]) -> bool:
    """Whether both bound lists keep a claimed boundary order (UNORDERED always holds).

    >>> import numpy as np
    >>> claimed_order_holds("ASCENDING", np.array([1, 2]), np.array([3, 3]))
    True
    >>> claimed_order_holds("DESCENDING", np.array([1, 2]), np.array([3, 3]))
    False
    """
    lo0, lo1, hi0, hi1 = min_keys[:-1], min_keys[1:], max_keys[:-1], max_keys[1:]
    if claim == "ASCENDING":
        return bool((lo0 <= lo1).all() and (hi0 <= hi1).all())
    if claim == "DESCENDING":
        return bool((lo0 >= lo1).all() and (hi0 >= hi1).all())
    return True
