"""Which row groups and pages of a Parquet file a predicate may skip.

Row groups are judged by their footer statistics; pages by the ColumnIndex
and OffsetIndex of every column the predicate reads.  Pages of different
columns start at different rows, so a row group is cut into *segments* at
every page start of those columns; in a segment each column lies in one
page, and the predicate is evaluated over those pages' abstractions.  When a
column's index is ASCENDING or DESCENDING and the predicate implies an
interval for it, a binary search over the separately sorted min and max
lists (the loose assumption: nothing more is assumed, so widened bounds stay
correct) passes over the pages that cannot match without evaluating them.

>>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> x = np.r_[np.arange(300.0), np.full(100, np.nan)]
>>> papq.write_table(pa.table({"x": x}), path, row_group_size=100,
...                  write_page_index=True, data_page_size=256, write_batch_size=25)
>>> row_groups(path, "x > 250", semantics="ieee")   # pyarrow's statistics: no nan_count
[2, 3]
>>> from nanstats.parquet.write import write_table
>>> _ = write_table(pa.table({"x": x}), path, row_group_size=100,
...             data_page_size=256, write_batch_size=25)
>>> row_groups(path, "x > 250", semantics="ieee")   # nanstats': row group 3 is all NaN
[2]
>>> row_groups(path, "x > 250")   # nan_greatest: NaN is above 250
[2, 3]
>>> sel = pages(path, "x > 250 and x < 260", semantics="ieee")
>>> sel.ranges
{2: ((50, 75),)}
>>> sel.num_rows
25
"""

from __future__ import annotations

import bisect
import os
from dataclasses import asdict, dataclass, field
from typing import Any

from nanstats.float_types import FloatType
from nanstats.parquet.footer import Footer, LeafColumn, read_footer
from nanstats.parquet.page_index import PageIndexRegion
from nanstats.parquet.thrift_codec import pq
from nanstats.prune.abstract import ColumnAbstract, may_match, truth
from nanstats.prune.constraints import Key, Need, necessary
from nanstats.prune.expressions import Expr
from nanstats.prune.parser import as_predicate
from nanstats.prune.reading_rules import chunk_abstract, leaf_kind, page_abstracts
from nanstats.prune.semantics import DEFAULT_SEMANTICS, NanSemantics, check_semantics, float_key

Ranges = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class RowSelection:
    """Rows to read, per row group: half-open ``(start, stop)`` ranges within the group.

    Row groups that are skipped entirely do not appear.
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
    """How one column's pages were searched in one row group."""

    column: str
    pages: int
    method: str  # 'binary', 'linear' or 'none' (no usable page index)
    steps: int
    candidates: int
    note: str = ""


@dataclass(frozen=True)
class SegmentDecision:
    """One run of rows in which each column lies in one page."""

    first_row: int
    num_rows: int
    pages: dict[str, int]
    kept: bool
    reason: str


@dataclass(frozen=True)
class RowGroupDecision:
    """The verdict on one row group and, when kept, on its segments."""

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
    """Why each scope of a file was kept or skipped (see :func:`explain`)."""

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


# --- the file side ------------------------------------------------------------

class _File:
    """The footer and page indexes of one file, and the leaves a predicate reads."""

    def __init__(self, path: str | os.PathLike[str], names: set[str]) -> None:
        self.path = os.fspath(path)
        self.footer: Footer = read_footer(self.path)
        by_name = {leaf.name: leaf for leaf in self.footer.columns}
        missing = sorted(names - set(by_name))
        if missing:
            raise KeyError(f"{self.path}: no column {', '.join(map(repr, missing))} "
                           f"(columns: {', '.join(by_name)})")
        self.leaves: dict[str, LeafColumn] = {n: by_name[n] for n in sorted(names)}
        self._region: PageIndexRegion | None = None

    def region(self) -> PageIndexRegion:
        if self._region is None:
            with open(self.path, "rb") as f:
                self._region = PageIndexRegion(f, self.footer)
        return self._region

    def num_rows(self, g: int) -> int:
        return int(self.footer.metadata.row_groups[g].num_rows or 0)

    def chunk_env(self, g: int) -> dict[str, ColumnAbstract]:
        return {n: chunk_abstract(self.footer, g, leaf) for n, leaf in self.leaves.items()}


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


def row_groups(path: str | os.PathLike[str], predicate: Expr | str, *,
               semantics: NanSemantics = DEFAULT_SEMANTICS) -> list[int]:
    """The row groups of a file that may hold a row the predicate accepts.

    Judged from the footer statistics only, read under each column's order
    (SPEC.md section 4); a row group without usable statistics is kept.
    """
    pred = as_predicate(predicate)
    check_semantics(semantics)
    f = _File(path, pred.columns())
    return [g for g in range(f.footer.num_row_groups)
            if may_match(pred, f.chunk_env(g), semantics)]


# --- pages ----------------------------------------------------------------------

@dataclass
class _ColumnPages:
    starts: list[int]  # first row of each page
    abstracts: list[ColumnAbstract]
    search: ColumnSearch
    candidate: list[bool]


def _page_keys(leaf: LeafColumn, footer: Any, ci: Any, pages: list[ColumnAbstract]
               ) -> list[tuple[Key, Key] | None]:
    """Per page, (min key, max key) of its bounds for the search (None: null page).

    Float keys are float64 totalOrder keys; NaN bounds (all-NaN pages under
    IEEE 754 order) keep their place at either end.  Raises ValueError when
    a non-null page has no usable bounds.
    """
    ft: FloatType | None = leaf.float_type
    out: list[tuple[Key, Key] | None] = []
    for i, a in enumerate(pages):
        if ci.null_pages[i]:
            out.append(None)
            continue
        if a.may_value:
            if a.lo is None or a.hi is None:
                raise ValueError(f"page {i} has no usable bounds")
            if ft is not None:
                out.append((float_key(float(a.lo)), float_key(float(a.hi))))
            else:
                out.append((a.lo, a.hi))  # type: ignore[arg-type]
        elif ft is not None and footer.column_order(leaf.index) == "ieee754":
            lo = ft.bits_to_float(ft.plain_to_bits(ci.min_values[i]))
            hi = ft.bits_to_float(ft.plain_to_bits(ci.max_values[i]))
            out.append((float_key(lo), float_key(hi)))
        else:
            raise ValueError(f"page {i} has no usable bounds")
    return out


def _sorted(keys: list[Key], descending: bool) -> bool:
    if descending:
        return all(a >= b for a, b in zip(keys, keys[1:], strict=False))
    return all(a <= b for a, b in zip(keys, keys[1:], strict=False))


def _binary_candidates(bounds: list[tuple[Key, Key]], need: Need,
                       descending: bool) -> tuple[set[int], int]:
    """Positions (in ``bounds``) whose [min, max] may meet the interval, and steps.

    Loose assumption: the mins are sorted and the maxs are sorted, each on
    its own.  Ascending: pages with min <= hi form a prefix, pages with
    max >= lo a suffix; two binary searches.
    """
    n = len(bounds)
    if not need.values or n == 0:
        return set(), 0
    steps = 0
    order = list(range(n)) if not descending else list(range(n - 1, -1, -1))
    mins = [bounds[i][0] for i in order]
    maxs = [bounds[i][1] for i in order]

    def search(keys: list[Key], ok: Any) -> int:
        """First index where ok(key) holds (ok is monotone: False..True)."""
        nonlocal steps
        lo, hi = 0, len(keys)
        while lo < hi:
            mid = (lo + hi) // 2
            steps += 1
            if ok(keys[mid]):
                hi = mid
            else:
                lo = mid + 1
        return lo

    # prefix: min <= need.hi (or <); first index where min is above hi
    if need.hi is None:
        end = n
    else:
        h = need.hi
        end = search(mins, (lambda k: k > h) if need.hi_inclusive else (lambda k: k >= h))
    if need.lo is None:
        start = 0
    else:
        lo_key = need.lo
        start = search(maxs, (lambda k: k >= lo_key) if need.lo_inclusive
                       else (lambda k: k > lo_key))
    return {order[j] for j in range(start, end)}, steps


def _column_pages(f: _File, g: int, name: str, leaf: LeafColumn, pred: Expr,
                  semantics: NanSemantics) -> _ColumnPages:
    rows = f.num_rows(g)
    chunk = chunk_abstract(f.footer, g, leaf)
    ci, oi = f.region().read_page_index(f.footer, g, leaf.index)
    if ci is None or oi is None or leaf.max_repetition_level > 0:
        why = ("repeated column" if leaf.max_repetition_level > 0 else
               "no column index" if ci is None else "no offset index")
        return _ColumnPages([0], [chunk], ColumnSearch(name, 1, "none", 0, 1, why), [True])
    starts = [loc.first_row_index for loc in oi.page_locations]
    page_rows = [b - a for a, b in zip(starts, [*starts[1:], rows], strict=True)]
    pages = page_abstracts(f.footer, leaf, ci, page_rows)
    n = len(pages)
    kind = leaf_kind(f.footer, leaf)
    need = necessary(pred, name, semantics, kind) if kind in ("float", "int", "bytes") else None
    boundary = ci.boundary_order
    note = ""
    if need is not None and boundary in (pq.BOUNDARY_ASCENDING, pq.BOUNDARY_DESCENDING):
        try:
            keys = _page_keys(leaf, f.footer, ci, pages)
        except ValueError as exc:
            keys, note = None, f"{exc}; searched linearly"
        if keys is not None:
            positions = [i for i, k in enumerate(keys) if k is not None]
            bounds = [keys[i] for i in positions]  # type: ignore[misc]
            desc = boundary == pq.BOUNDARY_DESCENDING
            if _sorted([b[0] for b in bounds], desc) and _sorted([b[1] for b in bounds], desc):
                hits, steps = _binary_candidates(bounds, need, desc)  # type: ignore[arg-type]
                cand = [False] * n
                for j in hits:
                    cand[positions[j]] = True
                # NaN and null pages are found from the counts, not the bounds.
                for i, p in enumerate(pages):
                    if not cand[i] and ((need.pos_nan and p.may_pos_nan)
                                        or (need.neg_nan and p.may_neg_nan)
                                        or (need.null and p.may_null)):
                        cand[i] = True
                return _ColumnPages(starts, pages, ColumnSearch(
                    name, n, "binary", steps, sum(cand)), cand)
            note = "bounds not sorted as the index claims; searched linearly"
    if need is None:
        cand = [True] * n
        return _ColumnPages(starts, pages, ColumnSearch(
            name, n, "linear", n, n, note or "no interval to search for"), cand)
    cand = []
    for i, p in enumerate(pages):
        key = None
        if p.may_value and p.lo is not None and p.hi is not None:
            key = ((float_key(float(p.lo)), float_key(float(p.hi))) if leaf.float_type
                   else (p.lo, p.hi))
        cand.append(need.admits(p, key))  # type: ignore[arg-type]
    return _ColumnPages(starts, pages, ColumnSearch(name, n, "linear", n, sum(cand), note),
                        cand)


def _merge(ranges: list[tuple[int, int]]) -> Ranges:
    out: list[list[int]] = []
    for a, b in ranges:
        if out and out[-1][1] == a:
            out[-1][1] = b
        else:
            out.append([a, b])
    return tuple((a, b) for a, b in out)


def _row_group_pages(f: _File, g: int, pred: Expr, semantics: NanSemantics,
                     detail: bool) -> tuple[RowGroupDecision, Ranges]:
    rows = f.num_rows(g)
    env = f.chunk_env(g)
    kept, reason = _verdict(pred, env, semantics, "chunk statistics")
    if not kept or rows == 0:
        return RowGroupDecision(g, rows, False, reason if not kept else "no rows"), ()
    cols = {n: _column_pages(f, g, n, leaf, pred, semantics) for n, leaf in f.leaves.items()}
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


def _plan(path: str | os.PathLike[str], predicate: Expr | str, semantics: NanSemantics,
          detail: bool) -> PruneReport:
    pred = as_predicate(predicate)
    check_semantics(semantics)
    f = _File(path, pred.columns())
    decisions: list[RowGroupDecision] = []
    ranges: dict[int, Ranges] = {}
    total = 0
    for g in range(f.footer.num_row_groups):
        total += f.num_rows(g)
        decision, merged = _row_group_pages(f, g, pred, semantics, detail)
        if merged:
            ranges[g] = merged
        decisions.append(decision)
    return PruneReport(f.path, repr(pred), semantics, tuple(decisions),
                       RowSelection(ranges, total))


def pages(path: str | os.PathLike[str], predicate: Expr | str, *,
          semantics: NanSemantics = DEFAULT_SEMANTICS) -> RowSelection:
    """The rows of a file (as row ranges per row group) that may satisfy the predicate.

    Uses the footer statistics, then every ColumnIndex/OffsetIndex of the
    columns the predicate reads; a column without a page index counts as one
    page per row group.
    """
    return _plan(path, predicate, semantics, detail=False).selection


def explain(path: str | os.PathLike[str], predicate: Expr | str, *,
            semantics: NanSemantics = DEFAULT_SEMANTICS) -> PruneReport:
    """Why each row group and segment of pages was kept or skipped, with search steps.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, 2.0, 3.0, 4.0]}), path, row_group_size=2)
    >>> report = explain(path, "x >= 3", semantics="ieee")
    >>> [(d.row_group, d.kept) for d in report.row_groups]
    [(0, False), (1, True)]
    >>> print(report.row_groups[0].reason)
    chunk statistics: x in [1.0, 2.0] or NaN, so the predicate is false
    >>> explain(path, "x >= 3").row_groups[0].kept   # NaN may be present, and is above 3
    True
    """
    return _plan(path, predicate, semantics, detail=True)
