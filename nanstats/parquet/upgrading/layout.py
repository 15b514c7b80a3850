"""Where everything lands in the output: pages, page headers, offsets that move.

Layout of the output: ``PAR1``, the row groups' column chunks (in leaf
order), the bloom filters, all ColumnIndexes, all OffsetIndexes, the footer.
:func:`write_chunk` writes one chunk (page payloads copied byte for byte,
headers re-encoded with the new statistics) and records every offset that
moved; the other functions write what follows the chunks.

>>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
>>> from nanstats.metadata.footer import read_footer
>>> from nanstats.parquet.upgrading.plan import read_chunk
>>> from nanstats.parquet.upgrading.io_calls import io_calls
>>> from nanstats.parquet.upgrading.writer import Writer
>>> d = tempfile.mkdtemp()
>>> path = os.path.join(d, "t.parquet")
>>> papq.write_table(pa.table({"x": [1.0, np.nan]}), path)
>>> footer = read_footer(path)
>>> with open(path, "rb") as f, open(os.path.join(d, "out"), "wb") as out:
...     w = Writer(out.fileno(), io_calls().open_reader(path, f.fileno()))
...     _ = w.write(b"PAR1")
...     ch = read_chunk(f, footer, 0, footer.columns[0])
...     write_chunk(w, ch)     # copied as it was: same place, same size
...     w.flush()
...     w.close()
>>> ch.new.meta_data.data_page_offset == ch.old.meta_data.data_page_offset, w.pos == ch.start + ch.length
(True, True)
"""

from __future__ import annotations

import copy
from typing import IO, Any

import numpy as np

from nanstats._pagewalk import encode_page_locations, rewrite_headers
from nanstats.errors import ParquetFormatError
from nanstats.metadata.compact import UNKNOWN, replace
from nanstats.metadata.footer import Footer
from nanstats.metadata.page_walk import ABSENT, STATISTICS_FIELD
from nanstats.metadata.pages import offset_index_columns
from nanstats.metadata.thrift import decode, encode, pq
from nanstats.parquet.source_map import SourceMap
from nanstats.parquet.upgrading.plan import Chunk
from nanstats.parquet.upgrading.writer import Writer


def write_chunk(w: Writer, ch: Chunk) -> None:
    """Write one chunk: pages copied, headers and indexes rewritten from ``ch.stats``.

    A chunk copied as it was goes out in one copy; in a rewritten chunk
    every data page header gets its new statistics (the rest of each
    header as read) and the pages go out a run at a time
    (:meth:`Writer.write_pages`).  Nothing here is done page by page in
    Python.
    """
    path = ch.path
    t = ch.pages
    new_start = w.pos
    old_meta = ch.old.meta_data
    is_data = t.is_data
    payload = t.compressed_page_size
    if ch.stats is None:
        shift = (w.copy(ch.start, ch.length, path) - ch.start) if len(t) else 0
        new_offsets = t.offset + shift
        new_sizes = t.header_length + payload
        delta = 0
    else:
        headers, header_at = _new_headers(ch)
        new_sizes = np.diff(header_at) + payload
        new_offsets = new_start + np.concatenate(([0], np.cumsum(new_sizes)[:-1])) \
            if len(t) else new_sizes
        w.write_pages(headers, header_at, t.offset + t.header_length, payload, path)
        delta = int(header_at[-1]) - int(t.header_length.sum())
    data_offsets, data_sizes = new_offsets[is_data], new_sizes[is_data]
    others = np.flatnonzero(~is_data)
    dict_offset = index_offset = None
    for i in others.tolist():  # a dictionary page, rarely an index page
        if t.page_type[i] == pq.PAGE_DICTIONARY:
            dict_offset = int(new_offsets[i])
        elif t.offset[i] == old_meta.index_page_offset:
            index_offset = int(new_offsets[i])
    new_meta = copy.copy(old_meta)
    new_meta.data_page_offset = int(data_offsets[0]) if len(data_offsets) else new_start
    new_meta.dictionary_page_offset = dict_offset
    new_meta.index_page_offset = index_offset
    if not len(t) and ch.length:  # pragma: no cover - the walk tiles the chunk
        raise AssertionError("a chunk with bytes but no pages")
    new_meta.total_compressed_size = w.pos - new_start
    if old_meta.total_uncompressed_size is not None:
        new_meta.total_uncompressed_size = old_meta.total_uncompressed_size + delta
    if ch.stats is not None:
        new_meta.statistics = ch.stats.chunk
    new = copy.copy(ch.old)
    new.meta_data = new_meta
    old_end = ch.start + ch.length
    if ch.old.file_offset is not None and ch.old.file_offset != 0:
        # Deprecated; writers put the chunk's start or its end (where old
        # writers put the ColumnMetaData) there: keep the meaning.
        new.file_offset = w.pos if ch.old.file_offset == old_end else new_start
    ch.new = new
    # Page index.
    if ch.stats is not None:
        ch.new_ci = ch.stats.column_index
        if len(data_offsets):
            ch.new_oi = offset_index_bytes(ch.oi, data_offsets, data_sizes,
                                           np.asarray(ch.stats.page_starts, dtype=np.int64),
                                           path)
    else:
        ch.new_ci = ch.ci_raw
        if ch.oi is not None:
            firsts = offset_index_columns(ch.oi)[2]
            ch.new_oi = offset_index_bytes(ch.oi, data_offsets, data_sizes, firsts, path)


def _new_headers(ch: Chunk) -> tuple[bytes, Any]:
    """The headers of every page of ``ch``, the data pages' with their new Statistics,
    back to back, and where each starts (one more entry: the end).

    Every byte of a header but its statistics field is kept as read (fields
    the IDL does not know too).
    """
    assert ch.stats is not None
    t = ch.pages
    stats_fid = np.zeros(len(t), dtype=np.int64)
    for ptype, fid in STATISTICS_FIELD.items():
        stats_fid[t.page_type == ptype] = fid
    return rewrite_headers(t.headers, t.header_at, t.header_length, t.stats_lo, t.stats_hi,
                           t.stats_prev, t.next_byte, stats_fid, ch.stats.pages,
                           ch.stats.page_at)


def offset_index_bytes(old: Any, offsets: Any, sizes: Any, firsts: Any, path: str) -> bytes:
    """The encoded OffsetIndex of data pages now at ``offsets`` (``sizes`` bytes each,
    first rows ``firsts``): the old one's other fields kept (those the IDL does not
    know too).  The page locations are encoded at once when nothing unknown is
    involved, else built as structures page by page.

    >>> import numpy as np
    >>> from nanstats.metadata.thrift import decode
    >>> raw = offset_index_bytes(None, np.array([4]), np.array([30]), np.array([0]), "f")
    >>> decode(pq.OffsetIndex, raw)[0].page_locations
    [PageLocation(offset=4, compressed_page_size=30, first_row_index=0)]
    """
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    firsts = np.ascontiguousarray(firsts, dtype=np.int64)
    if (old is None or UNKNOWN not in vars(old)) and not (firsts == ABSENT).any():
        rest = encode_rewritten(pq.OffsetIndex(page_locations=[]) if old is None else
                                replace(old, page_locations=[]), path, "the OffsetIndex")
        locations = encode_page_locations(offsets, sizes, firsts)
        if locations is not None and rest.startswith(_EMPTY_LOCATIONS):
            return _LOCATIONS_FIELD + locations + rest[len(_EMPTY_LOCATIONS):]
    locs = list(zip(offsets.tolist(), sizes.tolist(), strict=True))
    rows = [None if r == ABSENT else r for r in firsts.tolist()]
    return encode_rewritten(_offset_index(old, locs, rows), path, "the OffsetIndex")


# The OffsetIndex's first field (page_locations, a list of structs), empty.
_LOCATIONS_FIELD = b"\x19"
_EMPTY_LOCATIONS = b"\x19\x0c"


def _offset_index(old: Any, locations: list[tuple[int, int]], firsts: Any) -> Any:
    """The OffsetIndex of pages now at ``locations``: the old one's other fields kept
    (those the IDL does not know too), page by page when it lists as many pages."""
    old_locs = old.page_locations if old is not None else None
    if old is None or UNKNOWN not in vars(old):  # nothing unknown at any depth
        location = pq.PageLocation
        new_locs = [location(offset=o, compressed_page_size=s, first_row_index=r)
                    for (o, s), r in zip(locations, firsts, strict=True)]
    else:
        if not old_locs or len(old_locs) != len(locations):
            old_locs = [pq.PageLocation()] * len(locations)
        new_locs = [replace(loc, offset=o, compressed_page_size=s, first_row_index=r)
                    for (o, s), r, loc in zip(locations, firsts, old_locs, strict=True)]
    return pq.OffsetIndex(page_locations=new_locs) if old is None else \
        replace(old, page_locations=new_locs)


def encode_rewritten(obj: Any, path: str, what: str) -> bytes:
    """Encode a structure rebuilt from the source's; ParquetFormatError if a value is out of range.

    Values come from the source (and sizes are its sizes plus the change in
    header bytes), so a hostile footer can carry one that no longer fits
    its Thrift type (an i64 size at its maximum, say).
    """
    try:
        return encode(obj)
    except (OverflowError, ValueError, TypeError) as exc:
        raise ParquetFormatError(f"cannot encode {what}: a value taken from the source is out "
                                 f"of range ({type(exc).__name__}: {exc})", path=path) from None


def new_row_group(rg: Any, chunks: list[Chunk]) -> Any:
    """The RowGroup of written chunks: their ColumnChunks, its offset and sizes moved."""
    new = copy.copy(rg)
    new.columns = [ch.new for ch in chunks]
    sizes = [ch.new.meta_data.total_compressed_size for ch in chunks]
    if chunks:
        first = chunks[0].new.meta_data
        start = first.dictionary_page_offset if first.dictionary_page_offset is not None \
            else first.data_page_offset
        if rg.file_offset is not None:
            new.file_offset = start
    if rg.total_compressed_size is not None:
        new.total_compressed_size = sum(sizes)
    if rg.total_byte_size is not None:
        new.total_byte_size = rg.total_byte_size + sum(
            (ch.new.meta_data.total_uncompressed_size or 0)
            - (ch.old.meta_data.total_uncompressed_size or 0) for ch in chunks)
    return new


def _bloom_range(f: IO[bytes], footer: Footer, meta: Any, where: str) -> tuple[int, int]:
    off, length = meta.bloom_filter_offset, meta.bloom_filter_length
    if off < 4 or off >= footer.metadata_offset:
        raise ParquetFormatError(f"{where}: bloom filter offset {off} lies outside the data "
                                 "region", path=footer.path, offset=off)
    if length is None:  # older writers: size = header + numBytes
        f.seek(off)
        header, used = decode(pq.BloomFilterHeader, f.read(min(256, footer.metadata_offset - off)),
                              path=footer.path, offset=off, what=f"bloom filter header of {where}")
        if header.numBytes is None or header.numBytes < 0:
            raise ParquetFormatError(f"{where}: bloom filter of {header.numBytes} bytes",
                                     path=footer.path, offset=off)
        length = used + header.numBytes
    if length <= 0 or off + length > footer.metadata_offset:
        raise ParquetFormatError(f"{where}: bloom filter at bytes {off}..{off + length} lies "
                                 "outside the data region", path=footer.path, offset=off)
    return off, length


def write_bloom_filters(w: Writer, f: IO[bytes], footer: Footer,
                         all_chunks: list[list[Chunk]], source: SourceMap | None) -> int:
    """Copy the bloom filters of the written chunks (after all chunks, as the
    source has them); returns how many."""
    count = 0
    for g, chunks in enumerate(all_chunks):
        for ch in chunks:
            meta = ch.new.meta_data
            if meta.bloom_filter_offset is None:
                continue
            where = f"row group {g}, column {ch.leaf.name!r}"
            off, length = _bloom_range(f, footer, ch.old.meta_data, where)
            if source is not None:
                source.populate(off, length)
            meta.bloom_filter_offset = w.copy(off, length, footer.path)
            count += 1
    return count


def write_page_indexes(w: Writer, all_chunks: list[list[Chunk]]) -> None:
    """Write every ColumnIndex, then every OffsetIndex, and point the chunks at them."""
    for encoded, field in (("new_ci", "column_index"), ("new_oi", "offset_index")):
        for chunks in all_chunks:
            for ch in chunks:
                raw = getattr(ch, encoded)
                offset = None if raw is None else w.write(raw)
                setattr(ch.new, f"{field}_offset", offset)
                setattr(ch.new, f"{field}_length", None if raw is None else len(raw))
