"""ColumnIndex and OffsetIndex of column chunks, read from their file offsets.

Both sit between the last column chunk and the footer.  Every offset and
length is checked against that region before anything is read.

>>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> papq.write_table(pa.table({"x": [1.0, 2.0, 3.0]}), path, data_page_size=1,
...                  write_page_index=True, write_batch_size=1)
>>> from nanstats.metadata.footer import read_footer
>>> footer = read_footer(path)
>>> with open(path, "rb") as f:
...     ci, oi = read_page_index(f, footer, 0, 0)
>>> len(oi.page_locations), ci.null_pages
(3, [False, False, False])

Readers take it decoded once into columnar values, :class:`PageIndex`:

>>> index = PageIndex.from_thrift(ci, oi)
>>> index.first_row_index.tolist(), index.null_pages.tolist(), index.boundary_order
([0, 1, 2], [False, False, False], 'ASCENDING')
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from nanstats.core.rules import BoundaryOrder
from nanstats.errors import ParquetFormatError
from nanstats.metadata.convert import BOUNDARY_ORDER_NAMES
from nanstats.metadata.footer import Footer
from nanstats.metadata.thrift import RegionDecoder, decode, pq

#: Page index ranges this close together are read in one read.
COALESCE_GAP = 64 * 1024


def read_page_index(f: IO[bytes] | None, footer: Footer, row_group: int, leaf: int, *,
                    region: PageIndexRegion | None = None) -> tuple[pq.ColumnIndex | None, pq.OffsetIndex | None]:
    """(ColumnIndex or None, OffsetIndex or None) of one column chunk.

    With ``region`` (a :class:`PageIndexRegion` of the file) the bytes come
    from memory; ``f`` may then be None.  Every offset, length and list is
    checked (ParquetFormatError names the chunk and byte offset); a chunk
    written without a page index gives ``(None, None)``.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.metadata.footer import read_footer
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [3.0, 1.0]}), path, write_page_index=True,
    ...                  data_page_size=1, write_batch_size=1)
    >>> footer = read_footer(path)
    >>> with open(path, "rb") as f:
    ...     ci, oi = read_page_index(f, footer, 0, 0)
    >>> BOUNDARY_ORDER_NAMES[ci.boundary_order], [loc.first_row_index for loc in oi.page_locations]
    ('DESCENDING', [0, 1])
    >>> papq.write_table(pa.table({"x": [1.0]}), path)  # no page index
    >>> with open(path, "rb") as f:
    ...     read_page_index(f, read_footer(path), 0, 0)
    (None, None)
    """
    chunk = footer.chunk(row_group, leaf)
    where = f"row group {row_group}, column {footer.columns[leaf].name!r}"
    ci = _read(f, footer, chunk.column_index_offset, chunk.column_index_length,
               pq.ColumnIndex, f"ColumnIndex of {where}", region)
    oi = _read(f, footer, chunk.offset_index_offset, chunk.offset_index_length,
               pq.OffsetIndex, f"OffsetIndex of {where}", region)
    if oi is not None:
        _check_offset_index(oi, footer, row_group, where)
    if ci is not None:
        _check_column_index(ci, oi, footer, where)
    return ci, oi


@dataclass(frozen=True, eq=False)
class PageIndex:
    """The page index of one column chunk, decoded once into columnar values.

    One entry per data page.  The ColumnIndex fields (``null_pages``,
    ``min_values``/``max_values`` as the PLAIN bytes written,
    ``null_counts``/``nan_counts`` or None where the writer left them out,
    ``boundary_order`` by name) are None when the chunk has no ColumnIndex;
    the OffsetIndex fields (``first_row_index``, ``offsets``,
    ``compressed_sizes``) None when it has no OffsetIndex.

    >>> from nanstats.metadata.thrift import pq
    >>> ci = pq.ColumnIndex(null_pages=[False, True], min_values=[b"a", b""],
    ...                     max_values=[b"b", b""], boundary_order=1, null_counts=[0, 4])
    >>> index = PageIndex.from_thrift(ci, None)
    >>> index.num_pages, index.null_counts.tolist(), index.nan_counts, index.has_offset_index
    (2, [0, 4], None, False)
    """

    num_pages: int
    null_pages: npt.NDArray[np.bool_] | None
    min_values: list[bytes] | None
    max_values: list[bytes] | None
    null_counts: npt.NDArray[np.int64] | None
    nan_counts: npt.NDArray[np.int64] | None
    boundary_order: BoundaryOrder | None
    first_row_index: npt.NDArray[np.int64] | None
    offsets: npt.NDArray[np.int64] | None
    compressed_sizes: npt.NDArray[np.int64] | None

    @property
    def has_column_index(self) -> bool:
        """True when the chunk has a ColumnIndex."""
        return self.null_pages is not None

    @property
    def has_offset_index(self) -> bool:
        """True when the chunk has an OffsetIndex."""
        return self.first_row_index is not None

    @classmethod
    def from_thrift(cls, ci: pq.ColumnIndex | None, oi: pq.OffsetIndex | None) -> PageIndex:
        """The values of a (checked) Thrift ColumnIndex and OffsetIndex, either may be None."""
        # _check_column_index / _check_offset_index made sure the lists are there.
        n = len(ci.null_pages or ()) if ci is not None else \
            len(oi.page_locations or ()) if oi else 0
        null_pages: npt.NDArray[np.bool_] | None = None
        min_values = max_values = None
        null_counts = nan_counts = None
        order = None
        if ci is not None:
            null_pages = np.array([bool(b) for b in ci.null_pages or ()], dtype=np.bool_)
            min_values, max_values = list(ci.min_values or ()), list(ci.max_values or ())
            null_counts = _int64s(ci.null_counts)
            nan_counts = _int64s(ci.nan_counts)
            order = BOUNDARY_ORDER_NAMES.get(ci.boundary_order or 0)
        firsts = offsets = sizes = None
        if oi is not None:
            locs = np.array([(loc.offset, loc.compressed_page_size, loc.first_row_index)
                             for loc in oi.page_locations or ()],
                            dtype=np.int64).reshape(-1, 3)
            offsets, sizes, firsts = locs[:, 0], locs[:, 1], locs[:, 2]
        return cls(n, null_pages, min_values, max_values, null_counts, nan_counts, order,
                   firsts, offsets, sizes)


def _int64s(values: list[int] | None) -> npt.NDArray[np.int64] | None:
    return None if values is None else np.array(values, dtype=np.int64)


class PageIndexRegion:
    """The bytes of every page index of a file, read once (for reading many).

    Each column chunk's ColumnIndex and OffsetIndex ranges, as the footer
    places them, are read; ranges are read together only when the gap between
    them is small (at most ``COALESCE_GAP`` bytes, and no larger than the
    range after it), so the bytes read are at most twice what the footer
    declares, wherever the indexes lie: a page index far from the footer, or
    an offset pointing at the start of a large file, costs its own bytes, not
    the bytes in between.  Ranges that lie outside the data region are not
    read; :func:`read_page_index` refuses them when their chunk is asked for.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.metadata.footer import read_footer
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, 2.0], "y": [3.0, 4.0]}), path,
    ...                  write_page_index=True)
    >>> footer = read_footer(path)
    >>> with open(path, "rb") as f:
    ...     region = PageIndexRegion(f, footer)
    ...     from_file = [read_page_index(f, footer, 0, leaf) for leaf in (0, 1)]
    >>> 0 < region.bytes_read < footer.metadata_offset
    True
    >>> [region.read_page_index(footer, 0, leaf) for leaf in (0, 1)] == from_file
    True
    """

    def __init__(self, f: IO[bytes], footer: Footer) -> None:
        end = footer.metadata_offset
        ranges = sorted((o, o + n) for rg in footer.metadata.row_groups or ()
                        for c in rg.columns or ()
                        for o, n in ((c.column_index_offset, c.column_index_length),
                                     (c.offset_index_offset, c.offset_index_length))
                        if o is not None and n is not None and 4 <= o and 0 < n
                        and o + n <= end)
        runs: list[list[int]] = []
        for lo, hi in ranges:
            if runs and lo - runs[-1][1] <= min(COALESCE_GAP, hi - lo):
                runs[-1][1] = max(runs[-1][1], hi)
            else:
                runs.append([lo, hi])
        self._starts = [lo for lo, _ in runs]
        self._decoders = []
        for lo, hi in runs:
            f.seek(lo)
            data = f.read(hi - lo)
            if len(data) != hi - lo:
                raise ParquetFormatError(f"the page index at bytes {lo}..{hi} is cut short: "
                                         f"{len(data)} bytes read", path=footer.path, offset=lo)
            self._decoders.append(RegionDecoder(data, base=lo, path=footer.path))

    @property
    def bytes_read(self) -> int:
        """How many bytes were read (the page index ranges and the small gaps between)."""
        return sum(len(d.data) for d in self._decoders)

    def _decoder_for(self, offset: int, length: int) -> RegionDecoder | None:
        i = bisect.bisect_right(self._starts, offset) - 1
        if i < 0:
            return None
        decoder = self._decoders[i]
        return decoder if offset + length <= decoder.base + len(decoder.data) else None

    def read_page_index(self, footer: Footer, row_group: int, leaf: int) -> tuple[pq.ColumnIndex | None, pq.OffsetIndex | None]:
        """As :func:`read_page_index`, from the region in memory."""
        return read_page_index(None, footer, row_group, leaf, region=self)

    def page_index(self, footer: Footer, row_group: int, leaf: int) -> PageIndex:
        """The page index of one column chunk, read, checked and decoded to values.

        >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
        >>> from nanstats.metadata.footer import read_footer
        >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
        >>> papq.write_table(pa.table({"x": [1.0, None]}), path, write_page_index=True)
        >>> footer = read_footer(path)
        >>> with open(path, "rb") as f:
        ...     index = PageIndexRegion(f, footer).page_index(footer, 0, 0)
        >>> index.null_counts.tolist(), len(index.offsets), index.min_values
        ([1], 1, [b'\\x00\\x00\\x00\\x00\\x00\\x00\\xf0?'])
        """
        return PageIndex.from_thrift(*self.read_page_index(footer, row_group, leaf))


def _read(f: IO[bytes] | None, footer: Footer, offset: int | None, length: int | None,
          cls: type, what: str, region: PageIndexRegion | None = None) -> Any:
    if offset is None and length is None:
        return None
    if offset is None or length is None or offset < 4 or length <= 0 \
            or offset + length > footer.metadata_offset:
        raise ParquetFormatError(
            f"{what}: offset {offset} and length {length} lie outside the region before the "
            f"footer (bytes 4..{footer.metadata_offset})", path=footer.path, offset=offset)
    decoder = None if region is None else region._decoder_for(offset, length)
    if decoder is not None:
        return decoder.decode_at(cls, offset - decoder.base, length, what=what)
    assert f is not None, "every range in the data region is in the PageIndexRegion"
    f.seek(offset)
    obj: Any
    obj, _ = decode(cls, f.read(length), path=footer.path, offset=offset, what=what)
    return obj


def _check_offset_index(oi: pq.OffsetIndex, footer: Footer, row_group: int, where: str) -> None:
    """Page locations: within the data region, ordered, first rows increasing from 0."""
    locs = oi.page_locations
    if not locs:
        raise ParquetFormatError(f"OffsetIndex of {where} has no page locations",
                                 path=footer.path)
    num_rows = footer.row_groups[row_group].num_rows or 0
    prev_row, prev_end = -1, 4
    for i, loc in enumerate(locs):
        off, size, first = loc.offset, loc.compressed_page_size, loc.first_row_index
        if off is None or size is None or first is None:
            raise ParquetFormatError(f"OffsetIndex of {where}: page {i} lacks a required field",
                                     path=footer.path)
        if off < prev_end or size <= 0 or off + size > footer.metadata_offset:
            raise ParquetFormatError(
                f"OffsetIndex of {where}: page {i} at bytes {off}..{off + size} overlaps the "
                "previous page or lies outside the data", path=footer.path, offset=off)
        if first <= prev_row or first >= max(num_rows, 1) or (i == 0 and first != 0):
            raise ParquetFormatError(
                f"OffsetIndex of {where}: page {i} first_row_index {first} is out of order "
                f"(row group of {num_rows} rows)", path=footer.path, offset=off)
        prev_row, prev_end = first, off + size


def _check_column_index(ci: pq.ColumnIndex, oi: pq.OffsetIndex | None, footer: Footer, where: str) -> None:
    """All lists present and as long as the page count."""
    n = len(ci.null_pages or ())
    lists = {"null_pages": ci.null_pages, "min_values": ci.min_values,
             "max_values": ci.max_values}
    for name, values in lists.items():
        if values is None or len(values) != n:
            raise ParquetFormatError(f"ColumnIndex of {where}: {name} has "
                                     f"{'no' if values is None else len(values)} entries for "
                                     f"{n} pages", path=footer.path)
    for name in ("null_counts", "nan_counts"):
        values = getattr(ci, name)
        if values is not None and len(values) != n:
            raise ParquetFormatError(f"ColumnIndex of {where}: {name} has {len(values)} "
                                     f"entries for {n} pages", path=footer.path)
    if oi is not None and len(oi.page_locations or ()) != n:
        raise ParquetFormatError(f"ColumnIndex of {where} has {n} pages, its OffsetIndex "
                                 f"{len(oi.page_locations or ())}", path=footer.path)
    if ci.boundary_order not in BOUNDARY_ORDER_NAMES:
        raise ParquetFormatError(f"ColumnIndex of {where}: unknown boundary_order "
                                 f"{ci.boundary_order}", path=footer.path)
