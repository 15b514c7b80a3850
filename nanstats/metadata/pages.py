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

from nanstats.errors import ParquetFormatError
from nanstats.metadata.footer import Footer
from nanstats.metadata.thrift import RegionDecoder, pq

DATA_PAGE_TYPES = (pq.PAGE_DATA, pq.PAGE_DATA_V2)
PAGE_TYPE_NAMES = {
    pq.PAGE_DATA: "DATA_PAGE",
    pq.PAGE_INDEX: "INDEX_PAGE",
    pq.PAGE_DICTIONARY: "DICTIONARY_PAGE",
    pq.PAGE_DATA_V2: "DATA_PAGE_V2",
}

# Bytes read at first to decode a header; grown when a header is larger
# (page statistics of long byte-array values, say).
_FIRST_WINDOW = 1024
# After a small page, a window of this many pages' bytes (up to _MAX_WINDOW)
# is read and its headers decoded without new set-up for each.
_PAGES_PER_WINDOW = 64
_MAX_WINDOW = 1 << 16


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

    return _walk(window, footer, row_group, leaf, start, length)


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
    view = memoryview(data)
    length = len(view)

    def window(offset: int, size: int) -> bytes:
        lo = offset - start
        return bytes(view[lo:lo + size])

    return _walk(window, footer, row_group, leaf, start, length)


def check_offset_index_pages(pages: list[Page], offset_index: pq.OffsetIndex | None,
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
    where = _where(footer, row_group, leaf)
    data = [p for p in pages if p.is_data]
    locs = offset_index.page_locations or []
    if len(locs) != len(data):
        raise ParquetFormatError(
            f"{where}: the OffsetIndex lists {len(locs)} pages, the chunk has {len(data)} data "
            "pages", path=footer.path, offset=data[0].offset if data else None)
    for i, (loc, page) in enumerate(zip(locs, data, strict=True)):
        if loc.offset != page.offset or loc.compressed_page_size != page.end - page.offset:
            raise ParquetFormatError(
                f"{where}: OffsetIndex page {i} is at byte {loc.offset} ({loc.compressed_page_size}"
                f" bytes) but data page {i} is at byte {page.offset} ({page.end - page.offset} "
                "bytes)", path=footer.path, offset=loc.offset)
    rows = footer.row_groups[row_group].num_rows or 0
    # page_index._check_offset_index checked every first_row_index is set.
    firsts = [loc.first_row_index or 0 for loc in locs] + [rows]
    for i, page in enumerate(data):
        if page.num_rows is not None and firsts[i + 1] - firsts[i] != page.num_rows:
            raise ParquetFormatError(
                f"{where}: OffsetIndex page {i} spans rows {firsts[i]}..{firsts[i + 1]}, but "
                f"its DATA_PAGE_V2 header says {page.num_rows} rows", path=footer.path,
                offset=page.offset)


def header_row_starts(pages: list[Page], footer: Footer, row_group: int,
                      leaf: int) -> list[int] | None:
    """The first row of each data page, counted from the page headers alone.

    A leaf that is not repeated has one value (or null) per row, so a v1
    page holds ``num_values`` rows; a v2 page says ``num_rows`` (and for
    such a leaf it must equal ``num_values``).  In a repeated leaf a v1
    page's rows are known only from its repetition levels: None then (the
    caller cannot know the rows without decoding the levels).  Raises
    ParquetFormatError when a v2 header contradicts itself or the pages do
    not add up to the row group's rows.

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
    where = _where(footer, row_group, leaf)
    repeated = footer.columns[leaf].max_repetition_level > 0
    starts: list[int] = []
    row = 0
    for i, page in enumerate(p for p in pages if p.is_data):
        if page.num_rows is not None:
            if not repeated and page.num_rows != page.num_values:
                raise ParquetFormatError(
                    f"{where}: data page {i} ({page.type_name} at byte {page.offset}) says "
                    f"{page.num_rows} rows and {page.num_values} values, but every row of a "
                    "column that is not repeated holds one value", path=footer.path,
                    offset=page.offset)
            rows = page.num_rows
        elif repeated:
            return None
        else:
            rows = page.num_values or 0
        starts.append(row)
        row += rows
    expected = footer.row_groups[row_group].num_rows or 0
    if starts and row != expected:
        raise ParquetFormatError(
            f"{where}: the data page headers hold {row} rows, the row group {expected}",
            path=footer.path, offset=next(p for p in pages if p.is_data).offset)
    return starts


def check_first_rows(pages: list[Page], offset_index: pq.OffsetIndex | None, footer: Footer,
                     row_group: int, leaf: int) -> list[int] | None:
    """The first row of each data page from the headers, checked against the OffsetIndex.

    Returns :func:`header_row_starts`.  Raises ParquetFormatError naming
    the file, row group, column and page when an OffsetIndex
    ``first_row_index`` is not the row the page headers put that page at:
    a reader trusting it would give the page's values to other rows.
    Call :func:`check_offset_index_pages` first (same number of pages).

    >>> check_first_rows([], None, None, 0, 0) is None   # no OffsetIndex, no pages: nothing
    True
    """
    if offset_index is None and not pages:
        return None
    starts = header_row_starts(pages, footer, row_group, leaf)
    if starts is None or offset_index is None:
        return starts
    data = [p for p in pages if p.is_data]
    for i, (loc, row) in enumerate(zip(offset_index.page_locations or [], starts, strict=True)):
        if loc.first_row_index != row:
            raise ParquetFormatError(
                f"{_where(footer, row_group, leaf)}: data page {i} ({data[i].type_name} at byte "
                f"{data[i].offset}) starts at row {row} by the page headers, but the "
                f"OffsetIndex says row {loc.first_row_index}", path=footer.path,
                offset=data[i].offset)
    return starts


def _where(footer: Footer, row_group: int, leaf: int) -> str:
    return f"row group {row_group}, column {footer.columns[leaf].name!r}"


def _walk(window: Any, footer: Footer, row_group: int, leaf: int, start: int,
          length: int) -> list[Page]:
    where = _where(footer, row_group, leaf)
    what = f"page header of {where}"
    path = footer.path
    meta = footer.chunk_meta(row_group, leaf)
    end = start + length
    pages: list[Page] = []
    pos = start
    total_values = 0
    # The headers are decoded from windows of the chunk, one decoder per
    # window: a window holds many headers when pages are small.
    region: RegionDecoder | None = None
    lo = hi = start
    span = _FIRST_WINDOW  # bytes of the last page, header and payload
    while pos < end:
        available = end - pos
        want = min(_FIRST_WINDOW, available)
        while True:
            if region is None or pos + want > hi:
                size = min(max(want, min(span * _PAGES_PER_WINDOW, _MAX_WINDOW)), available)
                region = RegionDecoder(window(pos, size), base=pos, path=path)
                lo, hi = pos, pos + size
            try:
                header, after = region.decode_from(pq.PageHeader, pos - lo, what=what)
                break
            except ParquetFormatError:
                if hi >= end:
                    raise
                want = min((hi - pos) * 16, available)  # a larger header: a larger window
        page = _page(header, after - (pos - lo), pos, where, path)
        page_end = page.end
        if page_end > end:
            raise ParquetFormatError(
                f"{where}: {page.type_name} at byte {pos} ends at byte {page_end}, past the "
                f"end of the column chunk (byte {end})", path=path, offset=pos)
        if page.page_type == pq.PAGE_DICTIONARY and pages:
            raise ParquetFormatError(f"{where}: a dictionary page that is not the chunk's first "
                                     "page", path=path, offset=pos)
        if page.is_data:
            total_values += page.num_values or 0
        pages.append(page)
        span = page_end - pos
        pos = page_end
    expected = meta.num_values
    if expected is not None and total_values != expected:
        raise ParquetFormatError(
            f"{where}: the data pages hold {total_values} values, the column metadata says "
            f"{expected}", path=path, offset=start)
    return pages


def _page(header: pq.PageHeader, used: int, pos: int, where: str, path: str) -> Page:
    ptype = header.type
    comp, uncomp = header.compressed_page_size, header.uncompressed_page_size
    if comp is None or uncomp is None or comp < 0 or uncomp < 0:
        raise ParquetFormatError(
            f"{where}: page header at byte {pos} has sizes {comp} (compressed) and {uncomp} "
            "(uncompressed)", path=path, offset=pos)
    num_rows = None
    sub: object
    if ptype == pq.PAGE_DATA:
        sub = v1 = header.data_page_header
        num_values = None if v1 is None else v1.num_values
    elif ptype == pq.PAGE_DATA_V2:
        sub = v2 = header.data_page_header_v2
        num_values = None if v2 is None else v2.num_values
        num_rows = None if v2 is None else v2.num_rows
        if v2 is not None and (num_rows is None or num_rows < 0 or (v2.num_nulls or 0) < 0):
            raise ParquetFormatError(
                f"{where}: DATA_PAGE_V2 at byte {pos} has num_rows {num_rows}, num_nulls "
                f"{v2.num_nulls}", path=path, offset=pos)
        if v2 is not None:
            levels = (v2.definition_levels_byte_length or 0) + \
                (v2.repetition_levels_byte_length or 0)
            if (v2.definition_levels_byte_length or 0) < 0 or \
                    (v2.repetition_levels_byte_length or 0) < 0 or levels > comp:
                raise ParquetFormatError(
                    f"{where}: DATA_PAGE_V2 at byte {pos} has {levels} level bytes in a "
                    f"{comp}-byte page", path=path, offset=pos)
    elif ptype == pq.PAGE_DICTIONARY:
        sub = dictionary = header.dictionary_page_header
        num_values = None if dictionary is None else dictionary.num_values
    elif ptype == pq.PAGE_INDEX:
        sub, num_values = True, None
    else:
        raise ParquetFormatError(f"{where}: unknown page type {ptype} at byte {pos}",
                                 path=path, offset=pos)
    if sub is None:
        raise ParquetFormatError(
            f"{where}: {PAGE_TYPE_NAMES[ptype]} at byte {pos} lacks its type-specific header",
            path=path, offset=pos)
    if ptype != pq.PAGE_INDEX and (num_values is None or num_values < 0):
        raise ParquetFormatError(
            f"{where}: {PAGE_TYPE_NAMES[ptype]} at byte {pos} has num_values {num_values}",
            path=path, offset=pos)
    return Page(pos, header, used, ptype, num_values, num_rows)
