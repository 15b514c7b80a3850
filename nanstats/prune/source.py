"""The abstract source of statistics the planner reads (as DataFusion's PruningStatistics).

A source says, for each row group, how many rows it has, whether it knows a
column, what the chunk statistics allow for each column, and, per column,
the pages (first rows, abstractions, keys of their bounds, boundary order).
Sources: a Parquet file's footer and page indexes
(:class:`nanstats.prune.parquet_source.FileSource`), exact
:class:`~nanstats.core.stats.ColumnStats` and layers of sources
(:mod:`nanstats.prune.sources`).

>>> import numpy as np
>>> from nanstats.prune.sources import LayeredSource, StatsSource
>>> src = StatsSource.from_arrays({"x": np.arange(4.0)}, row_group_rows=2, page_rows=1)
>>> isinstance(src, StatisticsSource), isinstance(LayeredSource([src]), StatisticsSource)
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from nanstats.core.abstraction import ColumnAbstract
from nanstats.prune.results import PageStats

__all__ = ["BuiltOnce", "StatisticsSource"]


@runtime_checkable
class StatisticsSource(Protocol):
    """Where the planner gets statistics from (see the module docs).

    Every method any caller of a source uses is declared here: the planner
    calls all but ``has_column``, which :class:`~nanstats.prune.sources.LayeredSource`
    asks of each layer.

    >>> import numpy as np
    >>> from nanstats.prune.sources import StatsSource
    >>> src: StatisticsSource = StatsSource.from_arrays({"x": np.arange(4.0)},
    ...                                                 row_group_rows=2, page_rows=1)
    >>> src.num_row_groups, src.num_rows(1), src.has_column(0, "x"), src.has_column(0, "y")
    (2, 2, True, False)
    """

    @property
    def num_row_groups(self) -> int:
        """How many row groups the source covers."""
        ...

    def num_rows(self, row_group: int) -> int:
        """Rows in one row group."""
        ...

    def has_column(self, row_group: int, name: str) -> bool:
        """Whether the source has statistics for a column in a row group."""
        ...

    def chunk_env(self, row_group: int, names: Sequence[str]) -> dict[str, ColumnAbstract]:
        """What the chunk statistics of a row group allow, per column."""
        ...

    def page_stats(self, row_group: int, name: str) -> PageStats | None:
        """The pages of one column chunk, or None when the source has no page index."""
        ...


class BuiltOnce:
    """A source's chunk and page abstractions, built once per (row group, column).

    A subclass builds one with ``_chunk_abstract`` and ``_page_stats`` and
    holds two dicts, ``_chunks`` and ``_pages``: statistics never change,
    and the planner keeps its arrays of a page index by the identity of the
    sequences a source gives it, so they must be the same objects each time.

    >>> class Squares(BuiltOnce):
    ...     def __init__(self):
    ...         self._chunks, self._pages, self.built = {}, {}, 0
    ...     def _chunk_abstract(self, row_group, name):
    ...         self.built += 1
    ...         return row_group * row_group
    ...     def _page_stats(self, row_group, name):
    ...         return None
    >>> s = Squares()
    >>> s.chunk_env(3, ["x", "y"]), s.chunk_env(3, ["x"]), s.built
    ({'x': 9, 'y': 9}, {'x': 9}, 2)
    """

    _chunks: dict[tuple[int, str], ColumnAbstract]
    _pages: dict[tuple[int, str], PageStats | None]

    def _chunk_abstract(self, row_group: int, name: str) -> ColumnAbstract:
        raise NotImplementedError

    def _page_stats(self, row_group: int, name: str) -> PageStats | None:
        raise NotImplementedError

    def chunk_env(self, row_group: int, names: Sequence[str]) -> dict[str, ColumnAbstract]:
        """What the chunk statistics of a row group allow, per column."""
        out = {}
        for name in names:
            if (row_group, name) not in self._chunks:
                self._chunks[row_group, name] = self._chunk_abstract(row_group, name)
            out[name] = self._chunks[row_group, name]
        return out

    def page_stats(self, row_group: int, name: str) -> PageStats | None:
        """The pages of one column chunk, or None when there is no page index."""
        if (row_group, name) not in self._pages:
            self._pages[row_group, name] = self._page_stats(row_group, name)
        return self._pages[row_group, name]
