"""Which pages of a column chunk may hold a value of a range: a search over
the per-page bounds of a ColumnIndex.

The page index (SPEC.md section 5) gives each page a lower and an upper bound
(``min_values[i]``, ``max_values[i]``), a ``null_pages[i]`` flag (a null page
has no bounds and holds no value) and a ``boundary_order``.  ``ASCENDING``
promises only that the min list and the max list are each non-decreasing
(null pages left out); it does NOT promise ``max[i] <= min[i + 1]``: bounds
may be widened (byte-array bounds are truncated, see
:mod:`nanstats.core.byte_bounds`) and pages of sorted data share values at
their edges.  Three searches:

``loose`` (the default for ordered indexes)
    relies on the two lists being sorted separately and nothing more.  The
    pages whose max reaches the range form a suffix of the (non-null) pages,
    the pages whose min does not pass it a prefix; the candidates are their
    intersection, found by binary search.  Exact for any bounds the index
    may legally hold.
``strict``
    additionally assumes disjoint pages, ``max[i] <= min[i + 1]`` (exact bounds
    of sorted data): a page that straddles an end of the range ends the
    search for that end at once.  A little shorter; WRONG (it can miss pages)
    when bounds overlap, which ``ASCENDING`` allows.  Kept for comparison.
``linear``
    examines every non-null page; the only choice for ``UNORDERED``.

A *step* is one probe of a page: comparing the range with that page's min
and/or max counts once, as in the study this module reproduces
(``benchmarks/page_search_study.py``).  A linear search takes one step per
non-null page.

Bounds are any mutually comparable values: Python or numpy integers (float
bounds as int64 totalOrder keys), or ``bytes`` (byte-wise order, Parquet's
order for strings).

>>> mins = [1, 3, 3, 8]
>>> maxs = [4, 5, 9, 9]
>>> r = search_pages(mins, maxs, [False] * 4, "ASCENDING", ValueInterval.point(4))
>>> r.pages, r.steps
((0, 1, 2), 4)
>>> search_pages(mins, maxs, [False] * 4, "UNORDERED", ValueInterval.point(4))
PageSearchResult(algorithm='linear', pages=(0, 1, 2), steps=4, page_count=4)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from nanstats.core.rules import BoundaryOrder
from nanstats.metadata.convert import BOUNDARY_ORDER_NAMES

SearchAlgorithm = Literal["auto", "loose", "strict", "linear"]

# ColumnIndex field 4 is a Thrift enum; accept its numbers as well as its names.
_BOUNDARY_ORDERS: dict[object, BoundaryOrder] = {
    **dict[object, BoundaryOrder](BOUNDARY_ORDER_NAMES.items()), **{name: name for name in BOUNDARY_ORDER_NAMES.values()}}
_ALGORITHMS = ("auto", "loose", "strict", "linear")


@dataclass(frozen=True)
class ValueInterval:
    """The values ``v`` with ``lo <= v <= hi``; an end is exclusive when its
    ``*_inclusive`` flag is False and unbounded when it is None.

    >>> q = ValueInterval.closed_open(3, 7)
    >>> q.contains(3), q.contains(7), q.lies_below(2), q.lies_above(7)
    (True, False, True, True)
    >>> ValueInterval.greater_than(b"Bob").contains(b"Bobby")
    True
    >>> ValueInterval(5, 5, hi_inclusive=False).is_empty()
    True
    """

    lo: Any = None
    hi: Any = None
    lo_inclusive: bool = True
    hi_inclusive: bool = True

    @classmethod
    def point(cls, value: Any) -> ValueInterval:
        """Exactly ``value`` (an equality predicate)."""
        return cls(value, value)

    @classmethod
    def closed(cls, lo: Any, hi: Any) -> ValueInterval:
        """``lo <= v <= hi``."""
        return cls(lo, hi)

    @classmethod
    def closed_open(cls, lo: Any, hi: Any) -> ValueInterval:
        """``lo <= v < hi``."""
        return cls(lo, hi, hi_inclusive=False)

    @classmethod
    def at_least(cls, lo: Any) -> ValueInterval:
        """``v >= lo``."""
        return cls(lo, None)

    @classmethod
    def greater_than(cls, lo: Any) -> ValueInterval:
        """``v > lo``."""
        return cls(lo, None, lo_inclusive=False)

    @classmethod
    def at_most(cls, hi: Any) -> ValueInterval:
        """``v <= hi``."""
        return cls(None, hi)

    @classmethod
    def less_than(cls, hi: Any) -> ValueInterval:
        """``v < hi``."""
        return cls(None, hi, hi_inclusive=False)

    @classmethod
    def everything(cls) -> ValueInterval:
        """Every value (no bound)."""
        return cls()

    def lies_below(self, x: Any) -> bool:
        """True when ``x`` is smaller than every value of the interval.

        A page whose max lies below the interval holds no value of it.
        """
        if self.lo is None:
            return False
        return bool(x < self.lo or (not self.lo_inclusive and x == self.lo))

    def lies_above(self, x: Any) -> bool:
        """True when ``x`` is larger than every value of the interval.

        A page whose min lies above the interval holds no value of it.
        """
        if self.hi is None:
            return False
        return bool(x > self.hi or (not self.hi_inclusive and x == self.hi))

    def contains(self, v: Any) -> bool:
        """Whether ``v`` is in the interval."""
        return not self.lies_below(v) and not self.lies_above(v)

    def is_empty(self) -> bool:
        """True when the ends exclude every value (``lo > hi``, or ``lo == hi``
        with an exclusive end).  A range empty only for a discrete type (such
        as ``(1, 2)`` for integers) counts as non-empty: being conservative
        costs a read, never a row."""
        if self.lo is None or self.hi is None:
            return False
        return bool(
            self.lo > self.hi
            or (self.lo == self.hi and not (self.lo_inclusive and self.hi_inclusive))
        )


@dataclass(frozen=True)
class PageSearchResult:
    """The pages that may hold a value of the range, and what finding them cost.

    ``pages`` are sorted indices into the column chunk's pages (null pages
    counted, never returned); ``steps`` the pages probed; ``page_count`` the
    number of pages of the chunk.

    >>> r = search_pages([0, 10], [9, 19], [False, False], "ASCENDING", ValueInterval.at_least(12))
    >>> r.pages, len(r), r.to_dict()["steps"]
    ((1,), 1, 2)
    """

    algorithm: Literal["loose", "strict", "linear"]
    pages: tuple[int, ...]
    steps: int
    page_count: int

    def __len__(self) -> int:
        return len(self.pages)

    def mask(self) -> npt.NDArray[np.bool_]:
        """A boolean per page of the chunk: True where the page must be read.

        >>> search_pages([0, 10], [9, 19], [False, False], "ASCENDING", ValueInterval.point(3)).mask()
        array([ True, False])
        """
        out = np.zeros(self.page_count, dtype=np.bool_)
        out[list(self.pages)] = True
        return out

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict (pages as a list)."""
        return {
            "algorithm": self.algorithm,
            "pages": list(self.pages),
            "steps": self.steps,
            "page_count": self.page_count,
        }


def search_pages(
    min_values: Sequence[Any] | npt.NDArray[Any],
    max_values: Sequence[Any] | npt.NDArray[Any],
    null_pages: Sequence[bool] | npt.NDArray[np.bool_],
    boundary_order: BoundaryOrder | int,
    query: ValueInterval,
    *,
    algorithm: SearchAlgorithm = "auto",
    check_order: bool = False,
) -> PageSearchResult:
    """The pages whose bounds intersect ``query``: those that may hold a value of it.

    ``boundary_order`` is ``'ASCENDING'``, ``'DESCENDING'`` or ``'UNORDERED'``
    (or the Thrift numbers 1, 2, 0).  ``algorithm='auto'`` picks ``loose`` for
    an ordered index and ``linear`` otherwise; ``loose`` and ``strict`` refuse
    an unordered index.  The bounds of null pages are never read.  With
    ``check_order=True`` the declared order is verified first (one pass; for
    ``strict`` also ``max[i] <= min[i + 1]``), raising ValueError where it
    does not hold; by default it is trusted, as readers do.

    >>> nulls = [False, True, False, False, False]
    >>> mins = [b"Ann", b"", b"Bo", b"Ci", b"Ed"]       # truncated bounds
    >>> maxs = [b"Bp", b"", b"Cj", b"Ee", b"Gz"]
    >>> r = search_pages(mins, maxs, nulls, "ASCENDING", ValueInterval.point(b"Cindy"))
    >>> r.pages
    (2, 3)
    >>> search_pages(mins, maxs, nulls, "ASCENDING", ValueInterval.less_than(b"Bo")).pages
    (0,)
    >>> desc = search_pages([9, 5, 1], [12, 9, 4], [False] * 3, "DESCENDING",
    ...                     ValueInterval.closed(6, 9))
    >>> desc.pages
    (0, 1)
    >>> search_pages([1], [2, 3], [False], "ASCENDING", ValueInterval.point(1))
    Traceback (most recent call last):
    ...
    ValueError: page index lists differ in length: 1 min_values, 2 max_values, 1 null_pages
    """
    known = _hashable(boundary_order) and not isinstance(boundary_order, bool)
    order = _BOUNDARY_ORDERS.get(boundary_order) if known else None
    if order is None:
        raise ValueError(
            f"unknown boundary_order {boundary_order!r}: expected 'ASCENDING', "
            "'DESCENDING', 'UNORDERED' (or 1, 2, 0)"
        )
    if algorithm not in _ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}: expected one of {_ALGORITHMS}")
    n = len(null_pages)
    if not len(min_values) == len(max_values) == n:
        raise ValueError(
            f"page index lists differ in length: {len(min_values)} min_values, "
            f"{len(max_values)} max_values, {n} null_pages"
        )
    if not isinstance(query, ValueInterval):
        raise TypeError(f"query must be a ValueInterval, not {type(query).__name__}")
    chosen: Literal["loose", "strict", "linear"]
    if algorithm == "auto":
        chosen = "linear" if order == "UNORDERED" else "loose"
    else:
        chosen = algorithm
    if chosen != "linear" and order == "UNORDERED":
        raise ValueError(
            f"a {chosen} binary search needs an ordered page index; "
            "boundary_order is UNORDERED (use algorithm='linear' or 'auto')"
        )

    null = np.asarray(null_pages)
    if null.size == 0:  # np.asarray([]) is float64
        null = null.astype(np.bool_)
    if null.ndim != 1 or null.dtype != np.bool_:
        raise TypeError(
            f"null_pages must be a list of booleans, not {null.dtype} of shape {null.shape}"
        )
    # The non-null pages, in ascending order of their bounds: reversed, a
    # descending index is an ascending one.  Bounds are read in place, through
    # these positions, never copied: a binary search reads few of them.
    at: Sequence[int] = range(n) if not null.any() else np.flatnonzero(~null).tolist()
    if order == "DESCENDING":
        at = at[::-1]
    view = _Bounds(min_values, max_values, at)
    if check_order:
        _check_order(view, order, strict=chosen == "strict")

    if query.is_empty() or not at:
        return PageSearchResult(chosen, (), 0, n)
    if chosen == "linear":
        hit = [
            at[p]
            for p in range(len(at))
            if not query.lies_below(view.max(p)) and not query.lies_above(view.min(p))
        ]
        return PageSearchResult(chosen, tuple(sorted(hit)), len(at), n)
    first, last, steps = _bisect(view, query, strict=chosen == "strict")
    return PageSearchResult(chosen, tuple(sorted(at[first : last + 1])), steps, n)


class _Bounds:
    """The bounds of the non-null pages by position ``p`` (ascending order)."""

    __slots__ = ("_at", "_maxs", "_mins")

    def __init__(self, mins: Any, maxs: Any, at: Sequence[int]) -> None:
        self._mins, self._maxs, self._at = mins, maxs, at

    def __len__(self) -> int:
        return len(self._at)

    def min(self, p: int) -> Any:
        return self._mins[self._at[p]]

    def max(self, p: int) -> Any:
        return self._maxs[self._at[p]]

    def page(self, p: int) -> int:
        return self._at[p]


def _bisect(bounds: _Bounds, query: ValueInterval, *, strict: bool) -> tuple[int, int, int]:
    """Positions ``first..last`` (inclusive; empty when first > last) of the
    ascending bounds that intersect ``query``, and the number of probes.

    ``first`` is the first position whose max does not lie below the query
    (``len`` if none); ``last`` the last whose min does not lie above it (-1
    if none).  Sorted max list: every position from ``first`` on qualifies;
    sorted min list: every position up to ``last`` does.  Each probe reads one
    page's min and max and narrows both searches; ``first`` is searched, then
    ``last`` in what is left.
    """
    m = len(bounds)
    f_lo, f_hi = 0, m  # first in [f_lo, f_hi]
    l_lo, l_hi = -1, m - 1  # last in [l_lo, l_hi]
    if query.lo is None:
        f_hi = 0
    if query.hi is None:
        l_lo = m - 1
    steps = 0
    while f_lo < f_hi or l_lo < l_hi:
        if f_lo > l_hi:  # first > last: nothing can match
            break
        p = (f_lo + f_hi) // 2 if f_lo < f_hi else (l_lo + l_hi + 1) // 2
        steps += 1
        below = query.lies_below(bounds.max(p))
        above = query.lies_above(bounds.min(p))
        if below:
            f_lo = max(f_lo, p + 1)
        else:
            f_hi = min(f_hi, p)
        if above:
            l_hi = min(l_hi, p - 1)
        else:
            l_lo = max(l_lo, p)
        if strict:
            # Disjoint pages: max[p - 1] <= min[p] and max[p] <= min[p + 1], so
            # a page straddling an end of the query settles that end.
            if query.lies_below(bounds.min(p)):
                f_lo = max(f_lo, p)
            if query.lies_above(bounds.max(p)):
                l_hi = min(l_hi, p)
    return f_lo, l_hi, steps


def _check_order(bounds: _Bounds, order: BoundaryOrder, *, strict: bool) -> None:
    """Raise ValueError at the first page whose bounds break the declared order."""
    if order == "UNORDERED":
        return
    for p in range(len(bounds)):
        if bounds.min(p) > bounds.max(p):
            raise ValueError(
                f"page {bounds.page(p)}: min {bounds.min(p)!r} > max {bounds.max(p)!r}"
            )
    for p in range(1, len(bounds)):
        for name, get in (("min", bounds.min), ("max", bounds.max)):
            if get(p - 1) > get(p):
                raise ValueError(
                    f"boundary_order {order}: {name} of page {bounds.page(p)} ({get(p)!r}) "
                    f"is out of order against page {bounds.page(p - 1)} ({get(p - 1)!r})"
                )
        if strict and bounds.max(p - 1) > bounds.min(p):
            raise ValueError(
                f"strict search: pages {bounds.page(p - 1)} and {bounds.page(p)} overlap "
                f"(max {bounds.max(p - 1)!r} > min {bounds.min(p)!r})"
            )


def _hashable(x: object) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True
