"""ColumnIndex: against the oracle, hand vectors, boundary order, refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nanstats
from nanstats import ColumnIndex
from nanstats.testing import oracle
from tests.strategies import Column, columns


def plain(ft, bits: int | None) -> bytes:
    return b"" if bits is None else bits.to_bytes(ft.nbytes, "little")


@given(columns(), st.sampled_from(["ieee754", "type_order"]), st.sampled_from(["safe", "format_minimum"]))
def test_column_index_matches_oracle(col: Column, order: str, policy: str) -> None:
    ci = nanstats.column_index(col.values(), col.mask(), page_starts=col.page_starts,
                               order=order, policy=policy)
    pages = oracle.page_stats(col.ft.physical_type, col.bits, col.valid, col.page_starts)
    expected = oracle.column_index(pages, order, policy)
    if expected is None:
        assert ci is None
        assert ColumnIndex.refusal(
            nanstats.page_stats(col.values(), col.mask(), page_starts=col.page_starts),
            order, policy=policy) is not None
        return
    assert ci is not None
    assert list(ci.null_pages) == expected["null_pages"]
    assert list(ci.min_values) == [plain(col.ft, b) for b in expected["min_bits"]]
    assert list(ci.max_values) == [plain(col.ft, b) for b in expected["max_bits"]]
    assert ci.boundary_order == expected["boundary_order"]
    assert list(ci.null_counts) == expected["null_counts"]
    assert list(ci.nan_counts) == expected["nan_counts"]
    assert len(ci) == len(col.page_starts)


@given(columns())
def test_from_page_stats_equals_column_index(col: Column) -> None:
    pages = nanstats.page_stats(col.values(), col.mask(), page_starts=col.page_starts)
    for order in ("ieee754", "type_order"):
        assert ColumnIndex.from_page_stats(pages, order) == nanstats.column_index(
            col.values(), col.mask(), page_starts=col.page_starts, order=order)


def pages_of(*groups: list[float], dtype=np.float64):
    """One page per group; None marks a null."""
    flat = [v for g in groups for v in g]
    values = np.array([0.0 if v is None else v for v in flat], dtype=dtype)
    mask = np.array([v is not None for v in flat])
    starts = np.cumsum([0] + [len(g) for g in groups[:-1]])
    return values, mask, starts


def d(x: float) -> bytes:
    return np.float64(x).tobytes()


def test_rules_page_by_page_ieee754() -> None:
    nan_neg = np.array([0xFFF8000000000000], np.uint64).view(np.float64)[0]
    values, mask, starts = pages_of(
        [1.0, 2.0],            # no NaN
        [np.nan, 3.0, None],   # mixed NaN and a null
        [np.nan, nan_neg],     # all NaN, both signs
        [None, None],          # all null
        [0.0, -0.0],           # both zeros
    )
    ci = nanstats.column_index(values, mask, page_starts=starts)
    assert ci.null_pages == (False, False, False, True, False)
    assert ci.min_values == (d(1.0), d(3.0), bytes.fromhex("000000000000f8ff"), b"", d(-0.0))
    assert ci.max_values == (d(2.0), d(3.0), bytes.fromhex("000000000000f87f"), b"", d(0.0))
    assert ci.null_counts == (0, 1, 0, 2, 0)
    assert ci.nan_counts == (0, 1, 2, 0, 0)
    assert ci.order == "ieee754" and ci.physical_type == "DOUBLE"


def test_type_order_zero_rule_in_index() -> None:
    values, mask, starts = pages_of([0.0, 1.0], [-2.0, -0.0], [None])
    ci = nanstats.column_index(values, mask, page_starts=starts, order="type_order")
    assert ci.min_values == (d(-0.0), d(-2.0), b"")
    assert ci.max_values == (d(1.0), d(0.0), b"")
    assert ci.boundary_order == "DESCENDING"
    assert ci.nan_counts == (0, 0, 0)


def test_type_order_refusals() -> None:
    values, mask, starts = pages_of([1.0, np.nan], [2.0, 3.0])
    assert nanstats.column_index(values, mask, page_starts=starts, order="type_order") is None
    ci = nanstats.column_index(values, mask, page_starts=starts, order="type_order",
                               policy="format_minimum")
    assert ci is not None and ci.min_values == (d(1.0), d(2.0)) and ci.nan_counts == (1, 0)
    values, mask, starts = pages_of([1.0], [np.nan, None])
    assert nanstats.column_index(values, mask, page_starts=starts, order="type_order",
                                 policy="format_minimum") is None
    why = ColumnIndex.refusal(nanstats.page_stats(values, mask, page_starts=starts),
                              "type_order", policy="format_minimum")
    assert why is not None and "page 1" in why and "only NaN" in why
    assert ColumnIndex.refusal(nanstats.page_stats(values, mask, page_starts=starts)) is None


@pytest.mark.parametrize(
    "groups, expected",
    [
        ([[1.0]], "ASCENDING"),                          # a single page
        ([[None]], "ASCENDING"),                         # only a null page
        ([[1.0, 5.0], [None], [2.0, 6.0]], "ASCENDING"),  # null pages are skipped
        ([[1.0, 5.0], [1.0, 5.0]], "ASCENDING"),         # equal pages: ascending wins
        ([[3.0, 9.0], [2.0, 9.0], [None], [1.0, 4.0]], "DESCENDING"),
        ([[1.0, 9.0], [2.0, 3.0]], "UNORDERED"),         # mins rise, maxes fall
        ([[1.0, 9.0], [2.0, 10.0]], "ASCENDING"),        # overlap is fine (loose)
        ([[-0.0], [0.0]], "ASCENDING"),                  # -0.0 < +0.0 in totalOrder
        ([[5.0], [np.nan]], "ASCENDING"),                # +NaN page sorts last
    ],
)
def test_boundary_order(groups, expected) -> None:
    values, mask, starts = pages_of(*groups)
    assert nanstats.column_index(values, mask, page_starts=starts).boundary_order == expected


def test_page_argument_errors() -> None:
    v = np.zeros(10)
    with pytest.raises(ValueError, match="not both"):
        nanstats.column_index(v, page_rows=2, page_starts=[0])
    with pytest.raises(ValueError, match="at least 1"):
        nanstats.page_stats(v, page_rows=0)
    with pytest.raises(TypeError, match="page_rows must be an int"):
        nanstats.page_stats(v, page_rows=2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="start at 0"):
        nanstats.page_stats(v, page_starts=[1, 4])
    with pytest.raises(ValueError, match=r"strictly increasing: page_starts\[2\] = 4 follows 4"):
        nanstats.page_stats(v, page_starts=[0, 4, 4])
    with pytest.raises(ValueError, match="within the 10 values"):
        nanstats.page_stats(v, page_starts=[0, 10])
    with pytest.raises(TypeError, match="integers"):
        nanstats.page_stats(v, page_starts=[0.0, 2.0])
    with pytest.raises(ValueError, match="1-D"):
        nanstats.page_stats(np.zeros((2, 2)), page_rows=1)
    with pytest.raises(ValueError, match="order must be"):
        nanstats.column_index(v, order="ieee")  # type: ignore[arg-type]


def test_page_rows_splits_evenly_with_a_short_last_page() -> None:
    pages = nanstats.page_stats(np.arange(7.0), page_rows=3)
    assert [p.num_values for p in pages] == [3, 3, 1]
    assert [p.max for p in pages] == [2.0, 5.0, 6.0]
    assert [p.num_values for p in nanstats.page_stats(np.zeros(0), page_rows=3)] == [0]


def test_to_dict() -> None:
    ci = nanstats.column_index(np.float32([1.0, 2.0]), page_rows=1)
    assert ci.to_dict()["min_values"] == [np.float32(1).tobytes(), np.float32(2).tobytes()]
    assert ci.to_dict()["boundary_order"] == "ASCENDING"
