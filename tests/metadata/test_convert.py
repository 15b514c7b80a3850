"""metadata.convert: the Thrift structures built from nanstats' values and read back."""

from __future__ import annotations

import numpy as np
import pytest

import nanstats
from nanstats.core.stats import ColumnStats, page_table
from nanstats.metadata.convert import (
    BOUNDARY_ORDER_CODES,
    BOUNDARY_ORDER_NAMES,
    WrittenStatistics,
    column_index_struct,
    column_orders,
    copy_level_histograms,
    page_statistics,
    statistics_struct,
    written_statistics,
)
from nanstats.metadata.thrift import decode, encode, pq


def test_boundary_order_names_and_codes_are_inverse() -> None:
    assert {BOUNDARY_ORDER_CODES[n] for n in BOUNDARY_ORDER_NAMES.values()} == \
        set(BOUNDARY_ORDER_NAMES)


@pytest.mark.parametrize("order", ["ieee754", "type_order"])
def test_page_statistics_equal_one_struct_per_page(order) -> None:
    values = np.array([1.0, np.nan, np.nan, np.nan, None, -0.0], dtype=float)
    table = page_table(values, page_rows=2)
    got = page_statistics(table, order)
    want = [statistics_struct(ColumnStats.from_table(table, i).statistics(order))
            for i in range(len(table))]
    assert [encode(s) for s in got] == [encode(s) for s in want]


def test_statistics_round_trip_through_written_statistics() -> None:
    enc = nanstats.summary(np.array([2.0, np.nan, -1.0])).statistics("ieee754")
    st, _ = decode(pq.Statistics, encode(statistics_struct(enc)))
    back = written_statistics(st)
    assert back == WrittenStatistics(0, 1, enc.min_value, enc.max_value, None, None, True, True)
    assert back.has_bounds
    assert not WrittenStatistics.from_thrift(pq.Statistics(null_count=3)).has_bounds


def test_column_index_struct_and_level_histograms() -> None:
    ci = nanstats.column_index(np.array([1.0, np.nan, 3.0]), page_rows=1)
    old = pq.ColumnIndex(null_pages=[False] * 3, repetition_level_histograms=[1, 2, 3],
                         definition_level_histograms=[4, 5, 6])
    s = column_index_struct(ci, old)
    assert s.definition_level_histograms == [4, 5, 6]
    assert s.repetition_level_histograms == [1, 2, 3]
    assert BOUNDARY_ORDER_NAMES[s.boundary_order] == ci.boundary_order
    # A different page count: the old histograms describe other pages.
    other = pq.ColumnIndex(null_pages=[False] * 2, definition_level_histograms=[1, 2])
    fresh = pq.ColumnIndex(null_pages=[False] * 3)
    copy_level_histograms(fresh, other)
    assert fresh.definition_level_histograms is None


def test_column_orders_keep_the_others() -> None:
    old = [pq.ColumnOrder(IEEE_754_TOTAL_ORDER=pq.IEEE754TotalOrder()),
           pq.ColumnOrder(TYPE_ORDER=pq.TypeDefinedOrder())]
    orders = column_orders(old, 2, [1], "ieee754")
    assert all(o.IEEE_754_TOTAL_ORDER is not None for o in orders)
    orders = column_orders(old, 2, [0], "type_order")
    assert orders[0].TYPE_ORDER is not None and orders[0].IEEE_754_TOTAL_ORDER is None
    assert orders[1] is old[1]
