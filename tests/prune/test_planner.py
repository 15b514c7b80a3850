"""The planner over sources of statistics: row groups, segments, page searches."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nanstats.core.abstraction import ColumnAbstract
from nanstats.core.floats import float_key
from nanstats.prune.constraints import Need
from nanstats.prune.expressions import col, is_nan
from nanstats.prune.planner import _admitted, _page_arrays, plan
from nanstats.prune.results import PageStats
from nanstats.prune.source import StatisticsSource
from nanstats.prune.sources import StatsSource


@dataclass
class Pages:
    """One row group of one float column, with pages as the test declares them."""

    ranges: list[tuple[float, float]]
    order: str = "ASCENDING"
    page_rows: int = 10
    index: bool = True

    @property
    def num_row_groups(self) -> int:
        return 1

    def num_rows(self, row_group: int) -> int:
        return self.page_rows * len(self.ranges)

    def has_column(self, row_group: int, name: str) -> bool:
        return name == "x"

    def _abstracts(self) -> list[ColumnAbstract]:
        return [ColumnAbstract.of_range(lo, hi) for lo, hi in self.ranges]

    def chunk_env(self, row_group: int, names: Sequence[str]) -> dict[str, ColumnAbstract]:
        lo = min(r[0] for r in self.ranges)
        hi = max(r[1] for r in self.ranges)
        return {n: ColumnAbstract.of_range(lo, hi) for n in names}

    def page_stats(self, row_group: int, name: str) -> PageStats | None:
        if not self.index:
            return None
        keys = [(float_key(lo), float_key(hi)) for lo, hi in self.ranges]
        return PageStats(list(range(0, self.num_rows(0), self.page_rows)), self._abstracts(),
                         keys, self.order)  # type: ignore[arg-type]


def test_a_test_source_satisfies_the_protocol() -> None:
    assert isinstance(Pages([(0.0, 1.0)]), StatisticsSource)


def test_binary_search_over_sorted_pages() -> None:
    src = Pages([(0.0, 9.0), (10.0, 19.0), (20.0, 29.0), (30.0, 39.0)])
    report = plan(src, col("x") == 25.0, "ieee")
    (search,) = report.row_groups[0].searches
    assert (search.method, search.pages, search.candidates) == ("binary", 4, 1)
    assert 1 <= search.steps <= 4
    assert report.selection.ranges == {0: ((20, 30),)}
    assert [s.kept for s in report.row_groups[0].segments] == [False, False, True, False]


def test_bounds_out_of_the_claimed_order_are_searched_linearly() -> None:
    src = Pages([(10.0, 19.0), (0.0, 9.0), (20.0, 29.0)], order="ASCENDING")
    report = plan(src, col("x") <= 5.0, "ieee")
    (search,) = report.row_groups[0].searches
    assert search.method == "linear"
    assert search.note == "bounds not sorted as the index claims; searched linearly"
    assert report.selection.ranges == {0: ((10, 20),)}  # the misplaced page is still found


def test_a_float_index_of_eight_pages_or_more_is_checked_and_searched_as_arrays() -> None:
    # From 8 pages on, a float index's order is checked over its key arrays
    # (once per index) and searched in them: the same answers as the check
    # and search of a few pages, ascending, descending, out of order, or with
    # a page whose min exceeds its max.
    up = [(10.0 * i, 10.0 * i + 9) for i in range(12)]
    for ranges, order, method in ((up, "ASCENDING", "binary"),
                                  (up[::-1], "DESCENDING", "binary"),
                                  (up[:5] + [up[6], up[5]] + up[7:], "ASCENDING", "linear"),
                                  (up[:5] + [(59.0, 50.0)] + up[6:], "ASCENDING", "linear"),
                                  (up, "DESCENDING", "linear")):
        src = Pages(ranges, order=order)
        report = plan(src, (col("x") >= 52.0) & (col("x") < 75.0), "ieee")
        (search,) = report.row_groups[0].searches
        assert search.method == method, (order, ranges)
        if method == "linear":
            assert search.note == "bounds not sorted as the index claims; searched linearly"
        kept = [i for i, (lo, hi) in enumerate(ranges) if lo <= hi and hi >= 52.0 and lo < 75.0]
        assert [s.kept for s in report.row_groups[0].segments] == \
            [i in kept for i in range(len(ranges))], (order, ranges)


def test_unordered_pages_and_no_interval_are_linear() -> None:
    src = Pages([(10.0, 19.0), (0.0, 9.0)], order="UNORDERED")
    assert plan(src, col("x") > 12.0, "ieee").row_groups[0].searches[0].method == "linear"
    sorted_src = Pages([(0.0, 9.0), (10.0, 19.0)])
    search = plan(sorted_src, col("x") != 3.0, "ieee").row_groups[0].searches[0]
    assert (search.method, search.note) == ("linear", "no interval to search for")


def test_no_page_index_is_one_page() -> None:
    src = Pages([(0.0, 9.0), (10.0, 19.0)], index=False)
    report = plan(src, col("x") > 12.0, "ieee")
    (search,) = report.row_groups[0].searches
    assert (search.method, search.pages, search.note) == ("none", 1, "no page index")
    assert report.selection.ranges == {0: ((0, 20),)}


def test_segments_cut_at_every_page_start_of_the_columns_read() -> None:
    x = np.arange(12.0)
    src = StatsSource([{"x": ([0, 6], StatsSource.from_arrays({"x": x}, row_group_rows=12,
                                                              page_rows=6).row_groups[0]["x"][1]),
                        "y": ([0, 4, 8], StatsSource.from_arrays({"y": -x}, row_group_rows=12,
                                                                 page_rows=4)
                              .row_groups[0]["y"][1])}], [12])
    report = plan(src, (col("x") > 3.0) & (col("y") < -9.0), "ieee")
    segments = report.row_groups[0].segments
    assert [(s.first_row, s.num_rows, s.pages) for s in segments] == [
        (0, 4, {"x": 0, "y": 0}), (4, 2, {"x": 0, "y": 1}), (6, 2, {"x": 1, "y": 1}),
        (8, 4, {"x": 1, "y": 2})]
    assert report.selection.ranges == {0: ((8, 12),)}


def test_nan_pages_are_found_from_counts_not_bounds() -> None:
    x = np.r_[np.arange(8.0), np.full(4, np.nan)]
    src = StatsSource.from_arrays({"x": x}, row_group_rows=12, page_rows=4)
    report = plan(src, is_nan(col("x")) | (col("x") == 1.0), "ieee")
    assert report.selection.ranges == {0: ((0, 4), (8, 12))}
    assert plan(src, col("x") > 100.0, "nan_greatest").selection.ranges == {0: ((8, 12),)}
    assert plan(src, col("x") > 100.0, "ieee").selection.ranges == {}


def test_plan_totals_and_skipped_row_groups() -> None:
    src = StatsSource.from_arrays({"x": np.arange(30.0)}, row_group_rows=10, page_rows=5)
    report = plan(src, col("x") >= 25.0, "ieee", detail=False, name="t")
    assert report.selection.total_rows == 30 and report.selection.num_rows == 5
    assert [d.kept for d in report.row_groups] == [False, False, True]
    assert report.row_groups[2].segments == ()  # detail=False keeps no segments
    assert str(report).startswith("t: (x >= 25.0) under ieee: read 5 of 30 rows")


_VALUES = st.sampled_from([-np.inf, -3.5, -0.0, 0.0, 1.0, 2.5, 7.0, np.inf])


@st.composite
def _page(draw: st.DrawFn) -> tuple[ColumnAbstract, tuple[int, int] | None]:
    """A float page's abstraction and its bound keys (None: a page of nulls or NaNs only)."""
    null, pos, neg = draw(st.booleans()), draw(st.booleans()), draw(st.booleans())
    if draw(st.integers(0, 4)) == 0:
        return ColumnAbstract.only_nan(pos=pos, neg=neg, may_null=null), None
    lo, hi = sorted([draw(_VALUES), draw(_VALUES)], key=float_key)
    page = ColumnAbstract.of_range(lo, hi, may_null=null, may_pos_nan=pos, may_neg_nan=neg)
    return page, (float_key(lo), float_key(hi))


@settings(max_examples=300, deadline=None)
@given(pages=st.lists(_page(), min_size=8, max_size=40),
       need=st.builds(Need, st.booleans(), st.none() | _VALUES.map(float_key), st.booleans(),
                      st.none() | _VALUES.map(float_key), st.booleans(), st.booleans(),
                      st.booleans(), st.booleans()))
def test_pages_judged_at_once_as_one_at_a_time(pages, need) -> None:
    """The array form of a column's linear page search keeps exactly the pages
    ``Need.admits`` keeps, one by one."""
    abstracts = [p for p, _ in pages]
    keys = [k for _, k in pages]
    ps = PageStats(list(range(0, 10 * len(pages), 10)), abstracts, keys, "UNORDERED")
    arrays = _page_arrays(ps)
    assert arrays is not None
    assert _admitted(need, *arrays).tolist() == [need.admits(p, k) for p, k in pages]
