"""What the planner decides: rows to read, and why each scope was kept or skipped.

Also :class:`PageStats`, the pages of one column chunk as a source of
statistics hands them to the planner.  The examples plan over exact
statistics (:class:`~nanstats.prune.sources.StatsSource`).

>>> import numpy as np
>>> from nanstats.prune.expressions import col
>>> from nanstats.prune.planner import plan
>>> from nanstats.prune.sources import StatsSource
>>> src = StatsSource.from_arrays({"x": np.arange(10.0)}, row_group_rows=5, page_rows=5)
>>> plan(src, col("x") > 7.0, "ieee").selection
RowSelection(5 of 10 rows in 1 row groups)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from nanstats.core.abstraction import ColumnAbstract
from nanstats.core.rules import BoundaryOrder
from nanstats.prune.constraints import Key

__all__ = ["ColumnSearch", "PageStats", "PruneReport", "Ranges", "RowGroupDecision",
           "RowSelection", "SegmentDecision"]

Ranges = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class RowSelection:
    """Rows to read, per row group: half-open ``(start, stop)`` ranges within the group.

    Row groups that are skipped entirely do not appear.

    >>> import numpy as np
    >>> from nanstats.prune.expressions import col
    >>> from nanstats.prune.planner import plan
    >>> from nanstats.prune.sources import StatsSource
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

    >>> import numpy as np
    >>> from nanstats.prune.expressions import col
    >>> from nanstats.prune.planner import plan
    >>> from nanstats.prune.sources import StatsSource
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

    >>> import numpy as np
    >>> from nanstats.prune.expressions import col
    >>> from nanstats.prune.planner import plan
    >>> from nanstats.prune.sources import StatsSource
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

    >>> import numpy as np
    >>> from nanstats.prune.expressions import col
    >>> from nanstats.prune.planner import plan
    >>> from nanstats.prune.sources import StatsSource
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

    >>> import numpy as np
    >>> from nanstats.prune.expressions import col
    >>> from nanstats.prune.planner import plan
    >>> from nanstats.prune.sources import StatsSource
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
    semantics: str  #: the engine profile's name
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

    >>> from nanstats.core.abstraction import ColumnAbstract
    >>> ps = PageStats([0, 10], [ColumnAbstract.of_range(1, 5), ColumnAbstract.of_range(6, 9)],
    ...                [(1, 5), (6, 9)], "ASCENDING", kind="int")
    >>> len(ps.starts), ps.abstracts[1]
    (2, ColumnAbstract(int: [6, 9], value))
    """

    starts: Sequence[int]
    abstracts: Sequence[ColumnAbstract]
    keys: Sequence[tuple[Key, Key] | None] | None
    boundary_order: BoundaryOrder
    kind: str = "float"
    note: str = ""
