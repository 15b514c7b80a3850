"""A Parquet file as a source of statistics for the planner: footer and page index.

The reading rules themselves live in :mod:`nanstats.core.reading_rules`;
this module finds their inputs in a file (the leaf's kind and signedness from
its schema element, bounds and counts from the footer Statistics and the
ColumnIndex/OffsetIndex) and hands the planner
(:mod:`nanstats.prune.planner`) what it asks for through
:class:`~nanstats.prune.source.StatisticsSource`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nanstats.core.abstraction import ColumnAbstract, ValueKind
from nanstats.core.floats import float_key
from nanstats.core.reading_rules import from_float_bounds, from_value_bounds
from nanstats.lake.fs import RemoteFile, Target, remote_errors, resolve
from nanstats.metadata.footer import ColumnOrderKind, Footer, LeafColumn, read_footer
from nanstats.metadata.page_index import PageIndex, PageIndexRegion
from nanstats.metadata.thrift import pq
from nanstats.prune.constraints import Key
from nanstats.prune.results import PageStats
from nanstats.prune.source import BuiltOnce

__all__ = ["FileSource", "chunk_abstract", "from_bounds", "leaf_kind", "page_abstracts"]

# Converted types (parquet.thrift ConvertedType) that keep plain integer order.
_UTF8 = 0
_SIGNED_INTS = {15, 16, 17, 18}  # INT_8 .. INT_64
_UNSIGNED_INTS = {11, 12, 13, 14}  # UINT_8 .. UINT_64


def leaf_kind(footer: Footer, leaf: LeafColumn) -> ValueKind:
    """How a leaf's bounds compare: 'float', 'int', 'bytes' or 'any' (not used)."""
    if leaf.float_type is not None:
        return "float"
    el = footer.schema[leaf.schema_index]
    logical, converted = el.logicalType, el.converted_type
    if leaf.physical_type in (pq.TYPE_INT32, pq.TYPE_INT64):
        if logical is not None and logical.INTEGER is None:
            return "any"
        if converted is not None and converted not in _SIGNED_INTS | _UNSIGNED_INTS:
            return "any"
        return "int"
    if leaf.physical_type == pq.TYPE_BYTE_ARRAY:
        if (logical is not None and logical.STRING is not None) or converted == _UTF8:
            return "bytes"
    return "any"


def _is_unsigned(footer: Footer, leaf: LeafColumn) -> bool:
    el = footer.schema[leaf.schema_index]
    if el.logicalType is not None and el.logicalType.INTEGER is not None:
        return el.logicalType.INTEGER.isSigned is False
    return el.converted_type in _UNSIGNED_INTS


def from_bounds(footer: Footer, leaf: LeafColumn, order: ColumnOrderKind,
                min_value: bytes | None, max_value: bytes | None, *,
                null_count: int | None, nan_count: int | None,
                num_values: int | None) -> ColumnAbstract:
    """Any supported leaf's scope from PLAIN bounds and counts (the core's reading rules)."""
    if leaf.float_type is not None:
        return from_float_bounds(leaf.float_type, order, min_value, max_value,
                                 null_count=null_count, nan_count=nan_count,
                                 num_values=num_values)
    return from_value_bounds(leaf_kind(footer, leaf), order, min_value, max_value,
                             width=4 if leaf.physical_type == pq.TYPE_INT32 else 8,
                             signed=not _is_unsigned(footer, leaf), null_count=null_count,
                             num_values=num_values)


def chunk_abstract(footer: Footer, row_group: int, leaf: LeafColumn) -> ColumnAbstract:
    """A column chunk from its footer Statistics."""
    kind = leaf_kind(footer, leaf)
    md = footer.chunk(row_group, leaf.index).meta_data
    if md is None:
        return ColumnAbstract.anything(kind)
    st = md.statistics
    if st is None:
        return ColumnAbstract.anything(kind)
    order = footer.column_order(leaf.index)
    lo, hi = st.min_value, st.max_value
    # The deprecated fields sort floats and signed integers as numbers; bytes and
    # FLOAT16 they sort by signed bytes, which is no order we can use.
    legacy_ok = leaf.physical_type in (pq.TYPE_FLOAT, pq.TYPE_DOUBLE, pq.TYPE_INT32,
                                       pq.TYPE_INT64) and not _is_unsigned(footer, leaf)
    if (lo is None or hi is None) and order in ("type_order", "undefined") and legacy_ok:
        lo, hi = st.min, st.max
    nulls = st.null_count
    if nulls is not None and nulls < 0:
        nulls = None
    nans = st.nan_count if leaf.float_type is not None else 0
    if nans is not None and nans < 0:
        nans = None
    # num_values counts leaf values; for flat and struct leaves, one per row.
    num = md.num_values if leaf.max_repetition_level == 0 else None
    return from_bounds(footer, leaf, order, lo, hi, null_count=nulls, nan_count=nans,
                       num_values=num)


def page_abstracts(footer: Footer, leaf: LeafColumn, index: PageIndex,
                   page_rows: Sequence[int]) -> list[ColumnAbstract]:
    """Each page of a chunk from its ColumnIndex entry; ``page_rows`` from the OffsetIndex."""
    kind = leaf_kind(footer, leaf)
    order = footer.column_order(leaf.index)
    assert index.null_pages is not None and index.min_values is not None \
        and index.max_values is not None  # the caller passes only chunks with a ColumnIndex
    null_counts = None if index.null_counts is None else index.null_counts.tolist()
    nan_counts = None if index.nan_counts is None else index.nan_counts.tolist()
    out = []
    for i, rows in enumerate(page_rows):
        if index.null_pages[i]:
            out.append(ColumnAbstract.only_null(kind) if rows else
                       ColumnAbstract(kind, None, None, False, False, False, False))
            continue
        nulls = null_counts[i] if null_counts is not None else None
        nans = (nan_counts[i] if nan_counts is not None else None) \
            if leaf.float_type is not None else 0
        out.append(from_bounds(footer, leaf, order, index.min_values[i], index.max_values[i],
                               null_count=None if nulls is not None and nulls < 0 else nulls,
                               nan_count=None if nans is not None and nans < 0 else nans,
                               num_values=rows))
    return out


def _page_index_start(footer: Footer) -> int:
    """Where the first page index range of the file starts (the file's size: none)."""
    starts = [o for rg in footer.row_groups for c in rg.columns or ()
              for o in (c.column_index_offset, c.offset_index_offset) if o is not None]
    return min(starts, default=footer.file_size)


class FileSource(BuiltOnce):
    """A Parquet file's footer statistics and page indexes, for the pruning engine.

    Only the footer is read on construction; page indexes are read (all at
    once) the first time a page is asked for.  ``path`` is a local path or
    any URI of :func:`nanstats.lake.fs.resolve`, or a path on
    ``filesystem``; remote files are read by ranges, footer and page index
    only.

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
    >>> src.page_stats(1, "x") is src.page_stats(1, "x")    # built once
    True
    """

    def __init__(self, path: Target, names: set[str] | None = None, *,
                 filesystem: Any = None) -> None:
        self.location = resolve(path, filesystem)
        self.path = self.location.uri
        self._region: PageIndexRegion | None = None
        # Chunk and page abstractions, built once (see BuiltOnce).
        self._chunks: dict[tuple[int, str], ColumnAbstract] = {}
        self._pages: dict[tuple[int, str], PageStats | None] = {}
        with remote_errors(self.location), self.location.open_reader() as f:
            self.footer: Footer = read_footer(f)
            if isinstance(f, RemoteFile) and f.is_cached(_page_index_start(self.footer)):
                self._region = PageIndexRegion(f, self.footer)  # read already: keep it
        self.by_name = {leaf.name: leaf for leaf in self.footer.columns}
        missing = sorted((names or set()) - set(self.by_name))
        if missing:
            raise KeyError(f"{self.path}: no column {', '.join(map(repr, missing))} "
                           f"(columns: {', '.join(self.by_name)})")

    def float_widths(self) -> dict[str, int]:
        """Width in bits of each float column, by name (for literal typing)."""
        return {leaf.name: leaf.float_type.width for leaf in self.footer.columns
                if leaf.float_type is not None}

    def _leaf(self, name: str) -> LeafColumn:
        try:
            return self.by_name[name]
        except KeyError:
            raise KeyError(f"{self.path}: no column {name!r} (columns: "
                           f"{', '.join(self.by_name)})") from None

    def region(self) -> PageIndexRegion:
        if self._region is None:
            with remote_errors(self.location), self.location.open_reader() as f:
                self._region = PageIndexRegion(f, self.footer)
        return self._region

    @property
    def num_row_groups(self) -> int:
        return self.footer.num_row_groups

    def has_column(self, row_group: int, name: str) -> bool:
        """Whether the file has a leaf of that name."""
        return name in self.by_name

    def num_rows(self, row_group: int) -> int:
        return int(self.footer.row_groups[row_group].num_rows or 0)

    def _chunk_abstract(self, row_group: int, name: str) -> ColumnAbstract:
        return chunk_abstract(self.footer, row_group, self._leaf(name))

    def _page_stats(self, row_group: int, name: str) -> PageStats | None:
        leaf = self._leaf(name)
        if leaf.max_repetition_level > 0:
            return None  # a list's pages are not row ranges
        index = self.region().page_index(self.footer, row_group, leaf.index)
        if index.first_row_index is None or index.boundary_order is None:
            return None  # no OffsetIndex or no ColumnIndex
        rows = self.num_rows(row_group)
        starts = index.first_row_index.tolist()
        page_rows = np.diff(np.append(index.first_row_index, rows)).tolist()
        pages = page_abstracts(self.footer, leaf, index, page_rows)
        try:
            keys: list[tuple[Key, Key] | None] | None = self._keys(leaf, index, pages)
            note = ""
        except ValueError as exc:
            keys, note = None, f"{exc}; searched linearly"
        return PageStats(starts, pages, keys, index.boundary_order,
                         leaf_kind(self.footer, leaf), note)

    def _keys(self, leaf: LeafColumn, index: PageIndex, pages: list[ColumnAbstract]
              ) -> list[tuple[Key, Key] | None]:
        """Per page, (min key, max key) of its bounds (None: null page)."""
        ft = leaf.float_type
        ieee = self.footer.column_order(leaf.index) == "ieee754"
        out: list[tuple[Key, Key] | None] = []
        assert index.null_pages is not None and index.min_values is not None \
            and index.max_values is not None
        for i, a in enumerate(pages):
            if index.null_pages[i]:
                out.append(None)
            elif a.may_value and a.lo is not None and a.hi is not None:
                out.append((float_key(float(a.lo)), float_key(float(a.hi))) if ft is not None
                           else (a.lo, a.hi))
            elif ft is not None and ieee and not a.may_value:
                lo = ft.bits_to_float(ft.plain_to_bits(index.min_values[i]))
                hi = ft.bits_to_float(ft.plain_to_bits(index.max_values[i]))
                out.append((float_key(lo), float_key(hi)))
            else:
                raise ValueError(f"page {i} has no usable bounds")
        return out
