"""``make demo``: statistics and page index of a float column with NaNs.

Generates a float64 column with NaNs of both signs and several payloads,
both zeros, infinities and nulls, then prints its statistics and its column
index under both column orders.  (The Spark pipeline replaces this as the
main job once it lands.)
"""

from __future__ import annotations

import argparse

import numpy as np

import nanstats
from nanstats.column_index import ColumnIndex
from nanstats.float_types import DOUBLE
from nanstats.order_rules import ColumnOrderName, TypeOrderPolicy

NAN_PATTERNS = np.array(
    [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFFFFFFFFFFFFFFF],
    dtype=np.uint64,
)


def sample_column(n: int = 40, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """A small float64 column (values, validity) that holds every hard case.

    >>> values, valid = sample_column(8)
    >>> values.dtype, valid.dtype, len(values)
    (dtype('float64'), dtype('bool'), 8)
    >>> len(sample_column(0)[0])
    0
    """
    if n < 0:
        raise ValueError(f"sample_column: n must be >= 0, got {n}")
    rng = np.random.default_rng(seed)
    values = np.round(rng.normal(0, 10, n), 2)
    values[3::10] = -0.0
    values[4::10] = 0.0
    values[35:36] = np.inf
    valid = rng.random(n) > 0.1
    # An all-NaN page (rows 10..19 under 10-row pages) and scattered NaNs.
    tail = np.arange(20, n)
    nan_rows = np.r_[np.arange(10, min(20, n)), rng.choice(tail, min(4, tail.size), replace=False)]
    values.view(np.uint64)[nan_rows] = NAN_PATTERNS[np.arange(nan_rows.size) % 4]
    return values, valid


def _fmt(b: bytes) -> str:
    if not b:
        return "(null page)"
    return DOUBLE.format_bits(DOUBLE.plain_to_bits(b))


def print_column_index(ci: ColumnIndex | None, why: str | None) -> None:
    if ci is None:
        print(f"  no column index: {why}")
        return
    print(f"  boundary_order={ci.boundary_order}")
    print(f"  {'page':>4} {'null':>5} {'nulls':>5} {'NaNs':>5}  {'min':<26} {'max':<26}")
    for i in range(len(ci)):
        print(
            f"  {i:>4} {ci.null_pages[i]!s:>5} {ci.null_counts[i]:>5} {ci.nan_counts[i]:>5}  "
            f"{_fmt(ci.min_values[i]):<26} {_fmt(ci.max_values[i]):<26}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--page-rows", type=int, default=10)
    args = parser.parse_args(argv)
    values, valid = sample_column(args.rows)
    stats = nanstats.summary(values, valid)
    print(f"column of {args.rows} float64 values, pages of {args.page_rows} rows\n")
    print(stats)
    cases: tuple[tuple[ColumnOrderName, TypeOrderPolicy], ...] = (
        ("ieee754", "safe"), ("type_order", "safe"), ("type_order", "format_minimum"))
    for order, policy in cases:
        enc = stats.statistics(order, policy=policy)
        label = order if order == "ieee754" else f"{order} ({policy})"
        lo = "-" if enc.min_value is None else _fmt(enc.min_value)
        hi = "-" if enc.max_value is None else _fmt(enc.max_value)
        print(f"\nStatistics, {label}: min={lo} max={hi} null_count={enc.null_count} "
              f"nan_count={enc.nan_count}")
        pages = nanstats.page_stats(values, valid, page_rows=args.page_rows)
        print(f"ColumnIndex, {label}:")
        print_column_index(
            ColumnIndex.from_page_stats(pages, order, policy=policy),
            ColumnIndex.refusal(pages, order, policy=policy),
        )


if __name__ == "__main__":
    main()
