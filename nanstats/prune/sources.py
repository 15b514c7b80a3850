"""Sources of statistics held in memory: exact ColumnStats, and layers of sources.

:class:`StatsSource` plans from nanstats' own statistics (NaN signs known;
the statistics table of a lake); :class:`LayeredSource` lets such exact
statistics stand in for a file's own, column by column.

>>> import numpy as np
>>> from nanstats.prune.expressions import col
>>> from nanstats.prune.planner import plan
>>> src = StatsSource.from_arrays({"x": np.arange(6.0)}, row_group_rows=3, page_rows=1)
>>> plan(LayeredSource([src]), col("x") == 4.0, "ieee").selection.ranges
{1: ((1, 2),)}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nanstats.core.abstraction import ColumnAbstract
from nanstats.core.floats import float_key
from nanstats.core.reading_rules import from_column_stats
from nanstats.core.rules import boundary_order
from nanstats.core.stats import ColumnStats, merge_stats
from nanstats.prune.constraints import Key
from nanstats.prune.results import PageStats
from nanstats.prune.source import BuiltOnce, StatisticsSource

__all__ = ["LayeredSource", "StatsSource"]


def _stats_keys(s: ColumnStats) -> tuple[Key, Key] | None:
    if s.min_bits is None or s.max_bits is None:
        return None
    ft = s.float_type
    return (float_key(ft.bits_to_float(s.min_bits)), float_key(ft.bits_to_float(s.max_bits)))


@dataclass(frozen=True)
class StatsSource(BuiltOnce):
    """Exact statistics per row group, column and page (NaN signs known).

    ``row_groups[g][name]`` is ``(page_starts, [ColumnStats per page])`` with
    page starts relative to the row group; ``rows[g]`` its row count.

    >>> src = StatsSource.from_arrays({"x": np.arange(6.0)}, row_group_rows=3, page_rows=2)
    >>> src.num_row_groups, src.chunk_env(1, ["x"])
    (2, {'x': ColumnAbstract(float: [3.0, 5.0], value)})
    >>> ps = src.page_stats(1, "x")
    >>> ps.starts, ps.boundary_order
    ([0, 2], 'ASCENDING')
    >>> src.page_stats(1, "x") is ps          # built once
    True
    """

    row_groups: Sequence[Mapping[str, tuple[Sequence[int], Sequence[ColumnStats]]]]
    rows: Sequence[int]
    # Chunk and page abstractions, built once (see BuiltOnce).
    _chunks: dict[tuple[int, str], ColumnAbstract] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    _pages: dict[tuple[int, str], PageStats | None] = field(
        default_factory=dict, init=False, repr=False, compare=False)

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

    def _chunk_abstract(self, row_group: int, name: str) -> ColumnAbstract:
        _, stats = self._column(row_group, name)
        return from_column_stats(merge_stats(stats))

    def _page_stats(self, row_group: int, name: str) -> PageStats | None:
        starts, stats = self._column(row_group, name)
        keys = [_stats_keys(s) for s in stats]
        present = [k for k in keys if k is not None]
        return PageStats(list(starts), [from_column_stats(s) for s in stats], keys,
                         boundary_order([k[0] for k in present], [k[1] for k in present]))


@dataclass(frozen=True)
class LayeredSource:
    """Columns from the first source that has them; unknown columns mean anything.

    Row counts come from the first source.  Use it to let exact statistics
    stand in for a file's own for some columns.

    >>> a = StatsSource.from_arrays({"x": np.arange(4.0)}, row_group_rows=2, page_rows=2)
    >>> b = StatsSource.from_arrays({"y": -np.arange(4.0)}, row_group_rows=2, page_rows=2)
    >>> LayeredSource([a, b]).chunk_env(1, ["x", "y", "z"])["y"]
    ColumnAbstract(float: [-3.0, -2.0], value)
    >>> LayeredSource([a, b]).chunk_env(1, ["z"])
    {'z': ColumnAbstract(any: [-, +], value, null, +nan, -nan)}
    """

    sources: Sequence[StatisticsSource]

    def _for(self, row_group: int, name: str) -> StatisticsSource | None:
        for s in self.sources:
            if s.has_column(row_group, name):
                return s
        return None

    @property
    def num_row_groups(self) -> int:
        return int(self.sources[0].num_row_groups)

    def has_column(self, row_group: int, name: str) -> bool:
        """Whether some layer has statistics for the column (so layers may nest)."""
        return self._for(row_group, name) is not None

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
