"""Which row groups and pages of a Parquet file a predicate may skip.

Row groups are judged by their footer statistics; pages by the ColumnIndex
and OffsetIndex of every column the predicate reads, through the engine of
:mod:`nanstats.prune.scopes` (segments of rows, loose binary page search).

>>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> x = np.r_[np.arange(300.0), np.full(100, np.nan)]
>>> papq.write_table(pa.table({"x": x}), path, row_group_size=100,
...                  write_page_index=True, data_page_size=256, write_batch_size=25)
>>> row_groups(path, "x > 250", semantics="ieee")   # pyarrow's statistics: no nan_count
[2, 3]
>>> from nanstats.parquet.writing import write_table
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

import os
from collections.abc import Sequence
from typing import Any

from nanstats.core.floats import float_key
from nanstats.metadata.convert import BOUNDARY_ORDER_NAMES
from nanstats.metadata.footer import Footer, LeafColumn, read_footer
from nanstats.metadata.page_index import PageIndexRegion
from nanstats.prune.abstract import ColumnAbstract, may_match
from nanstats.prune.constraints import Key
from nanstats.prune.expressions import Expr
from nanstats.prune.parser import as_predicate
from nanstats.prune.reading_rules import chunk_abstract, leaf_kind, page_abstracts
from nanstats.prune.scopes import (
    ColumnSearch,
    PageStats,
    PruneReport,
    RowGroupDecision,
    RowSelection,
    SegmentDecision,
    plan,
)
from nanstats.prune.semantics import DEFAULT_SEMANTICS, NanSemantics, check_semantics

__all__ = ["ColumnSearch", "FileSource", "PruneReport", "RowGroupDecision", "RowSelection",
           "SegmentDecision", "explain", "pages", "row_groups"]



class FileSource:
    """A Parquet file's footer statistics and page indexes, for the pruning engine.

    Only the footer is read on construction; page indexes are read (all at
    once) the first time a page is asked for.

    >>> import numpy as np, pyarrow as pa, tempfile, os
    >>> from nanstats.parquet.writing import write_table
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> _ = write_table(pa.table({"x": np.arange(100.0)}), path, row_group_size=50,
    ...                 data_page_size=64, write_batch_size=10)
    >>> src = FileSource(path)
    >>> src.num_row_groups, src.chunk_env(1, ["x"])
    (2, {'x': ColumnAbstract(float: [50.0, 99.0], value)})
    >>> len(src.page_stats(1, "x").starts), src.page_stats(1, "x").boundary_order
    (5, 'ASCENDING')
    """

    def __init__(self, path: str | os.PathLike[str], names: set[str] | None = None) -> None:
        self.path = os.fspath(path)
        self.footer: Footer = read_footer(self.path)
        self.by_name = {leaf.name: leaf for leaf in self.footer.columns}
        missing = sorted((names or set()) - set(self.by_name))
        if missing:
            raise KeyError(f"{self.path}: no column {', '.join(map(repr, missing))} "
                           f"(columns: {', '.join(self.by_name)})")
        self._region: PageIndexRegion | None = None

    def _leaf(self, name: str) -> LeafColumn:
        try:
            return self.by_name[name]
        except KeyError:
            raise KeyError(f"{self.path}: no column {name!r} (columns: "
                           f"{', '.join(self.by_name)})") from None

    def region(self) -> PageIndexRegion:
        if self._region is None:
            with open(self.path, "rb") as f:
                self._region = PageIndexRegion(f, self.footer)
        return self._region

    @property
    def num_row_groups(self) -> int:
        return self.footer.num_row_groups

    def has_column(self, row_group: int, name: str) -> bool:
        """Whether the file has a leaf of that name."""
        return name in self.by_name

    def num_rows(self, row_group: int) -> int:
        return int(self.footer.metadata.row_groups[row_group].num_rows or 0)

    def chunk_env(self, row_group: int, names: Sequence[str]) -> dict[str, ColumnAbstract]:
        return {n: chunk_abstract(self.footer, row_group, self._leaf(n)) for n in names}

    def page_stats(self, row_group: int, name: str) -> PageStats | None:
        leaf = self._leaf(name)
        if leaf.max_repetition_level > 0:
            return None  # a list's pages are not row ranges
        ci, oi = self.region().read_page_index(self.footer, row_group, leaf.index)
        if ci is None or oi is None:
            return None
        rows = self.num_rows(row_group)
        starts = [loc.first_row_index for loc in oi.page_locations]
        page_rows = [b - a for a, b in zip(starts, [*starts[1:], rows], strict=True)]
        pages = page_abstracts(self.footer, leaf, ci, page_rows)
        try:
            keys: list[tuple[Key, Key] | None] | None = self._keys(leaf, ci, pages)
            note = ""
        except ValueError as exc:
            keys, note = None, f"{exc}; searched linearly"
        return PageStats(starts, pages, keys, BOUNDARY_ORDER_NAMES[ci.boundary_order],
                         leaf_kind(self.footer, leaf), note)

    def _keys(self, leaf: LeafColumn, ci: Any, pages: list[ColumnAbstract]
              ) -> list[tuple[Key, Key] | None]:
        """Per page, (min key, max key) of its bounds (None: null page)."""
        ft = leaf.float_type
        ieee = self.footer.column_order(leaf.index) == "ieee754"
        out: list[tuple[Key, Key] | None] = []
        for i, a in enumerate(pages):
            if ci.null_pages[i]:
                out.append(None)
            elif a.may_value and a.lo is not None and a.hi is not None:
                out.append((float_key(float(a.lo)), float_key(float(a.hi))) if ft is not None
                           else (a.lo, a.hi))
            elif ft is not None and ieee and not a.may_value:
                lo = ft.bits_to_float(ft.plain_to_bits(ci.min_values[i]))
                hi = ft.bits_to_float(ft.plain_to_bits(ci.max_values[i]))
                out.append((float_key(lo), float_key(hi)))
            else:
                raise ValueError(f"page {i} has no usable bounds")
        return out


def row_groups(path: str | os.PathLike[str], predicate: Expr | str, *,
               semantics: NanSemantics = DEFAULT_SEMANTICS) -> list[int]:
    """The row groups of a file that may hold a row the predicate accepts.

    Judged from the footer statistics only, read under each column's order
    (SPEC.md section 4); a row group without usable statistics is kept.

    >>> import numpy as np, pyarrow as pa, tempfile, os
    >>> from nanstats.parquet.writing import write_table
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> _ = write_table(pa.table({"x": np.arange(100.0)}), path, row_group_size=50,
    ...                 data_page_size=64, write_batch_size=10)
    >>> row_groups(path, "x > 60"), row_groups(path, "x > 1000")
    ([1], [])
    """
    pred = as_predicate(predicate)
    check_semantics(semantics)
    src = FileSource(path, pred.columns())
    names = sorted(pred.columns())
    return [g for g in range(src.num_row_groups)
            if may_match(pred, src.chunk_env(g, names), semantics)]


def _plan(path: str | os.PathLike[str], predicate: Expr | str, semantics: NanSemantics,
          detail: bool) -> PruneReport:
    pred = as_predicate(predicate)
    check_semantics(semantics)
    src = FileSource(path, pred.columns())
    return plan(src, pred, semantics, detail=detail, name=src.path)


def pages(path: str | os.PathLike[str], predicate: Expr | str, *,
          semantics: NanSemantics = DEFAULT_SEMANTICS) -> RowSelection:
    """The rows of a file (as row ranges per row group) that may satisfy the predicate.

    Uses the footer statistics, then every ColumnIndex/OffsetIndex of the
    columns the predicate reads; a column without a page index counts as one
    page per row group.

    >>> import numpy as np, pyarrow as pa, tempfile, os
    >>> from nanstats.parquet.writing import write_table
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> _ = write_table(pa.table({"x": np.arange(100.0)}), path, row_group_size=50,
    ...                 data_page_size=64, write_batch_size=10)
    >>> pages(path, "x >= 55 and x < 72").ranges   # pages of 10 rows
    {1: ((0, 30),)}
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
