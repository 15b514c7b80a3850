"""The slow, obviously-correct twin of the kernels and the writing rules.

Plain Python over integer bit patterns, one value at a time, written from
the definitions in SPEC.md rather than from the kernel's tricks: totalOrder
is "positives by magnitude, then negatives by reversed magnitude", NaN is
"exponent all ones, mantissa non-zero".  Tests hold every fast path to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

WIDTHS = {"FLOAT16": (16, 10), "FLOAT": (32, 23), "DOUBLE": (64, 52)}


def total_order_rank(bits: int, width: int) -> int:
    """An integer that orders bit patterns as IEEE 754 totalOrder.

    >>> sorted([0x8000, 0x0000, 0xFC00, 0x7E00, 0xFE00], key=lambda b: total_order_rank(b, 16))
    [65024, 64512, 32768, 0, 32256]
    """
    sign = bits >> (width - 1)
    magnitude = bits & ((1 << (width - 1)) - 1)
    return -magnitude - 1 if sign else magnitude


def is_nan(bits: int, width: int, mantissa_bits: int) -> bool:
    """Exponent all ones and mantissa non-zero.

    >>> is_nan(0x7C01, 16, 10), is_nan(0x7C00, 16, 10)
    (True, False)
    """
    exponent_bits = width - 1 - mantissa_bits
    exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1)
    mantissa = bits & ((1 << mantissa_bits) - 1)
    return exponent == (1 << exponent_bits) - 1 and mantissa != 0


def scope_stats(
    physical_type: str, bits: Sequence[int], valid: Sequence[bool] | None = None
) -> dict[str, Any]:
    """The statistics of one scope, as the dict ColumnStats fields make.

    >>> scope_stats("FLOAT16", [0x3C00, 0xFE00, 0x0000], [True, True, False])["neg_nan_count"]
    1
    """
    width, mantissa_bits = WIDTHS[physical_type]
    if valid is None:
        valid = [True] * len(bits)
    out: dict[str, Any] = {
        "physical_type": physical_type,
        "num_values": len(bits),
        "null_count": 0,
        "pos_nan_count": 0,
        "neg_nan_count": 0,
    }
    numbers: list[int] = []
    nans: list[int] = []
    for b, ok in zip(bits, valid, strict=True):
        if not ok:
            out["null_count"] += 1
        elif is_nan(b, width, mantissa_bits):
            nans.append(b)
            out["neg_nan_count" if b >> (width - 1) else "pos_nan_count"] += 1
        else:
            numbers.append(b)

    def rank(b: int) -> int:
        return total_order_rank(b, width)

    out["value_min_bits"] = min(numbers, key=rank) if numbers else None
    out["value_max_bits"] = max(numbers, key=rank) if numbers else None
    out["nan_min_bits"] = min(nans, key=rank) if nans else None
    out["nan_max_bits"] = max(nans, key=rank) if nans else None
    return out


def page_stats(
    physical_type: str,
    bits: Sequence[int],
    valid: Sequence[bool] | None,
    page_starts: Sequence[int],
) -> list[dict[str, Any]]:
    """scope_stats of every page."""
    ends = list(page_starts[1:]) + [len(bits)]
    return [
        scope_stats(physical_type, bits[a:b], None if valid is None else valid[a:b])
        for a, b in zip(page_starts, ends, strict=True)
    ]


def encoded_statistics(
    stats: dict[str, Any], order: str, policy: str = "safe"
) -> tuple[int | None, int | None]:
    """The (min, max) bit patterns a writer puts in Statistics, or Nones.

    Straight from SPEC.md section 3, one case at a time.
    """
    width, _ = WIDTHS[stats["physical_type"]]
    nan_count = stats["pos_nan_count"] + stats["neg_nan_count"]
    has_numbers = stats["value_min_bits"] is not None
    if order == "ieee754":
        if has_numbers:
            return stats["value_min_bits"], stats["value_max_bits"]
        if nan_count:
            return stats["nan_min_bits"], stats["nan_max_bits"]
        return None, None
    if not has_numbers or (policy == "safe" and nan_count):
        return None, None
    lo, hi = stats["value_min_bits"], stats["value_max_bits"]
    negative_zero = 1 << (width - 1)
    if lo in (0, negative_zero):
        lo = negative_zero
    if hi in (0, negative_zero):
        hi = 0
    return lo, hi


def column_index(
    pages: list[dict[str, Any]], order: str, policy: str = "safe"
) -> dict[str, Any] | None:
    """The column index of pages as plain lists of bit patterns, or None."""
    width, _ = WIDTHS[pages[0]["physical_type"]]
    nan_counts = [p["pos_nan_count"] + p["neg_nan_count"] for p in pages]
    if order == "type_order":
        for p, nans in zip(pages, nan_counts, strict=True):
            all_nan = nans and p["value_min_bits"] is None
            if (policy == "safe" and nans) or all_nan:
                return None
    null_pages = [p["null_count"] == p["num_values"] for p in pages]
    bounds = [encoded_statistics(p, order, policy) for p in pages]
    ranks = [
        (total_order_rank(lo, width), total_order_rank(hi, width))
        for (lo, hi), null in zip(bounds, null_pages, strict=True)
        if not null and lo is not None and hi is not None
    ]
    pairs = list(zip(ranks, ranks[1:], strict=False))
    if all(a[0] <= b[0] and a[1] <= b[1] for a, b in pairs):
        boundary = "ASCENDING"
    elif all(a[0] >= b[0] and a[1] >= b[1] for a, b in pairs):
        boundary = "DESCENDING"
    else:
        boundary = "UNORDERED"
    return {
        "null_pages": null_pages,
        "min_bits": [None if n else b[0] for b, n in zip(bounds, null_pages, strict=True)],
        "max_bits": [None if n else b[1] for b, n in zip(bounds, null_pages, strict=True)],
        "boundary_order": boundary,
        "null_counts": [p["null_count"] for p in pages],
        "nan_counts": nan_counts,
    }
