"""The page index (``ColumnIndex``) of a float column chunk."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from nanstats.core.floats import PhysicalType
from nanstats.core.rules import (
    BoundaryOrder,
    ColumnOrderName,
    TypeOrderPolicy,
    boundary_order,
    bounds_to_write,
    check_order,
    column_index_refusal,
)
from nanstats.core.stats import ColumnStats, page_table, stats_table
from nanstats.core.table import StatsTable


@dataclass(frozen=True)
class ColumnIndex:
    """A Parquet ColumnIndex for a float column chunk, one entry per page.

    ``null_pages`` (field 1), ``min_values``/``max_values`` (2/3, PLAIN
    bytes; empty for null pages), ``boundary_order`` (4), ``null_counts``
    (5) and ``nan_counts`` (8).

    Examples
    --------
    >>> import numpy as np, nanstats
    >>> v = np.array([np.nan, -np.nan, 1.0, 2.0, 0.0, 5.0], dtype=np.float32)
    >>> ci = nanstats.column_index(v, page_rows=2)
    >>> ci.boundary_order, ci.nan_counts, ci.min_values[0].hex()
    ('UNORDERED', (2, 0, 0), '0000c0ff')
    >>> print(nanstats.column_index(v, page_rows=2, order="type_order"))
    None
    >>> ColumnIndex.refusal(nanstats.page_stats(v, page_rows=2), "type_order")
    'page 0 holds 2 NaN value(s); under TYPE_ORDER no column index is written for a chunk with NaN (policy safe)'
    """

    order: ColumnOrderName
    physical_type: PhysicalType
    null_pages: tuple[bool, ...]
    min_values: tuple[bytes, ...]
    max_values: tuple[bytes, ...]
    boundary_order: BoundaryOrder
    null_counts: tuple[int, ...]
    nan_counts: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.null_pages)

    @classmethod
    def from_page_stats(
        cls,
        pages: Sequence[ColumnStats],
        order: ColumnOrderName = "ieee754",
        *,
        policy: TypeOrderPolicy = "safe",
    ) -> ColumnIndex | None:
        """The column index of these pages, or None where the rules forbid one.

        :meth:`refusal` says why an index is forbidden.
        """
        return cls.from_table(stats_table(pages), order, policy=policy)

    @classmethod
    def refusal(
        cls,
        pages: Sequence[ColumnStats],
        order: ColumnOrderName = "ieee754",
        *,
        policy: TypeOrderPolicy = "safe",
    ) -> str | None:
        """Why the rules forbid a column index for these pages, or None."""
        return column_index_refusal(stats_table(pages), order, policy)

    @classmethod
    def from_table(
        cls, table: StatsTable, order: ColumnOrderName = "ieee754", *, policy: TypeOrderPolicy = "safe"
    ) -> ColumnIndex | None:
        """The column index of the pages of a StatsTable (vectorised)."""
        check_order(order, policy)
        if column_index_refusal(table, order, policy) is not None:
            return None
        ft = table.float_type
        null_pages = table.null_count == table.num_values
        bounds = bounds_to_write(table, order, policy)
        # Every non-null page has bounds when an index is allowed.
        assert bool((bounds.present | null_pages).all())
        mins = ft.bits_to_plain(bounds.min_bits)
        maxs = ft.bits_to_plain(bounds.max_bits)
        empty = np.flatnonzero(null_pages).tolist()
        for i in empty:
            mins[i] = maxs[i] = b""
        return cls(
            order,
            ft.physical_type,
            tuple(null_pages.tolist()),
            tuple(mins),
            tuple(maxs),
            boundary_order(
                ft.bits_to_keys(bounds.min_bits)[~null_pages],
                ft.bits_to_keys(bounds.max_bits)[~null_pages],
            ),
            tuple(table.null_count.tolist()),
            tuple(table.nan_count.tolist()),
        )

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict of lists."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


def column_index(
    values: Any,
    mask: npt.NDArray[np.bool_] | None = None,
    *,
    page_rows: int | None = None,
    page_starts: npt.ArrayLike | None = None,
    order: ColumnOrderName = "ieee754",
    policy: TypeOrderPolicy = "safe",
) -> ColumnIndex | None:
    """The ColumnIndex a writer emits for a 1-D float array split into pages.

    One kernel pass, then the rules of ``order`` applied to all pages at once.
    Returns None when the rules forbid an index (``type_order`` with NaN
    under the default policy); ``ColumnIndex.refusal`` says why.

    >>> import numpy as np, nanstats
    >>> ci = nanstats.column_index(np.arange(6.0), page_rows=2)
    >>> ci.boundary_order, [v.hex() for v in ci.max_values][:1], ci.nan_counts
    ('ASCENDING', ['000000000000f03f'], (0, 0, 0))
    """
    table = page_table(values, mask, page_rows=page_rows, page_starts=page_starts)
    return ColumnIndex.from_table(table, order, policy=policy)
