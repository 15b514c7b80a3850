"""The writing rules of the two float column orders (SPEC.md section 3).

One source of truth: both the footer/page-header ``Statistics`` of a single
scope and the per-page bounds of a ``ColumnIndex`` come from
:func:`bounds_to_write`, vectorised over the rows of a StatsTable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from nanstats.core.table import StatsTable

ColumnOrderName = Literal["ieee754", "type_order"]
BoundaryOrder = Literal["UNORDERED", "ASCENDING", "DESCENDING"]
TypeOrderPolicy = Literal["safe", "format_minimum"]

COLUMN_ORDERS: tuple[ColumnOrderName, ...] = ("ieee754", "type_order")
POLICIES: tuple[TypeOrderPolicy, ...] = ("safe", "format_minimum")


def check_order(order: object, policy: object = "safe") -> ColumnOrderName:
    """Validate a column order name (and a TYPE_ORDER policy)."""
    if order not in COLUMN_ORDERS:
        raise ValueError(f"order must be one of {COLUMN_ORDERS}, not {order!r}")
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")
    return order


@dataclass(frozen=True, eq=False)
class Bounds:
    """Per scope: whether bounds are written, and their bit patterns."""

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
