"""What each column chunk becomes: the chunk as read, and the statistics to
write for it, computed before it is written.

A float chunk gets ``Statistics`` (chunk and page headers) and, where the
rules of the order allow one, a ColumnIndex, from statistics recomputed by
the kernels; a string chunk (``truncate=N``) the same from its truncated
bounds; any other chunk is copied as it was (``Chunk.stats`` None).

>>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
>>> from nanstats.metadata.footer import read_footer
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> papq.write_table(pa.table({"x": [1.0, np.nan]}), path)
>>> footer = read_footer(path)
>>> with open(path, "rb") as f:
...     ch = read_chunk(f, footer, 0, footer.columns[0])
>>> ch.pages.is_data.tolist(), ch.ci is None, ch.stats is None  # dictionary, data
([False, True], True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from nanstats.core.byte_bounds import StringChunkStats
from nanstats.core.column_index import ColumnIndex
from nanstats.core.rules import ColumnOrderName, TypeOrderPolicy, column_index_refusal
from nanstats.errors import UnsupportedParquetError
from nanstats.metadata.convert import (
    column_index_struct,
    page_statistics_encoded,
    statistics_struct,
    string_column_index_struct,
    string_statistics_struct,
)
from nanstats.metadata.footer import Footer, LeafColumn
from nanstats.metadata.page_index import read_page_index
from nanstats.metadata.page_walk import PageTable, walk_pages
from nanstats.metadata.pages import (
    check_first_rows,
    check_offset_index_pages,
    chunk_range,
)
from nanstats.metadata.thrift import encode, encode_each
from nanstats.parquet.recompute import ChunkStats
from nanstats.parquet.source_map import SourceMap


@dataclass(frozen=True)
class NewStatistics:
    """The statistics to write for one column chunk, computed before it is written.

    ``pages`` holds the encoded Statistics struct of each data page (file
    order), back to back, and ``page_at`` where each starts (one more
    entry: the end); ``chunk`` the chunk's Statistics struct; ``column_index`` the encoded ColumnIndex, or None
    with ``refusal`` saying why; ``page_starts`` the first row of each data
    page (for the OffsetIndex); the counts feed the report (``nan_count`` is
    None for strings).
    """

    pages: bytes
    page_at: Any
    chunk: Any
    column_index: bytes | None
    refusal: str | None
    page_starts: Any
    num_values: int
    null_count: int
    nan_count: int | None


def _has_data_pages(pages: PageTable) -> bool:
    return pages.data_page_count > 0


def float_statistics(cs: ChunkStats, pages: PageTable, old_ci: Any, order: ColumnOrderName,
                     policy: TypeOrderPolicy) -> NewStatistics:
    """What to write for a float chunk under ``order``/``policy``."""
    encoded = refusal = None
    if _has_data_pages(pages):
        ci = ColumnIndex.from_table(cs.pages, order, policy=policy)
        if ci is None:
            refusal = column_index_refusal(cs.pages, order, policy)
        else:
            encoded = encode(column_index_struct(ci, old_ci))
    else:
        refusal = "the chunk has no data pages"
    blob, at = page_statistics_encoded(cs.pages, order, policy)
    return NewStatistics(blob, at, statistics_struct(cs.chunk.statistics(order, policy=policy)),
                         encoded, refusal, cs.page_starts, cs.chunk.num_values,
                         cs.chunk.null_count, cs.chunk.nan_count)


def string_statistics(cs: StringChunkStats, pages: PageTable, old_ci: Any) -> NewStatistics:
    """What to write for a string chunk: truncated bounds, a ColumnIndex if it has pages."""
    encoded = refusal = None
    if _has_data_pages(pages):
        encoded = encode(string_column_index_struct(cs, old_ci))
    else:
        refusal = "the chunk has no data pages"
    structs = encode_each([string_statistics_struct(p) for p in cs.pages])
    at = np.zeros(len(structs) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in structs], out=at[1:])
    return NewStatistics(b"".join(structs), at, string_statistics_struct(cs.chunk), encoded,
                         refusal, cs.page_starts, cs.chunk.num_values, cs.chunk.null_count,
                         None)


@dataclass
class Chunk:
    """One column chunk as it is being rewritten.

    Read by :func:`read_chunk` (``old`` the ColumnChunk, ``pages``, the raw
    page index ``ci``/``oi`` and the ColumnIndex bytes ``ci_raw``, copied
    as they are when the chunk is); ``stats`` set by the planner (None: the
    chunk is copied as it was); ``new``, ``new_ci`` and ``new_oi`` set when
    it is written.
    """

    leaf: LeafColumn
    old: Any  # pq.ColumnChunk
    start: int
    length: int
    pages: PageTable
    ci: Any
    oi: Any
    ci_raw: bytes | None
    stats: NewStatistics | None = None  # None: copied as it was
    new: Any = None  # pq.ColumnChunk
    new_ci: bytes | None = None
    new_oi: bytes | None = None
    path: str = ""


def read_chunk(f: IO[bytes], footer: Footer, g: int, leaf: LeafColumn,
               source: SourceMap | None = None) -> Chunk:
    """Read one column chunk's pages and page index (from ``source`` when mapped)."""
    start, length = chunk_range(footer, g, leaf.index)
    if source is None:
        def window(offset: int, size: int) -> bytes:
            f.seek(offset)
            return f.read(size)

        pages = walk_pages(window, start, footer, g, leaf.index, length)
    else:  # populated by the caller
        pages = walk_pages(source.view[start:start + length], start, footer, g, leaf.index)
    ci, oi = read_page_index(f, footer, g, leaf.index)
    check_offset_index_pages(pages, oi, footer, g, leaf.index)
    check_first_rows(pages, oi, footer, g, leaf.index)
    old = footer.chunk(g, leaf.index)
    ci_raw = None
    if ci is not None:
        # read_page_index read the index from these offsets, so both are set.
        f.seek(old.column_index_offset or 0)
        ci_raw = f.read(old.column_index_length or 0)
    return Chunk(leaf, old, start, length, pages, ci, oi, ci_raw, path=footer.path)


def refuse_external_chunks(footer: Footer) -> None:
    """UnsupportedParquetError when a column chunk lives in another file.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.metadata.footer import read_footer
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0]}), path)
    >>> refuse_external_chunks(read_footer(path))   # self-contained: nothing to say
    """
    for g, rg in enumerate(footer.row_groups):
        for c, chunk in enumerate(rg.columns or ()):
            if chunk.file_path is not None:
                name = footer.columns[c].name
                raise UnsupportedParquetError(
                    f"{footer.path}: row group {g}, column {name!r} lives in another file "
                    f"({chunk.file_path!r}); nanstats rewrites self-contained files only")
