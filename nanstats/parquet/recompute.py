"""Recompute the float statistics of a column chunk and of each of its pages.

pyarrow decodes the values; one kernel pass with the page boundaries gives
the statistics of every data page, and their merge those of the chunk.
Page boundaries come from the page headers (their value or row counts);
an OffsetIndex that disagrees is a ParquetFormatError, never trusted.

>>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
>>> from nanstats.metadata.footer import read_footer
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> papq.write_table(pa.table({"x": [1.0, np.nan, None, -2.0]}), path)
>>> footer = read_footer(path)
>>> with open(path, "rb") as f:
...     cs = recompute(papq.ParquetFile(path), footer, f, 0, 0)
>>> cs.chunk
ColumnStats(DOUBLE, num_values=4, null_count=1, nan_count=1 (+1/-0), min=-2.0, max=1.0)
>>> len(cs.pages), cs.page_starts.tolist()
(1, [0])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from nanstats.core.inputs import from_arrow
from nanstats.core.stats import ColumnStats
from nanstats.core.table import StatsTable, merge_rows, page_starts_for, scan_chunks
from nanstats.errors import ParquetFormatError, UnsupportedParquetError
from nanstats.lake.fs import Location, remote_errors
from nanstats.metadata.footer import Footer
from nanstats.metadata.page_index import read_page_index
from nanstats.metadata.page_walk import PageTable
from nanstats.metadata.pages import (
    Page,
    check_first_rows,
    check_offset_index_pages,
    page_table,
    read_pages,
)
from nanstats.metadata.thrift import pq


@dataclass(frozen=True, eq=False)
class ChunkStats:
    """Recomputed statistics of one float column chunk.

    ``chunk`` covers the whole chunk, ``pages`` has one row per data page
    (in file order), ``page_starts`` the row at which each data page starts,
    ``pages_list`` every page of the chunk (dictionary page included) and
    ``offset_index`` the chunk's OffsetIndex or None.
    """

    chunk: ColumnStats
    pages: StatsTable
    page_starts: npt.NDArray[np.int64]
    pages_list: list[Page] | PageTable
    offset_index: pq.OffsetIndex | None

    def page(self, i: int) -> ColumnStats:
        """The statistics of data page ``i`` as a ColumnStats."""
        return ColumnStats.from_table(self.pages, i)


def open_parquet_file(path: str | Location, source: Any = None) -> Any:
    """``pyarrow.parquet.ParquetFile(path)``; pyarrow's errors become ParquetFormatError.

    ``path`` is a local path or a :class:`~nanstats.lake.fs.Location` (a
    remote file is read through its filesystem, by ranges, and closed with
    the ParquetFile).  ``source``, when given, is an open pyarrow file of
    ``path`` (a memory map, say) that pyarrow reads instead; ``path`` then
    only names the file in errors.

    pyarrow parses the footer again on its own; what it refuses (a name that is
    not UTF-8, a schema it cannot map) is a corrupt file to nanstats.

    >>> open_parquet_file("/no/such.parquet")
    Traceback (most recent call last):
    ...
    FileNotFoundError: [Errno 2] Failed to open local file '/no/such.parquet'. Detail: [errno 2] No such file or directory
    """
    import pyarrow as pa
    import pyarrow.parquet as papq

    where = path if isinstance(path, Location) else None
    name = path.uri if isinstance(path, Location) else path
    try:
        if source is not None:
            return papq.ParquetFile(source)
        if where is None or where.is_local:
            return papq.ParquetFile(where.path if where is not None else path)
        with remote_errors(where):
            return papq.ParquetFile(where.path, filesystem=where.filesystem)
    except FileNotFoundError:
        raise
    except (pa.ArrowException, OSError, ValueError) as exc:
        if where is not None and not where.is_local and isinstance(exc, OSError):
            raise  # the store's trouble (remote_errors named the URI), not the file's
        raise ParquetFormatError(f"pyarrow cannot open the file ({type(exc).__name__}: {exc})",
                                 path=name) from None


def _read_row_group(parquet_file: Any, footer: Footer, row_group: int, names: list[str]) -> Any:
    """One row group's columns, pyarrow's decoding errors as ParquetFormatError."""
    import pyarrow as pa

    try:
        return parquet_file.read_row_group(row_group, columns=names, use_threads=True)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise ParquetFormatError(f"row group {row_group}: pyarrow cannot decode the columns "
                                 f"{names} ({type(exc).__name__}: {exc})",
                                 path=footer.path) from None


def _leaf_of(table_column: Any, path: Sequence[str]) -> Any:
    """The leaf array at ``path`` below a (chunked) column, ancestors' nulls applied."""
    import pyarrow as pa

    chunks = list(table_column.chunks)
    for name in path:
        out = []
        for arr in chunks:
            if not pa.types.is_struct(arr.type):
                raise UnsupportedParquetError(f"column {'.'.join(path)!r}: {arr.type} is not a "
                                              "struct; cannot reach the leaf")
            index = arr.type.get_field_index(name)
            if index < 0:
                raise UnsupportedParquetError(f"column {'.'.join(path)!r}: no field {name!r}")
            # flatten() combines the struct's validity with the child's.
            out.append(arr.flatten()[index])
        chunks = out
    return chunks


def _combine(chunks: list[Any], type_: Any) -> Any:
    import pyarrow as pa

    if len(chunks) == 1:
        return chunks[0]
    return pa.chunked_array(chunks, type=type_).combine_chunks()


def leaf_arrays(parquet_file: Any, footer: Footer, row_group: int,
                leaves: Sequence[int]) -> dict[int, Any]:
    """The values of several float leaves of one row group, decoded in one pyarrow call.

    Returns ``{leaf: pyarrow.Array}``; see :func:`chunk_array`.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.metadata.footer import read_footer
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"a": [1.0], "b": pa.array([2.0], pa.float32())}), path)
    >>> arrays = leaf_arrays(papq.ParquetFile(path), read_footer(path), 0, [0, 1])
    >>> [str(a.type) for a in arrays.values()]
    ['double', 'float']
    """
    cols = [footer.columns[leaf] for leaf in leaves]
    for col in cols:
        if col.max_repetition_level > 0:
            raise UnsupportedParquetError(
                f"column {col.name!r} is repeated (inside a list or map); nanstats recomputes "
                "flat and struct float columns only")
        if col.float_type is None:
            raise UnsupportedParquetError(f"column {col.name!r} is not a float column")
    names = [col.name for col in cols]
    table = _read_row_group(parquet_file, footer, row_group, names)
    out = {}
    for leaf, col in zip(leaves, cols, strict=True):
        chunks = _leaf_of(table.column(col.path[0]), col.path[1:])
        arr = _combine(chunks, chunks[0].type) if chunks else None
        if arr is None or str(arr.type) not in ("halffloat", "float", "double"):
            got = None if arr is None else arr.type
            raise UnsupportedParquetError(f"column {col.name!r} reads as {got}, not a float "
                                          "Arrow type")
        out[leaf] = arr
    return out


def chunk_array(parquet_file: Any, footer: Footer, row_group: int, leaf: int) -> Any:
    """The values of one float leaf in one row group, as one pyarrow Array.

    A leaf inside optional structs is flattened: null wherever the leaf or
    any ancestor is null.  Repeated (list) leaves raise
    UnsupportedParquetError.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> from nanstats.metadata.footer import read_footer
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> t = pa.table({"s": pa.array([{"x": 1.0}, None], pa.struct([("x", pa.float64())]))})
    >>> papq.write_table(t, path)
    >>> chunk_array(papq.ParquetFile(path), read_footer(path), 0, 0).to_pylist()
    [1.0, None]
    """
    return leaf_arrays(parquet_file, footer, row_group, [leaf])[leaf]


def page_row_starts(pages: list[Page] | PageTable | None) -> npt.NDArray[np.int64]:
    """The row at which each data page starts, from the page headers.

    The running sum of the data pages' rows: ``num_rows`` of a v2 page,
    ``num_values`` of a v1 page (right for columns that are not repeated,
    where every row has one value or null; a v1 page's ``num_values``
    counts its nulls).  Never the OffsetIndex: its ``first_row_index`` is
    checked against these (:func:`nanstats.metadata.pages.check_first_rows`),
    not trusted.

    >>> page_row_starts(None).tolist()
    [0]
    """
    if pages is None:
        return np.zeros(1, dtype=np.int64)
    rows = page_table(pages).data_rows()
    if not len(rows):
        return np.zeros(1, dtype=np.int64)
    return np.concatenate([[0], np.cumsum(rows[:-1], dtype=np.int64)]).astype(np.int64)


def chunk_stats_of(table: StatsTable) -> ColumnStats:
    """The statistics of the whole chunk: the exact merge of all page rows."""
    return ColumnStats.from_table(merge_rows(table), 0)


def checked_page_starts(n: int, pages: list[Page] | PageTable, offset_index: Any, *, path: str,
                        where: str) -> tuple[npt.NDArray[np.int64], int]:
    """(first row of each data page, number of data pages) for a chunk of ``n`` values.

    The boundaries come from the page headers (:func:`page_row_starts`).
    Raises ParquetFormatError (labelled ``path``/``where``) when the
    OffsetIndex lists another number of pages or the boundaries do not fit.

    >>> checked_page_starts(0, [], None, path="f", where="chunk")
    (array([0]), 0)
    """
    starts = page_row_starts(pages)
    data_pages = page_table(pages).data_page_count
    listed = len(offset_index.page_locations or ()) if offset_index is not None else data_pages
    if listed != data_pages:
        raise ParquetFormatError(
            f"{where}: the OffsetIndex lists {listed} pages, the chunk has {data_pages} "
            "data pages", path=path)
    if data_pages == 0 and n > 0:
        raise ParquetFormatError(f"{where}: {n} values but no data page", path=path)
    try:
        return page_starts_for(n, page_starts=starts), data_pages
    except ValueError as exc:
        raise ParquetFormatError(f"{where}: page boundaries do not fit the {n} values of the "
                                 f"chunk ({exc})", path=path) from None


def stats_for_array(array: Any, pages: list[Page] | PageTable, offset_index: Any, *, path: str,
                    where: str) -> ChunkStats:
    """ChunkStats from a chunk's decoded values and its pages (one kernel pass).

    ``path``/``where`` label errors when the page boundaries do not fit the
    values.
    """
    import pyarrow as pa

    starts, data_pages = checked_page_starts(len(array), pages, offset_index, path=path,
                                             where=where)
    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    inputs = [from_arrow(c) for c in chunks] or [from_arrow(pa.array([], type=array.type))]
    table = scan_chunks(inputs, starts)
    if data_pages == 0:  # an empty chunk: no page rows
        table = StatsTable(table.float_type, table.counts[:0], table.keys[:0])
        starts = starts[:0]
    return ChunkStats(chunk_stats_of(table), table, starts, pages, offset_index)


def recompute(parquet_file: Any, footer: Footer, f: IO[bytes], row_group: int,
              leaf: int) -> ChunkStats:
    """Recompute the statistics of a float column chunk and of each of its pages.

    ``parquet_file`` is a ``pyarrow.parquet.ParquetFile`` of the file,
    ``footer`` its :func:`~nanstats.metadata.footer.read_footer`, ``f`` the
    file open for binary reading (page headers and page index come from it).
    Repeated (list) leaves raise UnsupportedParquetError.  See the module
    example.
    """
    col = footer.columns[leaf]
    if col.max_repetition_level > 0:
        raise UnsupportedParquetError(
            f"column {col.name!r} is repeated (inside a list or map); nanstats recomputes "
            "flat and struct float columns only")
    pages = read_pages(f, footer, row_group, leaf)
    _, oi = read_page_index(f, footer, row_group, leaf)
    check_offset_index_pages(pages, oi, footer, row_group, leaf)
    check_first_rows(pages, oi, footer, row_group, leaf)
    array = chunk_array(parquet_file, footer, row_group, leaf)
    where = f"row group {row_group}, column {col.name!r}"
    return stats_for_array(array, pages, oi, path=footer.path, where=where)
