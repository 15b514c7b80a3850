"""The planner: row groups and pages judged from any source of statistics.

A :class:`~nanstats.prune.source.StatisticsSource` says what each row
group's chunk statistics allow for each column, and per column the pages
(first rows and abstractions) with the keys of their bounds and their
boundary order.

Pages of different columns start at different rows, so a row group is cut
into *segments* at every page start of the columns a predicate reads; in a
segment each column lies in one page, and the predicate is evaluated over
those pages' abstractions.  When a column's pages are sorted (ASCENDING or
DESCENDING) and the predicate implies an interval for it, a binary search
over the separately sorted min and max lists (the loose assumption, so
widened bounds stay correct) passes over the pages that cannot match.

>>> import numpy as np
>>> from nanstats.prune.expressions import col
>>> from nanstats.prune.sources import StatsSource
>>> x = np.r_[np.arange(8.0), np.nan, np.nan]     # row group 1: 5 6 | 7 nan | nan
>>> src = StatsSource.from_arrays({"x": x}, row_group_rows=5, page_rows=2)
>>> plan(src, col("x") >= 3.5, "total_order").selection.ranges   # +NaN is above 3.5
{0: ((4, 5),), 1: ((0, 5),)}
>>> plan(src, col("x") >= 3.5, "ieee").selection.ranges          # NaN compares false
{0: ((4, 5),), 1: ((0, 4),)}
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from nanstats.core.abstraction import ColumnAbstract
from nanstats.core.rules import boundary_order
from nanstats.prune.abstract import truth
from nanstats.prune.abstract_arrays import AbstractArrays, Unsupported, may_be_true
from nanstats.prune.constraints import Key, Need, necessary
from nanstats.prune.expressions import Expr
from nanstats.prune.page_search import ValueInterval, search_pages
from nanstats.prune.profiles import EngineProfile, profile
from nanstats.prune.results import (
    ColumnSearch,
    PageStats,
    PruneReport,
    Ranges,
    RowGroupDecision,
    RowSelection,
    SegmentDecision,
)
from nanstats.prune.source import StatisticsSource

__all__ = ["plan"]

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
S = TypeVar("S", bound=Sequence)  # type: ignore[type-arg]
V = TypeVar("V")


def _describe(env: dict[str, ColumnAbstract]) -> str:
    return "; ".join(f"{n} {_short(a)}" for n, a in env.items())


def _short(a: ColumnAbstract) -> str:
    parts = []
    if a.may_value:
        lo = "-" if a.lo is None else repr(a.lo)
        hi = "+" if a.hi is None else repr(a.hi)
        parts.append(f"in [{lo}, {hi}]")
    if a.may_pos_nan and a.may_neg_nan:
        parts.append("NaN")
    elif a.may_pos_nan or a.may_neg_nan:
        parts.append("+NaN" if a.may_pos_nan else "-NaN")
    if a.may_null:
        parts.append("null")
    return " or ".join(parts) if parts else "no rows"


def _verdict(pred: Expr, env: dict[str, ColumnAbstract], semantics: EngineProfile,
             what: str) -> tuple[bool, str]:
    t = truth(pred, env, semantics)
    if True in t:
        return True, f"{what} allow a match ({_describe(env)})"
    outcomes = ", ".join(sorted({"null" if v is None else str(v).lower() for v in t}))
    return False, (f"{what}: {_describe(env)}, so the predicate is "
                   f"{outcomes or 'never evaluated (no rows)'}")


@dataclass
class _ColumnPages:
    starts: Sequence[int]
    abstracts: Sequence[ColumnAbstract]
    search: ColumnSearch
    candidate: Sequence[bool] | Bools


def _interval(need: Need) -> ValueInterval:
    return ValueInterval(need.lo, need.hi, lo_inclusive=need.lo_inclusive,
                         hi_inclusive=need.hi_inclusive)


class _ByIdentity(Generic[S, V]):
    """Values built from sequences, kept by the sequence's identity (the sequence
    is held, so its id stays its own): a source's page index, turned into arrays
    once for all the plans over it.  Only sequences of ``min_len`` or more are
    kept (a page index worth keeping), ``limit`` of them (then it starts again).
    """

    def __init__(self, build: Callable[[S], V], limit: int = 20_000, min_len: int = 8) -> None:
        self._build, self._limit, self._min_len = build, limit, min_len
        self._kept: dict[int, tuple[S, V]] = {}

    def __call__(self, seq: S) -> V:
        hit = self._kept.get(id(seq))
        if hit is not None and hit[0] is seq:
            return hit[1]
        value = self._build(seq)
        if len(seq) >= self._min_len:
            if len(self._kept) >= self._limit:
                self._kept.clear()
            self._kept[id(seq)] = (seq, value)
        return value


def _float_keys(keys: Sequence[tuple[Key, Key] | None]) -> tuple[Ints, Ints, Bools]:
    """Pages' float (min, max) totalOrder keys as arrays, and which pages have them."""
    n = len(keys)
    lo, hi, has = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, np.bool_)
    for i, k in enumerate(keys):
        if k is not None:
            lo[i], hi[i] = k
            has[i] = True
    return lo, hi, has


def _float_orders(keys: Sequence[tuple[Key, Key] | None]) -> frozenset[str]:
    """The boundary orders a float page index's keys hold (its non-null pages,
    each min at most its max), as ``search_pages``' ``check_order`` checks
    them, over the arrays at once: ASCENDING, DESCENDING, both or neither."""
    lo, hi, has = _key_arrays(keys)
    lo, hi = lo[has], hi[has]
    if bool(np.any(lo > hi)):
        return frozenset()
    up = boundary_order(lo, hi) == "ASCENDING"
    down = boundary_order(lo[::-1], hi[::-1]) == "ASCENDING"
    return frozenset(o for o, ok in (("ASCENDING", up), ("DESCENDING", down)) if ok)


def _starts_array(starts: Sequence[int]) -> tuple[Ints, bool]:
    """Pages' first rows as an array, and whether they ascend (and there are any)."""
    x = np.asarray(starts, dtype=np.int64)
    return x, len(x) > 0 and not (len(x) > 1 and bool(np.any(np.diff(x) < 0)))


#: Page abstractions (and float page keys, and first rows) as arrays, by their sequence.
_arrays: _ByIdentity[Sequence[ColumnAbstract], AbstractArrays] = _ByIdentity(AbstractArrays.of)
_key_arrays: _ByIdentity[Sequence[tuple[Key, Key] | None], tuple[Ints, Ints, Bools]] = \
    _ByIdentity(_float_keys)
_starts: _ByIdentity[Sequence[int], tuple[Ints, bool]] = _ByIdentity(_starts_array)
_orders: _ByIdentity[Sequence[tuple[Key, Key] | None], frozenset[str]] = \
    _ByIdentity(_float_orders)


def _special(need: Need, a: AbstractArrays) -> Bools:
    """Pages that may hold a NaN or a null the need admits (found from the counts)."""
    out = np.zeros(len(a.may_value), dtype=np.bool_)
    if need.pos_nan:
        out |= a.may_pos_nan
    if need.neg_nan:
        out |= a.may_neg_nan
    if need.null:
        out |= a.may_null
    return out


def _admitted(need: Need, a: AbstractArrays, keys: tuple[Ints, Ints, Bools]) -> Bools:
    """:meth:`Need.admits` of every page at once (float pages, their keys as arrays)."""
    lo, hi, has = keys
    ok = a.may_value & ~has  # a number of unknown bounds
    if need.values:
        fits = a.may_value & has
        if need.hi is not None:
            fits &= (lo < need.hi) | ((lo == need.hi) & need.hi_inclusive)
        if need.lo is not None:
            fits &= (hi > need.lo) | ((hi == need.lo) & need.lo_inclusive)
        ok |= fits
    return ok | _special(need, a)


def _page_arrays(ps: PageStats) -> tuple[AbstractArrays, tuple[Ints, Ints, Bools]] | None:
    """A float column's page abstractions and keys as arrays, None when not expressible."""
    if ps.kind != "float" or ps.keys is None or len(ps.abstracts) < 8:
        return None
    try:
        return _arrays(ps.abstracts), _key_arrays(ps.keys)
    except (Unsupported, TypeError, OverflowError):
        return None


def _search_column(name: str, chunk: ColumnAbstract, ps: PageStats | None, pred: Expr,
                   semantics: EngineProfile,
                   needs: dict[tuple[str, str], Need | None] | None = None) -> _ColumnPages:
    if ps is None:
        return _ColumnPages([0], [chunk], ColumnSearch(name, 1, "none", 0, 1, "no page index"),
                            [True])
    pages = ps.abstracts
    n = len(pages)
    need: Need | None = None
    if ps.kind in ("float", "int", "bytes"):
        if needs is None:
            need = necessary(pred, name, semantics, ps.kind)
        else:  # the same for every row group: computed once per plan
            if (name, ps.kind) not in needs:
                needs[name, ps.kind] = necessary(pred, name, semantics, ps.kind)
            need = needs[name, ps.kind]
    note = ps.note
    if need is not None and ps.boundary_order != "UNORDERED" and ps.keys is not None:
        keys = ps.keys
        arrays = _page_arrays(ps)
        found = None
        if arrays is not None:
            # A float index: its keys as arrays and the orders they hold, once
            # per index; each search reads a few keys.
            lo, hi, has = arrays[1]
            if ps.boundary_order in _orders(keys):
                found = search_pages(lo, hi, ~has, ps.boundary_order, _interval(need),
                                     algorithm="loose")
        else:
            try:
                found = search_pages([None if k is None else k[0] for k in keys],
                                     [None if k is None else k[1] for k in keys],
                                     [k is None for k in keys], ps.boundary_order,
                                     _interval(need), algorithm="loose", check_order=True)
            except ValueError:
                pass
        if found is not None:
            marks = np.zeros(n, dtype=np.bool_)
            if need.values:
                marks[list(found.pages)] = True
            # NaN and null pages are found from the counts, not the bounds.
            if arrays is not None:
                marks |= _special(need, arrays[0])
            else:  # few pages, or not float: their flags one by one
                marks |= np.array([(need.pos_nan and p.may_pos_nan)
                                   or (need.neg_nan and p.may_neg_nan)
                                   or (need.null and p.may_null) for p in pages], dtype=np.bool_)
            return _ColumnPages(ps.starts, pages, ColumnSearch(
                name, n, "binary", found.steps if need.values else 0, int(marks.sum()), note),
                marks)
        note = "bounds not sorted as the index claims; searched linearly"
    if need is None:
        return _ColumnPages(ps.starts, pages, ColumnSearch(
            name, n, "linear", n, n, note or "no interval to search for"), [True] * n)
    arrays = _page_arrays(ps)
    if arrays is not None:
        admitted = _admitted(need, *arrays)
        return _ColumnPages(ps.starts, pages, ColumnSearch(
            name, n, "linear", n, int(admitted.sum()), note), admitted)
    cand = [need.admits(p, ps.keys[i] if ps.keys is not None else None)
            for i, p in enumerate(pages)]
    return _ColumnPages(ps.starts, pages, ColumnSearch(name, n, "linear", n, sum(cand), note),
                        cand)


def _merge(ranges: list[tuple[int, int]]) -> Ranges:
    out: list[list[int]] = []
    for a, b in ranges:
        if out and out[-1][1] == a:
            out[-1][1] = b
        else:
            out.append([a, b])
    return tuple((a, b) for a, b in out)


def _batch_verdicts(groups: list[tuple[dict[str, _ColumnPages], int]], pred: Expr,
                    semantics: EngineProfile) -> list[list[tuple[int, int]]] | None:
    """The kept segments of each row group, every segment of them all judged at once.

    ``groups`` holds each row group's columns (pages and search candidates)
    and row count.  The verdicts of the per-segment loop of
    :func:`_row_group`; None when the arrays cannot say the predicate or
    some column's pages (that loop then runs).
    """
    if not groups or not groups[0][0]:
        return None
    names = list(groups[0][0])
    cut_list: list[np.ndarray] = []
    at: dict[str, list[np.ndarray]] = {n: [] for n in names}
    chosen: dict[str, list[np.ndarray]] = {n: [] for n in names}
    offsets = dict.fromkeys(names, 0)
    arrays: dict[str, list[AbstractArrays]] = {n: [] for n in names}
    for cols, rows in groups:
        starts = {}
        for n, c in cols.items():
            starts[n], ascending = _starts(c.starts)
            if not ascending:
                return None
        cuts = np.unique(np.concatenate([*starts.values(),
                                         np.array([0, rows], dtype=np.int64)]))
        cut_list.append(cuts)
        first = cuts[:-1]
        for n, c in cols.items():
            try:
                arrays[n].append(_arrays(c.abstracts))
            except Unsupported:
                return None
            page = np.maximum(np.searchsorted(starts[n], first, side="right") - 1, 0)
            chosen[n].append(np.asarray(c.candidate, dtype=np.bool_)[page])
            at[n].append(page + offsets[n])
            offsets[n] += len(c.abstracts)
    keep = np.ones(sum(len(c) - 1 for c in cut_list), dtype=np.bool_)
    env: dict[str, AbstractArrays] = {}
    for n in names:
        keep &= np.concatenate(chosen[n])
        whole = arrays[n][0] if len(arrays[n]) == 1 else AbstractArrays.concat(arrays[n])
        env[n] = whole.take(np.concatenate(at[n]))
    try:
        keep &= may_be_true(pred, env, semantics)
    except Unsupported:
        return None
    out: list[list[tuple[int, int]]] = []
    base = 0
    for cuts in cut_list:
        count = len(cuts) - 1
        out.append([(int(cuts[i]), int(cuts[i + 1]))
                    for i in np.flatnonzero(keep[base:base + count])])
        base += count
    return out


def _chunk(src: StatisticsSource, g: int, names: Sequence[str], pred: Expr,
           semantics: EngineProfile, needs: dict[tuple[str, str], Need | None] | None = None
           ) -> tuple[int, str, dict[str, _ColumnPages] | None]:
    """A row group's rows, the chunk verdict's reason, and its columns' pages when kept."""
    rows = src.num_rows(g)
    env = src.chunk_env(g, names)
    kept, reason = _verdict(pred, env, semantics, "chunk statistics")
    if not kept or rows == 0:
        return rows, reason if not kept else "no rows", None
    return rows, reason, {n: _search_column(n, env[n], src.page_stats(g, n), pred, semantics,
                                            needs) for n in names}


def _decided(g: int, rows: int, reason: str, cols: dict[str, _ColumnPages],
             kept_ranges: list[tuple[int, int]], segments: Sequence[SegmentDecision] = ()
             ) -> tuple[RowGroupDecision, Ranges]:
    searches = tuple(c.search for c in cols.values())
    merged = _merge(kept_ranges)
    if not merged:
        return RowGroupDecision(g, rows, False, "no page may match", searches,
                                tuple(segments)), ()
    return RowGroupDecision(g, rows, True, reason, searches, tuple(segments)), merged


def _row_group(src: StatisticsSource, g: int, names: Sequence[str], pred: Expr,
               semantics: EngineProfile, detail: bool,
               needs: dict[tuple[str, str], Need | None] | None = None,
               chunk: tuple[int, str, dict[str, _ColumnPages] | None] | None = None
               ) -> tuple[RowGroupDecision, Ranges]:
    rows, reason, found = chunk if chunk is not None else \
        _chunk(src, g, names, pred, semantics, needs)
    if found is None:
        return RowGroupDecision(g, rows, False, reason), ()
    cols = found
    # Row 0 always starts a segment (a predicate that reads no column has no pages).
    cuts = sorted({s for c in cols.values() for s in c.starts} | {0, rows})
    idx = dict.fromkeys(cols, 0)
    segments: list[SegmentDecision] = []
    kept_ranges: list[tuple[int, int]] = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        env_seg: dict[str, ColumnAbstract] = {}
        pages: dict[str, int] = {}
        excluded = ""
        for n, c in cols.items():
            while idx[n] + 1 < len(c.starts) and c.starts[idx[n] + 1] <= a:
                idx[n] += 1
            i = idx[n]
            pages[n] = i
            env_seg[n] = c.abstracts[i]
            if not c.candidate[i] and not excluded:
                excluded = f"{n} page {i} is outside the searched interval"
        if excluded:
            ok, why = False, excluded
        else:
            ok, why = _verdict(pred, env_seg, semantics, "page statistics")
        if ok:
            kept_ranges.append((a, b))
        if detail:
            segments.append(SegmentDecision(a, b - a, pages, ok, why))
    return _decided(g, rows, reason, cols, kept_ranges, segments)


def plan(source: StatisticsSource, predicate: Expr, semantics: str | EngineProfile, *,
         detail: bool = True, name: str = "") -> PruneReport:
    """Judge every row group and segment of a source (see the module example).

    ``semantics`` is an engine profile or its name; literals compared with
    float16/float32 columns must already be typed as the profile says
    (:func:`nanstats.prune.binding.bind`; ``nanstats.prune.pages`` does it).

    >>> import numpy as np
    >>> from nanstats.prune.expressions import col
    >>> from nanstats.prune.sources import StatsSource
    >>> src = StatsSource.from_arrays({"x": np.arange(10.0)}, row_group_rows=5, page_rows=1)
    >>> report = plan(src, col("x") == 6.0, "ieee")
    >>> report.selection.ranges, report.row_groups[1].searches[0].steps
    ({1: ((1, 2),)}, 3)
    """
    prof = profile(semantics)
    names = sorted(predicate.columns())
    decisions: list[RowGroupDecision] = []
    ranges: dict[int, Ranges] = {}
    total = 0
    needs: dict[tuple[str, str], Need | None] = {}
    chunks = [_chunk(source, g, names, predicate, prof, needs)
              for g in range(source.num_row_groups)]
    # Without detail, every segment of every kept row group is judged in one
    # pass over arrays (the same verdicts, without a Python call per segment).
    kept = [(g, c) for g, c in enumerate(chunks) if c[2] is not None]
    batch = None if detail else _batch_verdicts(
        [(c[2], c[0]) for _, c in kept], predicate, prof)  # type: ignore[misc]
    fast = {g: found for (g, _), found in zip(kept, batch, strict=True)} if batch else {}
    for g, chunk in enumerate(chunks):
        total += chunk[0]
        if g in fast:
            assert chunk[2] is not None
            decision, merged = _decided(g, chunk[0], chunk[1], chunk[2], fast[g])
        else:
            decision, merged = _row_group(source, g, names, predicate, prof, detail, needs,
                                          chunk)
        if merged:
            ranges[g] = merged
        decisions.append(decision)
    return PruneReport(name, repr(predicate), prof.name, tuple(decisions),
                       RowSelection(ranges, total))
