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

__all__ = ["StatisticsSource"]


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
