"""The pages of a column chunk: their headers, where they lie, how many values.

A column chunk is a run of pages, each a Thrift ``PageHeader`` followed by
its (possibly compressed) payload: an optional dictionary page first, then
data pages (v1 or v2).  :func:`read_pages` walks the headers and checks every
one against the chunk and the file, so a header that lies about its size
raises :class:`~nanstats.errors.ParquetFormatError` naming the byte offset.

>>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
>>> from nanstats.metadata.footer import read_footer
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> papq.write_table(pa.table({"x": [1.0, 2.0, 1.0]}), path)
>>> footer = read_footer(path)
>>> with open(path, "rb") as f:
...     pages = read_pages(f, footer, 0, 0)
>>> [(p.page_type, p.num_values, p.is_data) for p in pages]
[(2, 2, False), (0, 3, True)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from nanstats.errors import ParquetFormatError
from nanstats.metadata.footer import Footer
from nanstats.metadata.page_walk import (
    ABSENT,
    DATA_PAGE_TYPES,
    PAGE_TYPE_NAMES,
    PageTable,
    walk_pages,
)
from nanstats.metadata.thrift import RegionDecoder, pq

__all__ = ["Page", "PageList", "check_first_rows", "check_offset_index_pages", "chunk_range",
           "header_row_starts", "header_row_starts_array", "offset_index_columns", "page_table",
           "pages_from_bytes", "read_pages"]


@dataclass(frozen=True)
class Page:
    """One page of a column chunk, as its header describes it.

    ``offset`` is the file offset of the header, ``header_length`` its
    encoded size; the payload follows.  ``num_values`` counts values
    including nulls for data pages (v1 and v2) and entries for a dictionary
    page; ``num_rows`` is set for v2 data pages only.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.metadata.footer import read_footer
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, 2.0]}), path, use_dictionary=False,
    ...                  data_page_version="2.0")
    >>> with open(path, "rb") as f:
    ...     (page,) = read_pages(f, read_footer(path), 0, 0)
    >>> page.type_name, page.num_values, page.num_rows, page.is_data
    ('DATA_PAGE_V2', 2, 2, True)
    >>> page.data_offset == page.offset + page.header_length
    True
    >>> page.end == page.data_offset + page.compressed_page_size
    True
    """

    offset: int
    header: pq.PageHeader
    header_length: int
    page_type: int
    num_values: int | None
    num_rows: int | None

    @property
    def data_offset(self) -> int:
        """File offset of the payload."""
        return self.offset + self.header_length

    @property
    def compressed_page_size(self) -> int:
        """Size of the payload as stored."""
        return self.header.compressed_page_size or 0

    @property
    def end(self) -> int:
        """File offset just past the payload (where the next page starts)."""
        return self.data_offset + self.compressed_page_size

    @property
    def is_data(self) -> bool:
        """True for data pages (v1 or v2)."""
        return self.page_type in DATA_PAGE_TYPES

    @property
    def type_name(self) -> str:
        """The page type as the format names it (``DATA_PAGE``, ...)."""
        return PAGE_TYPE_NAMES.get(self.page_type, str(self.page_type))

    @property
    def data_header(self) -> pq.DataPageHeader | pq.DataPageHeaderV2 | None:
        """The v1 or v2 data page header, None for other pages."""
        return self.header.data_page_header or self.header.data_page_header_v2

    @property
    def statistics(self) -> pq.Statistics | None:
        """The Statistics in a data page header, or None."""
        sub = self.data_header
        return None if sub is None else sub.statistics


class PageList(list[Page]):
    """The pages of a chunk as :class:`Page` objects, with the
    :class:`~nanstats.metadata.page_walk.PageTable`
    they were built from (``table``).

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.metadata.footer import read_footer
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0]}), path, use_dictionary=False)
    >>> with open(path, "rb") as f:
    ...     pages = read_pages(f, read_footer(path), 0, 0)
    >>> pages.table.offset.tolist() == [p.offset for p in pages]
    True
    """

    table: PageTable


def page_table(pages: list[Page] | PageTable) -> PageTable:
    """The PageTable of a chunk's pages: the one they were read into, or one built
    from Page objects (made up by hand, say).

    >>> len(page_table([]))
    0
    """
    if isinstance(pages, PageTable):
        return pages
    table = getattr(pages, "table", None)
    if isinstance(table, PageTable):
        return table
    if not pages:
        return PageTable.empty()

    def col(values: list[int | None]) -> Any:
        return np.array([ABSENT if v is None else v for v in values], dtype=np.int64)

    n = len(pages)
    minus = np.full(n, -1, dtype=np.int64)
    return PageTable(
        col([p.offset for p in pages]), col([p.header_length for p in pages]),
        col([p.page_type for p in pages]),
        col([p.header.uncompressed_page_size for p in pages]),
        col([p.compressed_page_size for p in pages]), col([p.num_values for p in pages]),
        col([p.num_rows for p in pages]),
        col([getattr(p.data_header, "num_nulls", None) for p in pages]),
        col([getattr(p.data_header, "encoding", None) for p in pages]),
        minus, minus, np.zeros(n, dtype=np.int64), minus, np.zeros(n, dtype=np.int64), b"")


def chunk_range(footer: Footer, row_group: int, leaf: int) -> tuple[int, int]:
    """(start, length) of a column chunk's pages in the file, checked.

    The chunk starts at the dictionary page when there is one, else at the
    first data page.  Some writers set ``dictionary_page_offset`` to 0 (or
    leave it out) although a dictionary page sits at ``data_page_offset``;
    starting at the smaller valid offset covers both.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.metadata.footer import read_footer
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, 2.0]}), path)
    >>> chunk_range(read_footer(path), 0, 0)[0]
    4
    """
    chunk = footer.chunk(row_group, leaf)
    where = _where(footer, row_group, leaf)
    meta = chunk.meta_data
    if meta is None:
        raise ParquetFormatError(f"{where}: the column metadata is missing (encrypted?)",
                                 path=footer.path)
    data_off = meta.data_page_offset
    dict_off = meta.dictionary_page_offset
    length = meta.total_compressed_size
    if data_off is None or length is None:
        raise ParquetFormatError(f"{where}: data_page_offset or total_compressed_size missing",
                                 path=footer.path)
    # pyarrow writes data_page_offset 0 for a chunk with no data page (an
    # empty row group): only offsets past the magic count.
    valid = [o for o in (data_off, dict_off) if o is not None and o >= 4]
    start = min(valid) if valid else data_off
    if length == 0 and (meta.num_values or 0) == 0:
        return max(start, 4), 0  # an empty chunk: pyarrow writes no page at all
    if start < 4 or length < 0 or start + length > footer.metadata_offset:
        raise ParquetFormatError(
            f"{where}: pages at bytes {start}..{start + length} lie outside the data region "
            f"(bytes 4..{footer.metadata_offset})", path=footer.path, offset=start)
    if data_off >= 4 and data_off >= start + length and length > 0:
        raise ParquetFormatError(
            f"{where}: data_page_offset {data_off} lies past the chunk's "
            f"{length} bytes from {start}", path=footer.path, offset=data_off)
    return start, length


def read_pages(f: IO[bytes], footer: Footer, row_group: int, leaf: int) -> list[Page]:
    """The checked pages of one column chunk, read from the open file ``f``.

    Reads only page headers.  Raises ParquetFormatError when a header does
    not decode, lies outside the chunk or the file, has a negative size or
    count, when a dictionary page is not first, or when the data pages' value
    counts do not add up to the chunk's ``num_values``.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.metadata.footer import read_footer
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, 2.0, 3.0]}), path, use_dictionary=False,
    ...                  data_page_size=1, write_batch_size=1)
    >>> with open(path, "rb") as f:
    ...     pages = read_pages(f, read_footer(path), 0, 0)
    >>> [(p.type_name, p.num_values) for p in pages]
    [('DATA_PAGE', 1), ('DATA_PAGE', 1), ('DATA_PAGE', 1)]
    >>> all(a.end == b.offset for a, b in zip(pages, pages[1:]))  # back to back
    True
    """
    start, length = chunk_range(footer, row_group, leaf)

    def window(offset: int, size: int) -> bytes:
        f.seek(offset)
        return f.read(size)

    return _page_list(walk_pages(window, start, footer, row_group, leaf, length), footer)


def pages_from_bytes(data: bytes | memoryview, start: int, footer: Footer, row_group: int,
                     leaf: int) -> list[Page]:
    """Like :func:`read_pages`, from the chunk's bytes already in memory.

    ``data`` holds the chunk's bytes, ``start`` is where they begin in the
    file (see :func:`chunk_range`).

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.metadata.footer import read_footer
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, 2.0, 1.0]}), path)
    >>> footer = read_footer(path)
    >>> start, length = chunk_range(footer, 0, 0)
    >>> with open(path, "rb") as f:
    ...     _ = f.seek(start)
    ...     chunk = f.read(length)
    ...     assert pages_from_bytes(chunk, start, footer, 0, 0) == read_pages(f, footer, 0, 0)
    >>> [p.type_name for p in pages_from_bytes(chunk, start, footer, 0, 0)]
    ['DICTIONARY_PAGE', 'DATA_PAGE']
    """
    return _page_list(walk_pages(data, start, footer, row_group, leaf), footer)


def offset_index_columns(offset_index: pq.OffsetIndex) -> tuple[Any, Any, Any]:
    """The OffsetIndex's (offset, compressed_page_size, first_row_index) as int64 columns
    (unset values as ``page_walk.ABSENT``).

    >>> [c.tolist() for c in offset_index_columns(pq.OffsetIndex(page_locations=[
    ...     pq.PageLocation(offset=4, compressed_page_size=9, first_row_index=0)]))]
    [[4], [9], [0]]
    """
    locs = offset_index.page_locations or []
    n = len(locs)

    def col(name: str) -> Any:
        values = [getattr(loc, name) for loc in locs]
        try:
            return np.array(values, dtype=np.int64) if n else np.zeros(0, dtype=np.int64)
        except (TypeError, OverflowError):  # None (unset) or out of range
            return np.array([ABSENT if v is None or not -(1 << 63) <= v < (1 << 63) else v
                             for v in values], dtype=np.int64)

    return col("offset"), col("compressed_page_size"), col("first_row_index")


def check_offset_index_pages(pages: list[Page] | PageTable, offset_index: pq.OffsetIndex | None,
                             footer: Footer,
                             row_group: int, leaf: int) -> None:
    """Check that an OffsetIndex lists exactly the chunk's data pages.

    Each page location must name the offset of a data page header and its
    full size (header and payload); a v2 page's ``num_rows`` must match the
    gap between first rows.  Raises ParquetFormatError otherwise; does
    nothing when ``offset_index`` is None.

    >>> check_offset_index_pages([], None, None, 0, 0)  # nothing to check
    """
    if offset_index is None:
        return
    table = page_table(pages)
    where = _where(footer, row_group, leaf)
    data = np.flatnonzero(table.is_data)
    offsets, sizes, firsts = offset_index_columns(offset_index)
    if len(offsets) != len(data):
        raise ParquetFormatError(
            f"{where}: the OffsetIndex lists {len(offsets)} pages, the chunk has {len(data)} "
            "data pages", path=footer.path,
            offset=int(table.offset[data[0]]) if len(data) else None)
    page_offsets = table.offset[data]
    page_sizes = (table.end - table.offset)[data]
    bad = np.flatnonzero((offsets != page_offsets) | (sizes != page_sizes))
    if len(bad):
        i = int(bad[0])
        loc = (offset_index.page_locations or [])[i]
        raise ParquetFormatError(
            f"{where}: OffsetIndex page {i} is at byte {loc.offset} ({loc.compressed_page_size}"
            f" bytes) but data page {i} is at byte {int(page_offsets[i])} "
            f"({int(page_sizes[i])} bytes)", path=footer.path, offset=loc.offset)
    rows = footer.row_groups[row_group].num_rows or 0
    # page_index._check_offset_index checked every first_row_index is set.
    bounds = np.append(np.where(firsts == ABSENT, 0, firsts), rows)
    num_rows = table.num_rows[data]
    bad = np.flatnonzero((num_rows != ABSENT) & (np.diff(bounds) != num_rows))
    if len(bad):
        i = int(bad[0])
        raise ParquetFormatError(
            f"{where}: OffsetIndex page {i} spans rows {int(bounds[i])}..{int(bounds[i + 1])}, "
            f"but its DATA_PAGE_V2 header says {int(num_rows[i])} rows", path=footer.path,
            offset=int(page_offsets[i]))


def header_row_starts(pages: list[Page] | PageTable, footer: Footer, row_group: int,
                      leaf: int) -> list[int] | None:
    """The first row of each data page, counted from the page headers alone.

    A leaf that is not repeated has one value (or null) per row, so a v1
    page holds ``num_values`` rows; a v2 page says ``num_rows`` (and for
    such a leaf it must equal ``num_values``).  In a repeated leaf a v1
    page's rows are known only from its repetition levels: None then (the
    caller cannot know the rows without decoding the levels).  Raises
    ParquetFormatError when a v2 header contradicts itself or the pages do
    not add up to the row group's rows.  The one place that counts a
    chunk's rows from its headers (:func:`check_first_rows`, the
    recomputation and verify ask it).

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.metadata.footer import read_footer
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, None, 3.0]}), path, use_dictionary=False,
    ...                  data_page_size=1, write_batch_size=2)
    >>> footer = read_footer(path)
    >>> with open(path, "rb") as f:
    ...     header_row_starts(read_pages(f, footer, 0, 0), footer, 0, 0)
    [0, 2]
    """
    starts = header_row_starts_array(pages, footer, row_group, leaf)
    return None if starts is None else starts.tolist()


def header_row_starts_array(pages: list[Page] | PageTable, footer: Footer, row_group: int,
                            leaf: int) -> Any:
    """:func:`header_row_starts` as an int64 array (None for a repeated leaf of v1 pages).

    >>> header_row_starts_array([], None, 0, 0).tolist()
    []
    """
    table = page_table(pages)
    data = np.flatnonzero(table.is_data)
    if not len(data):
        return np.zeros(0, dtype=np.int64)
    where = _where(footer, row_group, leaf)
    repeated = footer.columns[leaf].max_repetition_level > 0
    num_rows, num_values = table.num_rows[data], table.num_values[data]
    v2 = num_rows != ABSENT
    if not repeated:
        bad = np.flatnonzero(v2 & (num_rows != num_values))
        if len(bad):
            i = int(bad[0])
            page = int(data[i])
            raise ParquetFormatError(
                f"{where}: data page {i} ({table.type_name(page)} at byte "
                f"{int(table.offset[page])}) says {int(num_rows[i])} rows and "
                f"{int(num_values[i])} values, but every row of a column that is not repeated "
                "holds one value", path=footer.path, offset=int(table.offset[page]))
    elif not v2.all():
        return None
    rows = np.where(v2, num_rows, num_values)
    ends = np.cumsum(rows, dtype=np.int64)
    expected = footer.row_groups[row_group].num_rows or 0
    if int(ends[-1]) != expected:
        raise ParquetFormatError(
            f"{where}: the data page headers hold {int(ends[-1])} rows, the row group "
            f"{expected}", path=footer.path, offset=int(table.offset[data[0]]))
    return ends - rows


def check_first_rows(pages: list[Page] | PageTable, offset_index: pq.OffsetIndex | None,
                     footer: Footer, row_group: int, leaf: int) -> list[int] | None:
    """The first row of each data page from the headers, checked against the OffsetIndex.

    Returns :func:`header_row_starts`.  Raises ParquetFormatError naming
    the file, row group, column and page when an OffsetIndex
    ``first_row_index`` is not the row the page headers put that page at:
    a reader trusting it would give the page's values to other rows.
    Call :func:`check_offset_index_pages` first (same number of pages).

    >>> check_first_rows([], None, None, 0, 0) is None   # no OffsetIndex, no pages: nothing
    True
    """
    table = page_table(pages)
    if offset_index is None and not len(table):
        return None
    starts = header_row_starts_array(table, footer, row_group, leaf)
    if starts is None or offset_index is None:
        return None if starts is None else starts.tolist()
    firsts = offset_index_columns(offset_index)[2]
    bad = np.flatnonzero(firsts != starts)
    if len(bad):
        i = int(bad[0])
        page = int(np.flatnonzero(table.is_data)[i])
        first = (offset_index.page_locations or [])[i].first_row_index
        raise ParquetFormatError(
            f"{_where(footer, row_group, leaf)}: data page {i} ({table.type_name(page)} at byte "
            f"{int(table.offset[page])}) starts at row {int(starts[i])} by the page headers, "
            f"but the OffsetIndex says row {first}", path=footer.path,
            offset=int(table.offset[page]))
    rows: list[int] = starts.tolist()
    return rows


def _where(footer: Footer, row_group: int, leaf: int) -> str:
    return f"row group {row_group}, column {footer.columns[leaf].name!r}"


def _page_list(table: PageTable, footer: Footer) -> PageList:
    """Page objects of a walked chunk, each header decoded in full."""
    pages = PageList()
    pages.table = table
    region = RegionDecoder(table.headers, path=footer.path)
    for offset, hlen, ptype, nvalues, nrows, at in zip(
            table.offset.tolist(), table.header_length.tolist(), table.page_type.tolist(),
            table.num_values.tolist(), table.num_rows.tolist(), table.header_at.tolist(),
            strict=True):
        header = region.decode_at(pq.PageHeader, at, hlen,
                                  what=f"page header at byte {offset}")
        pages.append(Page(offset, header, hlen, ptype,
                          None if ptype == pq.PAGE_INDEX or nvalues == ABSENT else nvalues,
                          None if nrows == ABSENT else nrows))
    return pages
