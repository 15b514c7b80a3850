"""The pruning engine: row groups and pages judged from any source of statistics.

A :class:`ScopeSource` says, for each row group, what its chunk statistics
allow for each column, and, per column, the pages (first rows and
abstractions) with the keys of their bounds and their boundary order.
Sources: Parquet footers and page indexes
(:class:`nanstats.prune.files.FileSource`), and exact
:class:`~nanstats.core.stats.ColumnStats` (:class:`StatsSource`, which knows NaN
signs; used for the statistics table of a lake).

Pages of different columns start at different rows, so a row group is cut
into *segments* at every page start of the columns a predicate reads; in a
segment each column lies in one page, and the predicate is evaluated over
those pages' abstractions.  When a column's pages are sorted (ASCENDING or
DESCENDING) and the predicate implies an interval for it, a binary search
over the separately sorted min and max lists (the loose assumption, so
widened bounds stay correct) passes over the pages that cannot match.

>>> import numpy as np, nanstats
>>> from nanstats.prune.expressions import col
>>> x = np.r_[np.arange(8.0), np.nan, np.nan]     # row group 1: 5 6 | 7 nan | nan
>>> src = StatsSource.from_arrays({"x": x}, row_group_rows=5, page_rows=2)
>>> plan(src, col("x") >= 3.5, "total_order").selection.ranges   # +NaN is above 3.5
{0: ((4, 5),), 1: ((0, 5),)}
>>> plan(src, col("x") >= 3.5, "ieee").selection.ranges          # NaN compares false
{0: ((4, 5),), 1: ((0, 4),)}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from nanstats.core.floats import float_key
from nanstats.core.stats import ColumnStats
from nanstats.prune.abstract import ColumnAbstract, truth
from nanstats.prune.constraints import Key, Need, necessary
from nanstats.prune.expressions import Expr
from nanstats.prune.page_search import ValueInterval, search_pages
from nanstats.prune.reading_rules import from_column_stats
from nanstats.prune.semantics import NanSemantics

BoundaryOrder = Literal["ASCENDING", "DESCENDING", "UNORDERED"]
Ranges = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class RowSelection:
    """Rows to read, per row group: half-open ``(start, stop)`` ranges within the group.

    Row groups that are skipped entirely do not appear.

    >>> from nanstats.prune.expressions import col
    >>> src = StatsSource.from_arrays({"x": np.arange(100.0)}, row_group_rows=50, page_rows=10)
    >>> sel = plan(src, (col("x") >= 55) & (col("x") < 72), "ieee").selection
    >>> sel, sel.ranges, sel.row_groups, sel.num_rows
    (RowSelection(30 of 100 rows in 1 row groups), {1: ((0, 30),)}, [1], 30)
    """

    ranges: dict[int, Ranges]
    total_rows: int

    @property
    def row_groups(self) -> list[int]:
        """The row groups with something to read."""
        return sorted(self.ranges)

    @property
    def num_rows(self) -> int:
        """Rows selected."""
        return sum(b - a for rs in self.ranges.values() for a, b in rs)

    def to_dict(self) -> dict[str, Any]:
        """Plain Python objects."""
        return {"ranges": {g: [list(r) for r in rs] for g, rs in self.ranges.items()},
                "total_rows": self.total_rows, "num_rows": self.num_rows}

    def __repr__(self) -> str:
        return (f"RowSelection({self.num_rows:,} of {self.total_rows:,} rows in "
                f"{len(self.ranges)} row groups)")


@dataclass(frozen=True)
class ColumnSearch:
    """How one column's pages were searched in one row group.

    >>> from nanstats.prune.expressions import col
    >>> src = StatsSource.from_arrays({"x": np.arange(100.0)}, row_group_rows=50, page_rows=10)
    >>> plan(src, col("x") == 73.0, "ieee").row_groups[1].searches
    (ColumnSearch(column='x', pages=5, method='binary', steps=3, candidates=1, note=''),)
    """

    column: str
    pages: int
    method: str  # 'binary', 'linear' or 'none' (no usable page index)
    steps: int
    candidates: int
    note: str = ""


@dataclass(frozen=True)
class SegmentDecision:
    """One run of rows in which each column lies in one page.

    >>> from nanstats.prune.expressions import col
    >>> src = StatsSource.from_arrays({"x": np.arange(20.0)}, row_group_rows=20, page_rows=10)
    >>> [(s.first_row, s.kept) for s in plan(src, col("x") > 12.0, "ieee").row_groups[0].segments]
    [(0, False), (10, True)]
    """

    first_row: int
    num_rows: int
    pages: dict[str, int]
    kept: bool
    reason: str


@dataclass(frozen=True)
class RowGroupDecision:
    """The verdict on one row group and, when kept, on its segments.

    >>> from nanstats.prune.expressions import col
    >>> src = StatsSource.from_arrays({"x": np.arange(20.0)}, row_group_rows=10, page_rows=5)
    >>> [(d.row_group, d.kept, d.steps) for d in plan(src, col("x") > 12.0, "ieee").row_groups]
    [(0, False, 0), (1, True, 2)]
    """

    row_group: int
    num_rows: int
    kept: bool
    reason: str
    searches: tuple[ColumnSearch, ...] = ()
    segments: tuple[SegmentDecision, ...] = ()

    @property
    def steps(self) -> int:
        """Page-search steps taken in this row group."""
        return sum(s.steps for s in self.searches)


@dataclass(frozen=True)
class PruneReport:
    """Why each scope of a file was kept or skipped (see ``skipping.explain``).

    >>> from nanstats.prune.expressions import col
    >>> src = StatsSource.from_arrays({"x": np.arange(20.0)}, row_group_rows=10, page_rows=5)
    >>> print(plan(src, col("x") > 14.5, "ieee", name="example"))  # doctest: +NORMALIZE_WHITESPACE
    example: (x > 14.5) under ieee: read 5 of 20 rows, 1 of 2 row groups
      row group 0 (10 rows): skip, chunk statistics: x in [0.0, 9.0], so the predicate is false
      row group 1 (10 rows): keep, chunk statistics allow a match (x in [10.0, 19.0])
        x: binary search over 2 pages, 2 steps, 1 candidates
        rows 0..5 (x page 0): skip, x page 0 is outside the searched interval
        rows 5..10 (x page 1): keep, page statistics allow a match (x in [15.0, 19.0])
    """

    path: str
    predicate: str
    semantics: NanSemantics
    row_groups: tuple[RowGroupDecision, ...]
    selection: RowSelection = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain Python objects, for JSON."""
        d = asdict(self)
        d["selection"] = self.selection.to_dict()
        return d

    def __str__(self) -> str:
        total = self.selection.total_rows
        lines = [f"{self.path}: {self.predicate} under {self.semantics}: read "
                 f"{self.selection.num_rows:,} of {total:,} rows, "
                 f"{len(self.selection.ranges)} of {len(self.row_groups)} row groups"]
        for rg in self.row_groups:
            verdict = "keep" if rg.kept else "skip"
            lines.append(f"  row group {rg.row_group} ({rg.num_rows:,} rows): {verdict}, "
                         f"{rg.reason}")
            for s in rg.searches:
                lines.append(f"    {s.column}: {s.method} search over {s.pages} pages, "
                             f"{s.steps} steps, {s.candidates} candidates"
                             + (f" ({s.note})" if s.note else ""))
            for seg in rg.segments:
                pages = ", ".join(f"{c} page {p}" for c, p in seg.pages.items())
                lines.append(f"    rows {seg.first_row}..{seg.first_row + seg.num_rows} "
                             f"({pages}): {'keep' if seg.kept else 'skip'}, {seg.reason}")
        return "\n".join(lines)


@dataclass(frozen=True)
class PageStats:
    """The pages of one column chunk, as a source knows them.

    ``keys`` holds per page the (min, max) keys of its bounds in the
    column's order (float64 totalOrder keys for floats; NaN bounds of
    all-NaN pages keep their place at either end), None for a null page;
    ``keys`` is None when some page has no usable bounds (no search then).
    ``boundary_order`` is what the source claims; it is checked before a
    binary search relies on it.
    """

    starts: Sequence[int]
    abstracts: Sequence[ColumnAbstract]
    keys: Sequence[tuple[Key, Key] | None] | None
    boundary_order: BoundaryOrder
    kind: str = "float"
    note: str = ""


class ScopeSource(Protocol):
    """Where the engine gets statistics from (see the module docs)."""

    @property
    def num_row_groups(self) -> int: ...

    def num_rows(self, row_group: int) -> int: ...

    def chunk_env(self, row_group: int, names: Sequence[str]) -> dict[str, ColumnAbstract]: ...

    def page_stats(self, row_group: int, name: str) -> PageStats | None: ...


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


def _verdict(pred: Expr, env: dict[str, ColumnAbstract], semantics: NanSemantics,
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
    candidate: list[bool]


def _sorted(keys: list[Key], descending: bool) -> bool:
    if descending:
        return all(a >= b for a, b in zip(keys, keys[1:], strict=False))
    return all(a <= b for a, b in zip(keys, keys[1:], strict=False))


def _interval(need: Need) -> ValueInterval:
    return ValueInterval(need.lo, need.hi, lo_inclusive=need.lo_inclusive,
                         hi_inclusive=need.hi_inclusive)


def _search_column(name: str, chunk: ColumnAbstract, ps: PageStats | None, pred: Expr,
                   semantics: NanSemantics) -> _ColumnPages:
    if ps is None:
        return _ColumnPages([0], [chunk], ColumnSearch(name, 1, "none", 0, 1, "no page index"),
                            [True])
    pages = ps.abstracts
    n = len(pages)
    need = necessary(pred, name, semantics, ps.kind) \
        if ps.kind in ("float", "int", "bytes") else None
    note = ps.note
    if need is not None and ps.boundary_order != "UNORDERED" and ps.keys is not None:
        keys = ps.keys
        nulls = [k is None for k in keys]
        try:
            found = search_pages([None if k is None else k[0] for k in keys],
                                 [None if k is None else k[1] for k in keys], nulls,
                                 ps.boundary_order, _interval(need), algorithm="loose",
                                 check_order=True)
        except ValueError:
            found = None
        if found is not None:
            cand = [False] * n
            if need.values:
                for i in found.pages:
                    cand[i] = True
            # NaN and null pages are found from the counts, not the bounds.
            for i, p in enumerate(pages):
                if not cand[i] and ((need.pos_nan and p.may_pos_nan)
                                    or (need.neg_nan and p.may_neg_nan)
                                    or (need.null and p.may_null)):
                    cand[i] = True
            return _ColumnPages(ps.starts, pages, ColumnSearch(
                name, n, "binary", found.steps if need.values else 0, sum(cand), note), cand)
        note = "bounds not sorted as the index claims; searched linearly"
    if need is None:
        return _ColumnPages(ps.starts, pages, ColumnSearch(
            name, n, "linear", n, n, note or "no interval to search for"), [True] * n)
    cand = []
    for i, p in enumerate(pages):
        key = ps.keys[i] if ps.keys is not None else None
        cand.append(need.admits(p, key))
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


def _row_group(src: ScopeSource, g: int, names: Sequence[str], pred: Expr,
               semantics: NanSemantics, detail: bool) -> tuple[RowGroupDecision, Ranges]:
    rows = src.num_rows(g)
    env = src.chunk_env(g, names)
    kept, reason = _verdict(pred, env, semantics, "chunk statistics")
    if not kept or rows == 0:
        return RowGroupDecision(g, rows, False, reason if not kept else "no rows"), ()
    cols = {n: _search_column(n, env[n], src.page_stats(g, n), pred, semantics) for n in names}
    cuts = sorted({s for c in cols.values() for s in c.starts} | {rows})
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
    searches = tuple(c.search for c in cols.values())
    merged = _merge(kept_ranges)
    if not merged:
        return RowGroupDecision(g, rows, False, "no page may match", searches,
                                tuple(segments)), ()
    return RowGroupDecision(g, rows, True, reason, searches, tuple(segments)), merged


def plan(source: ScopeSource, predicate: Expr, semantics: NanSemantics, *,
         detail: bool = True, name: str = "") -> PruneReport:
    """Judge every row group and segment of a source (see the module example)."""
    names = sorted(predicate.columns())
    decisions: list[RowGroupDecision] = []
    ranges: dict[int, Ranges] = {}
    total = 0
    for g in range(source.num_row_groups):
        total += source.num_rows(g)
        decision, merged = _row_group(source, g, names, predicate, semantics, detail)
        if merged:
            ranges[g] = merged
        decisions.append(decision)
    return PruneReport(name, repr(predicate), semantics, tuple(decisions),
                       RowSelection(ranges, total))


# --- exact statistics as a source ---------------------------------------------

def _stats_keys(s: ColumnStats) -> tuple[Key, Key] | None:
    if s.min_bits is None or s.max_bits is None:
        return None
    ft = s.float_type
    return (float_key(ft.bits_to_float(s.min_bits)), float_key(ft.bits_to_float(s.max_bits)))


def boundary_order_of(keys: Sequence[tuple[Key, Key] | None]) -> BoundaryOrder:
    """ASCENDING or DESCENDING when both the min and the max keys are sorted that way."""
    present = [k for k in keys if k is not None]
    mins = [k[0] for k in present]
    maxs = [k[1] for k in present]
    if _sorted(mins, False) and _sorted(maxs, False):
        return "ASCENDING"
    if _sorted(mins, True) and _sorted(maxs, True):
        return "DESCENDING"
    return "UNORDERED"


@dataclass(frozen=True)
class StatsSource:
    """Exact statistics per row group, column and page (NaN signs known).

    ``row_groups[g][name]`` is ``(page_starts, [ColumnStats per page])`` with
    page starts relative to the row group; ``rows[g]`` its row count.
    """

    row_groups: Sequence[Mapping[str, tuple[Sequence[int], Sequence[ColumnStats]]]]
    rows: Sequence[int]

    @classmethod
    def from_arrays(cls, columns: dict[str, Any], *, row_group_rows: int,
                    page_rows: int) -> StatsSource:
        """Statistics of float arrays cut into row groups and pages of fixed sizes."""
        from nanstats.core.stats import page_stats

        n = len(next(iter(columns.values()))) if columns else 0
        groups: list[dict[str, tuple[Sequence[int], Sequence[ColumnStats]]]] = []
        rows = []
        for start in range(0, n, row_group_rows):
            stop = min(n, start + row_group_rows)
            group: dict[str, tuple[Sequence[int], Sequence[ColumnStats]]] = {}
            for name, values in columns.items():
                stats = page_stats(np.asarray(values)[start:stop], page_rows=page_rows)
                group[name] = (list(range(0, stop - start, page_rows)), stats)
            groups.append(group)
            rows.append(stop - start)
        return cls(groups, rows)

    @property
    def num_row_groups(self) -> int:
        return len(self.rows)

    def has_column(self, row_group: int, name: str) -> bool:
        """Whether the statistics cover a column in a row group."""
        return name in self.row_groups[row_group]

    def num_rows(self, row_group: int) -> int:
        return int(self.rows[row_group])

    def _column(self, row_group: int, name: str) -> tuple[Sequence[int], Sequence[ColumnStats]]:
        try:
            return self.row_groups[row_group][name]
        except KeyError:
            raise KeyError(f"no statistics for column {name!r} (columns: "
                           f"{', '.join(self.row_groups[row_group])})") from None

    def chunk_env(self, row_group: int, names: Sequence[str]) -> dict[str, ColumnAbstract]:
        out = {}
        for name in names:
            _, stats = self._column(row_group, name)
            merged = stats[0]
            for s in stats[1:]:
                merged = merged.merge(s)
            out[name] = from_column_stats(merged)
        return out

    def page_stats(self, row_group: int, name: str) -> PageStats | None:
        starts, stats = self._column(row_group, name)
        keys = [_stats_keys(s) for s in stats]
        return PageStats(list(starts), [from_column_stats(s) for s in stats], keys,
                         boundary_order_of(keys))


@dataclass(frozen=True)
class LayeredSource:
    """Columns from the first source that has them; unknown columns mean anything.

    Row counts come from the first source.  Use it to let exact statistics
    stand in for a file's own for some columns.
    """

    sources: Sequence[Any]  # ScopeSource, each with a `columns` set or a `has_column` method

    def _for(self, row_group: int, name: str) -> Any:
        for s in self.sources:
            if s.has_column(row_group, name):
                return s
        return None

    @property
    def num_row_groups(self) -> int:
        return int(self.sources[0].num_row_groups)

    def num_rows(self, row_group: int) -> int:
        return int(self.sources[0].num_rows(row_group))

    def chunk_env(self, row_group: int, names: Sequence[str]) -> dict[str, ColumnAbstract]:
        out = {}
        for n in names:
            s = self._for(row_group, n)
            out[n] = ColumnAbstract.anything() if s is None else \
                s.chunk_env(row_group, [n])[n]
        return out

    def page_stats(self, row_group: int, name: str) -> PageStats | None:
        s = self._for(row_group, name)
        return None if s is None else s.page_stats(row_group, name)
