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

from nanstats.errors import ParquetFormatError
from nanstats.metadata.compact import UNKNOWN, replace
from nanstats.metadata.footer import Footer
from nanstats.metadata.pages import DATA_PAGE_TYPES
from nanstats.metadata.thrift import decode, encode, encode_each, pq
from nanstats.parquet.source_map import SourceMap
from nanstats.parquet.upgrading.plan import Chunk
from nanstats.parquet.upgrading.writer import Writer


def write_chunk(w: Writer, ch: Chunk) -> None:
    """Write one chunk: pages copied, headers and indexes rewritten from ``ch.stats``."""
    path = ch.path
    new_start = w.pos
    rewriting = ch.stats is not None
    headers = iter(_new_headers(ch, path)) if ch.stats is not None else None
    delta = 0  # change in header bytes
    shift = 0  # where the pages of a chunk copied whole moved by
    locations: list[tuple[int, int]] = []  # new (offset, size) of each data page
    dict_offset = index_offset = None
    old_meta = ch.old.meta_data
    for page in ch.pages:
        ptype = page.page_type
        old_size = page.header_length + (page.header.compressed_page_size or 0)
        if ptype in DATA_PAGE_TYPES:
            if headers is not None:
                raw_header = next(headers)
                at = w.write(raw_header)
                w.copy(page.offset + page.header_length, old_size - page.header_length, path)
                grown = len(raw_header) - page.header_length
                delta += grown
                locations.append((at, old_size + grown))
                continue
            if page is ch.pages[0]:  # a chunk kept as it is: all its pages in one copy
                at = w.copy(ch.start, ch.length, path)
                shift = at - page.offset
            else:
                at = page.offset + shift
            locations.append((at, old_size))
            continue
        if rewriting:
            at = w.copy(page.offset, old_size, path)
        elif page is ch.pages[0]:
            at = w.copy(ch.start, ch.length, path)
            shift = at - page.offset
        else:
            at = page.offset + shift
        if ptype == pq.PAGE_DICTIONARY:
            dict_offset = at
        elif page.offset == old_meta.index_page_offset:
            index_offset = at
    new_meta = copy.copy(old_meta)
    new_meta.data_page_offset = locations[0][0] if locations else new_start
    new_meta.dictionary_page_offset = dict_offset
    new_meta.index_page_offset = index_offset
    if not ch.pages and ch.length:  # pragma: no cover - read_pages tiles the chunk
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
        if locations:
            ch.new_oi = encode_rewritten(_offset_index(ch.oi, locations, ch.stats.page_starts),
                                         path, "the OffsetIndex")
    else:
        ch.new_ci = ch.ci_raw
        if ch.oi is not None:
            firsts = [loc.first_row_index for loc in ch.oi.page_locations]
            ch.new_oi = encode_rewritten(_offset_index(ch.oi, locations, firsts), path,
                                         "the OffsetIndex")


def _new_headers(ch: Chunk, path: str) -> list[bytes]:
    """The encoded header of each data page of ``ch`` with its new Statistics.

    The rest of each header is as read (fields the IDL does not know too):
    the new statistics are put in for the encoding and taken out again
    (cheaper than copying two structures per page).
    """
    assert ch.stats is not None
    data = [page for page in ch.pages if page.is_data]
    # read_pages decoded a v1 or v2 header for each data page.
    subs: list[Any] = [page.header.data_page_header if page.page_type == pq.PAGE_DATA
                       else page.header.data_page_header_v2 for page in data]
    olds = [sub.statistics for sub in subs]
    try:
        for sub, st in zip(subs, ch.stats.pages, strict=True):
            sub.statistics = st
        headers = [page.header for page in data]
        try:
            return encode_each(headers)
        except (OverflowError, ValueError, TypeError):
            for page in data:  # which one: ParquetFormatError naming it
                encode_rewritten(page.header, path, f"the page header at byte {page.offset}")
            raise
    finally:
        for sub, old in zip(subs, olds, strict=True):
            sub.statistics = old


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
