"""Page search against a brute-force oracle: exact, widened, truncated and
misdeclared bounds, null pages, descending order, degenerate indexes."""

from __future__ import annotations

import importlib.util
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nanstats.core.byte_bounds import truncate_max, truncate_min
from nanstats.prune.page_search import PageSearchResult, ValueInterval, search_pages


def _load_study() -> Any:
    """benchmarks/page_search_study.py, which holds the strict search (not in the package)."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks",
                        "page_search_study.py")
    spec = importlib.util.spec_from_file_location("page_search_study", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


strict_search = _load_study().strict_search

# ---------------------------------------------------------------- the oracle


def holds(q: ValueInterval, v: Any) -> bool:
    """Whether the value v satisfies the query (written out, not q.contains)."""
    if q.lo is not None and (v < q.lo or (v == q.lo and not q.lo_inclusive)):
        return False
    return not (q.hi is not None and (v > q.hi or (v == q.hi and not q.hi_inclusive)))


def query_is_empty(q: ValueInterval) -> bool:
    if q.lo is None or q.hi is None:
        return False
    return q.lo > q.hi or (q.lo == q.hi and not (q.lo_inclusive and q.hi_inclusive))


def bounds_oracle(
    mins: Sequence[Any], maxs: Sequence[Any], nulls: Sequence[bool], q: ValueInterval
) -> tuple[int, ...]:
    """Pages whose [min, max] meets the (non-empty) query: neither wholly below nor above."""
    if query_is_empty(q):
        return ()
    out = []
    for i, (lo, hi, null) in enumerate(zip(mins, maxs, nulls, strict=True)):
        if null:
            continue
        below = q.lo is not None and (hi < q.lo or (hi == q.lo and not q.lo_inclusive))
        above = q.hi is not None and (lo > q.hi or (lo == q.hi and not q.hi_inclusive))
        if not below and not above:
            out.append(i)
    return tuple(out)


def value_oracle(contents: Sequence[Sequence[Any]], q: ValueInterval) -> set[int]:
    """Pages that really hold a value of the query."""
    return {i for i, page in enumerate(contents) if any(holds(q, v) for v in page)}


# ------------------------------------------------------------- the page sets

SMALL_INTS = st.integers(-5, 25)  # few distinct values: duplicates and shared bounds
QUERY_INTS = st.integers(-8, 28)  # a little beyond the data on both sides


@dataclass
class Chunk:
    """Pages of a column chunk: contents (a null page is empty) and bounds.

    Null pages get None as bounds: a search that read one would raise.
    """

    contents: list[list[Any]]
    mins: list[Any]
    maxs: list[Any]

    @property
    def nulls(self) -> list[bool]:
        return [not c for c in self.contents]

    def search(self, q: ValueInterval, order: str = "ASCENDING", **kw: Any) -> PageSearchResult:
        if kw.get("algorithm") == "strict":
            del kw["algorithm"]
            return strict_search(self.mins, self.maxs, self.nulls, order, q, **kw)
        return search_pages(self.mins, self.maxs, self.nulls, order, q, **kw)


def exact(contents: list[list[Any]]) -> Chunk:
    return Chunk(
        contents,
        [min(c) if c else None for c in contents],
        [max(c) if c else None for c in contents],
    )


def with_nulls(draw: st.DrawFn, contents: list[list[Any]]) -> list[list[Any]]:
    out = list(contents)
    for at in draw(st.lists(st.integers(0, len(out)), max_size=4)):
        out.insert(min(at, len(out)), [])
    return out


@st.composite
def sorted_contents(
    draw: st.DrawFn, values: st.SearchStrategy[Any] = SMALL_INTS, max_size: int = 80
) -> list[list[Any]]:
    """Sorted values (duplicates likely) cut into pages, null pages interleaved."""
    data = sorted(draw(st.lists(values, max_size=max_size)))
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(data) - 1)), max_size=30)))
    bounds = [0, *(c for c in cuts if c < len(data)), len(data)]
    pages = [data[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
    return with_nulls(draw, pages)


@st.composite
def widened_chunks(draw: st.DrawFn) -> Chunk:
    """Any page contents (pages overlap freely) with bounds widened until the
    min list and the max list are each sorted: what ASCENDING allows."""
    contents = draw(st.lists(st.lists(SMALL_INTS, min_size=1, max_size=6), max_size=25))
    lo = [min(c) - draw(st.integers(0, 3)) for c in contents]
    hi = [max(c) + draw(st.integers(0, 3)) for c in contents]
    mins = [min(lo[i:]) for i in range(len(lo))]  # suffix minima: sorted, <= own min
    maxs = [max(hi[: i + 1]) for i in range(len(hi))]  # prefix maxima: sorted, >= own max
    chunk = Chunk(contents, mins, maxs)
    # Interleave null pages, keeping contents and bounds aligned.
    for at in draw(st.lists(st.integers(0, len(contents)), max_size=4)):
        at = min(at, len(chunk.contents))
        chunk.contents.insert(at, [])
        chunk.mins.insert(at, None)
        chunk.maxs.insert(at, None)
    return chunk


@st.composite
def queries(draw: st.DrawFn, values: st.SearchStrategy[Any] = QUERY_INTS) -> ValueInterval:
    lo, hi = draw(st.none() | values), draw(st.none() | values)
    if lo is not None and hi is not None and lo > hi and draw(st.integers(0, 4)):
        lo, hi = hi, lo  # mostly non-empty, sometimes empty
    return ValueInterval(lo, hi, draw(st.booleans()), draw(st.booleans()))


def max_binary_steps(chunk: Chunk) -> int:
    m = sum(not n for n in chunk.nulls)
    return 2 * math.ceil(math.log2(m + 1))


# ------------------------------------------------------------- properties


@given(sorted_contents(), queries())
def test_exact_bounds_of_sorted_data_every_search_is_the_oracle(contents, q) -> None:
    chunk = exact(contents)
    expected = bounds_oracle(chunk.mins, chunk.maxs, chunk.nulls, q)
    loose = chunk.search(q, algorithm="loose")
    strict = chunk.search(q, algorithm="strict")
    linear = chunk.search(q, "UNORDERED")
    assert loose.pages == strict.pages == linear.pages == expected
    assert value_oracle(contents, q) <= set(loose.pages)
    non_null = sum(not n for n in chunk.nulls)
    assert linear.algorithm == "linear"
    assert linear.steps == (0 if query_is_empty(q) else non_null)
    assert loose.steps <= max_binary_steps(chunk)
    assert strict.steps <= max_binary_steps(chunk)
    assert chunk.search(q).algorithm == "loose"  # auto on an ordered index


@given(sorted_contents(), queries())
def test_descending_is_the_mirror_of_ascending(contents, q) -> None:
    desc = exact([list(reversed(c)) for c in reversed(contents)])
    expected = bounds_oracle(desc.mins, desc.maxs, desc.nulls, q)
    for algorithm in ("loose", "strict"):
        r = desc.search(q, "DESCENDING", algorithm=algorithm)
        assert r.pages == expected
        assert r.steps <= max_binary_steps(desc)
    assert value_oracle(desc.contents, q) <= set(expected)


@given(widened_chunks(), queries())
def test_loose_is_exact_on_widened_overlapping_bounds(chunk, q) -> None:
    r = chunk.search(q)
    assert r.algorithm == "loose"
    assert r.pages == bounds_oracle(chunk.mins, chunk.maxs, chunk.nulls, q)
    assert value_oracle(chunk.contents, q) <= set(r.pages)  # no page with a match skipped
    assert r.steps <= max_binary_steps(chunk)
    # Reversed, the same bounds are a DESCENDING index.
    rev = search_pages(chunk.mins[::-1], chunk.maxs[::-1], chunk.nulls[::-1], "DESCENDING", q)
    n = len(chunk.contents)
    assert rev.pages == tuple(sorted(n - 1 - i for i in r.pages))
    chunk.search(q, check_order=True)  # the construction really is ASCENDING


BYTE_VALUES = st.lists(st.sampled_from([0x00, 0x01, 0x61, 0x62, 0xFE, 0xFF]), max_size=6).map(bytes)


@given(sorted_contents(BYTE_VALUES, max_size=60), queries(BYTE_VALUES), st.integers(0, 4))
def test_truncated_string_bounds_never_lose_a_page(contents, q, n) -> None:
    full = exact(contents)
    cut = Chunk(
        contents,
        [None if v is None else truncate_min(v, n)[0] for v in full.mins],
        [None if v is None else truncate_max(v, n)[0] for v in full.maxs],
    )
    cut.search(q, check_order=True)  # byte truncation keeps both lists sorted
    loose = cut.search(q)
    assert loose.pages == bounds_oracle(cut.mins, cut.maxs, cut.nulls, q)
    assert value_oracle(contents, q) <= set(loose.pages)
    # Never misses a page the strict search finds on the exact bounds.
    assert set(full.search(q, algorithm="strict").pages) <= set(loose.pages)


@given(sorted_contents(), queries())
def test_numpy_int64_keys_and_bool_arrays(contents, q) -> None:
    chunk = exact(contents)
    fill = np.iinfo(np.int64).min  # what a null page's bound might decode to
    mins = np.array([fill if v is None else v for v in chunk.mins], dtype=np.int64)
    maxs = np.array([fill if v is None else v for v in chunk.maxs], dtype=np.int64)
    r = search_pages(mins, maxs, np.array(chunk.nulls, dtype=bool), np.int32(1), q)
    assert r.pages == bounds_oracle(chunk.mins, chunk.maxs, chunk.nulls, q)
    assert r.mask().tolist() == [i in r.pages for i in range(len(contents))]


# ---------------------------------------------------------- chosen cases


def test_strict_misses_pages_of_overlapping_bounds_loose_does_not() -> None:
    # Legal ASCENDING bounds (each list sorted) whose pages overlap.
    mins, maxs, nulls = [0, 0, 4], [10, 10, 12], [False] * 3
    q = ValueInterval.point(5)
    assert search_pages(mins, maxs, nulls, "ASCENDING", q).pages == (0, 1, 2)
    # One probe of page 1 (0..10 straddles 5) "settles" both ends: pages 0 and 2 lost.
    assert strict_search(mins, maxs, nulls, "ASCENDING", q).pages == (1,)
    with pytest.raises(ValueError, match="strict search: pages 0 and 1 overlap"):
        strict_search(mins, maxs, nulls, "ASCENDING", q, check_order=True)


def test_strict_skips_a_page_of_truncated_bounds() -> None:
    # docs/page_search.rst: names truncated to one byte overlap; page 1 holds "Bob" too.
    pages = [[b"Ann", b"Ann"], [b"Ann", b"Bob"], [b"Bob", b"Cindy"], [b"Cindy", b"Ed"]]
    mins = [truncate_min(min(p), 1)[0] for p in pages]
    maxs = [truncate_max(max(p), 1)[0] for p in pages]
    q = ValueInterval.point(b"Bob")
    assert search_pages(mins, maxs, [False] * 4, "ASCENDING", q).pages == (1, 2)
    assert strict_search(mins, maxs, [False] * 4, "ASCENDING", q).pages == (2,)


def test_the_package_has_no_strict_search() -> None:
    with pytest.raises(ValueError, match="unknown algorithm 'strict'"):
        search_pages([1], [2], [False], "ASCENDING", ValueInterval.point(1), algorithm="strict")


def test_zero_pages_and_all_null_pages() -> None:
    q = ValueInterval.point(1)
    assert search_pages([], [], [], "ASCENDING", q) == PageSearchResult("loose", (), 0, 0)
    r = search_pages([None] * 3, [None] * 3, [True] * 3, "DESCENDING", q)
    assert (r.pages, r.steps, r.page_count) == ((), 0, 3)
    assert search_pages([None], [None], [True], "UNORDERED", q).steps == 0


def test_single_page() -> None:
    for v, pages in ((5, (0,)), (0, ()), (11, ()), (1, (0,)), (10, (0,))):
        r = search_pages([1], [10], [False], "ASCENDING", ValueInterval.point(v))
        assert r.pages == pages
        assert r.steps == 1
    r = search_pages([1], [10], [False], "ASCENDING", ValueInterval.greater_than(10))
    assert r.pages == ()


def test_many_pages_with_equal_bounds() -> None:
    m = 1000
    mins, maxs, nulls = [3] * m, [3] * m, [False] * m
    everything = search_pages(mins, maxs, nulls, "ASCENDING", ValueInterval.point(3))
    assert everything.pages == tuple(range(m))
    assert everything.steps <= 2 * math.ceil(math.log2(m + 1))
    for q in (ValueInterval.point(4), ValueInterval.less_than(3), ValueInterval.greater_than(3)):
        r = search_pages(mins, maxs, nulls, "ASCENDING", q)
        assert r.pages == ()
        assert r.steps <= math.ceil(math.log2(m + 1))


def test_unbounded_and_empty_queries_probe_nothing() -> None:
    mins, maxs, nulls = [1, 2, 3], [2, 3, 4], [False, True, False]
    r = search_pages(mins, maxs, nulls, "ASCENDING", ValueInterval.everything())
    assert (r.pages, r.steps) == ((0, 2), 0)
    for q in (ValueInterval(3, 2), ValueInterval(2, 2, lo_inclusive=False)):
        for order in ("ASCENDING", "UNORDERED"):
            assert search_pages(mins, maxs, nulls, order, q).to_dict() == {
                "algorithm": "loose" if order == "ASCENDING" else "linear",
                "pages": [],
                "steps": 0,
                "page_count": 3,
            }


def test_steps_grow_with_the_log_of_the_page_count() -> None:
    for m in (1, 2, 3, 7, 8, 1000, 4096, 100_000):
        mins = list(range(0, 2 * m, 2))
        maxs = [v + 1 for v in mins]
        for v in (-1, 0, m, 2 * m - 1, 2 * m + 5):
            r = search_pages(mins, maxs, [False] * m, "ASCENDING", ValueInterval.point(v))
            assert r.steps <= 2 * math.ceil(math.log2(m + 1))
            assert r.pages == (tuple([v // 2]) if 0 <= v < 2 * m else ())


def test_check_order_names_the_page_at_fault() -> None:
    nulls = [False, True, False, False]
    with pytest.raises(ValueError, match=r"max of page 3 \(5\) is out of order against page 2"):
        search_pages(
            [1, None, 2, 3],
            [6, None, 7, 5],
            nulls,
            "ASCENDING",
            ValueInterval.point(1),
            check_order=True,
        )
    with pytest.raises(ValueError, match=r"page 2: min 9 > max 7"):
        search_pages(
            [1, None, 9, 9],
            [6, None, 7, 9],
            nulls,
            "ASCENDING",
            ValueInterval.point(1),
            check_order=True,
        )
    with pytest.raises(
        ValueError, match=r"DESCENDING: min of page 0 \(1\) is out of order against page 2"
    ):
        search_pages(
            [1, None, 2],
            [6, None, 3],
            [False, True, False],
            "DESCENDING",
            ValueInterval.point(1),
            check_order=True,
        )


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (([1], [2, 3], [False], "ASCENDING"), {}, ValueError, "differ in length"),
        (([1], [2], [False, False], "ASCENDING"), {}, ValueError, "differ in length"),
        (([1], [2], [False], "SORTED"), {}, ValueError, "unknown boundary_order 'SORTED'"),
        (([1], [2], [False], 3), {}, ValueError, "unknown boundary_order 3"),
        (([1], [2], [False], True), {}, ValueError, "unknown boundary_order True"),
        (([1], [2], [False], ["ASCENDING"]), {}, ValueError, "unknown boundary_order"),
        (([1], [2], [False], "ASCENDING"), {"algorithm": "fast"}, ValueError, "unknown algorithm"),
        (([1], [2], [False], "UNORDERED"), {"algorithm": "loose"}, ValueError, "needs an ordered"),
        (([1], [2], [0], "ASCENDING"), {}, TypeError, "null_pages must be a list of booleans"),
    ],
)
def test_misuse_is_refused(args, kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        search_pages(*args, ValueInterval.point(1), **kwargs)


def test_strict_search_refuses_an_unordered_index() -> None:
    with pytest.raises(ValueError, match="needs an ordered"):
        strict_search([1], [2], [False], 0, ValueInterval.point(1))


def test_query_must_be_an_interval() -> None:
    with pytest.raises(TypeError, match="query must be a ValueInterval, not int"):
        search_pages([1], [2], [False], "ASCENDING", 1)  # type: ignore[arg-type]


def test_value_interval_constructors() -> None:
    assert ValueInterval.closed(1, 2) == ValueInterval(1, 2, True, True)
    assert ValueInterval.at_least(1) == ValueInterval(1, None)
    assert ValueInterval.at_most(1) == ValueInterval(None, 1)
    assert ValueInterval.less_than(1) == ValueInterval(None, 1, hi_inclusive=False)
    q = ValueInterval.greater_than(1)
    assert not q.contains(1) and q.contains(2) and not q.is_empty()
    assert ValueInterval.everything().contains(b"anything")
