"""Reading the pages a RowSelection keeps from one file, opened once for many reads.

A :class:`SelectionReader` holds what every read of a file needs: its
footer, its Arrow schema and, decoded once into arrays, the OffsetIndex of
each column chunk (where each page lies and which rows it holds).  A read
of a selection then copies, per column, the dictionary page and the wanted
data pages of every selected row group, byte for byte, into one small
in-memory Parquet file (one row group per selected row group) that pyarrow
decodes in a single call, and cuts the selected rows out of the decoded
pages with a few slices.  Columns that cannot be read page by page (no
OffsetIndex, nested) are read whole per row group by pyarrow and sliced.

Readers are kept per process while their file is unchanged
(:func:`reader_for`), so a Spark worker that reads the same files task
after task decodes their footers and page indexes once.  A reader counts
what it takes from the file system: ``bytes_read`` (footer, page index,
pages), ``pages_read`` (data pages read through the page index) and
``row_groups_read`` (row groups any read took a page or a chunk from, once
a read); :meth:`SelectionReader.counts` gives them as :class:`ReadCounts`.

>>> import numpy as np, pyarrow as pa, tempfile, os
>>> from nanstats.parquet.writing import write_table
>>> from nanstats.prune.results import RowSelection
>>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
>>> _ = write_table(pa.table({"x": np.arange(100.0), "k": np.arange(100)}), path,
...                 data_page_size=64, write_batch_size=10, row_group_size=50)
>>> reader = SelectionReader(path)
>>> t = reader.read(RowSelection({0: ((8, 12),), 1: ((45, 50),)}, 100), ["x"])
>>> t.column("x").to_pylist()
[8.0, 9.0, 10.0, 11.0, 95.0, 96.0, 97.0, 98.0, 99.0]
>>> 0 < reader.bytes_read < os.path.getsize(path)
True
>>> reader.counts().row_groups, reader.pages_read == reader.counts().pages > 0
(2, True)
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, BinaryIO, cast

import numpy as np
import numpy.typing as npt

from nanstats.lake.fs import FileCache, Location, RemoteFile, Target, remote_errors, resolve
from nanstats.metadata.footer import Footer, LeafColumn, read_footer
from nanstats.metadata.page_index import PageIndex, PageIndexRegion
from nanstats.metadata.pages import chunk_range
from nanstats.metadata.thrift import encode, pq
from nanstats.prune.expressions import Expr
from nanstats.prune.results import Ranges, RowSelection

__all__ = ["ChunkPages", "ReadCounts", "SelectionReader", "reader_for", "survivors_selection"]

#: Past this share of the selected rows passing the filter, the other columns
#: are read over the whole selection and filtered (no gather).
LATE_SHARE = 0.5

Ints = npt.NDArray[np.int64]


@dataclass(frozen=True)
class ReadCounts:
    """What reads took from files: files, row groups, data pages and bytes.

    Counted by the readers where they read (:class:`SelectionReader`), not
    taken from a plan.  Counts add up:

    >>> ReadCounts(1, 2, 10, 4096) + ReadCounts(1, 1, 3, 100)
    ReadCounts(files=2, row_groups=3, pages=13, bytes=4196)
    """

    files: int = 0
    row_groups: int = 0
    pages: int = 0
    bytes: int = 0

    def __add__(self, other: ReadCounts) -> ReadCounts:
        return ReadCounts(self.files + other.files, self.row_groups + other.row_groups,
                          self.pages + other.pages, self.bytes + other.bytes)


@dataclass(frozen=True)
class ChunkPages:
    """One column chunk's pages: where each lies, its size and its rows."""

    chunk_start: int  #: the first byte of the chunk (its dictionary page, if any)
    dictionary_length: int  #: bytes before the first data page
    offsets: Ints  #: of each data page (OffsetIndex)
    sizes: Ints  #: compressed size of each data page, header included
    starts: Ints  #: first row of each page
    ends: Ints  #: one past the last row of each page

    def wanted(self, ranges: Ranges) -> Ints:
        """Indices of the pages holding a row of ``ranges`` (sorted, disjoint).

        >>> z = np.array([0, 10, 20], dtype=np.int64)
        >>> ChunkPages(4, 0, z, z, z, z + 10).wanted(((5, 6), (25, 30))).tolist()
        [0, 2]
        """
        if not ranges:
            return np.zeros(0, dtype=np.int64)
        lo = np.fromiter((a for a, _ in ranges), dtype=np.int64, count=len(ranges))
        hi = np.fromiter((b for _, b in ranges), dtype=np.int64, count=len(ranges))
        # The first range ending after each page's first row; the page is wanted
        # when that range starts before the page ends.
        j = np.searchsorted(hi, self.starts, side="right")
        inside = j < len(ranges)
        hit = np.zeros(len(self.starts), dtype=bool)
        hit[inside] = lo[j[inside]] < self.ends[inside]
        return np.flatnonzero(hit).astype(np.int64)


def _slices(ranges: Ranges, starts: Ints, ends: Ints, wanted: Ints, base: int
            ) -> list[tuple[int, int]]:
    """(offset, length) in the decoded wanted pages (laid end to end from ``base``) of
    each selected range, adjacent ones joined.

    A chunk's pages hold its rows in order, and every page a range touches is
    wanted, so the rows of a range are one run of the decoded pages: it
    starts in the first wanted page that ends after the range's first row.
    """
    if not ranges or not len(wanted):
        return []
    ws, we = starts[wanted], ends[wanted]
    at = base + np.concatenate(([0], np.cumsum(we - ws)[:-1]))
    lo = np.fromiter((r[0] for r in ranges), dtype=np.int64, count=len(ranges))
    hi = np.fromiter((r[1] for r in ranges), dtype=np.int64, count=len(ranges))
    first = np.searchsorted(we, lo, side="right")
    offsets = at[first] + lo - ws[first]
    out: list[tuple[int, int]] = []
    for off, n in zip(offsets.tolist(), (hi - lo).tolist(), strict=True):
        if out and out[-1][0] + out[-1][1] == off:
            out[-1] = (out[-1][0], out[-1][1] + n)
        else:
            out.append((off, n))
    return out


def _take_slices(data: Any, slices: list[tuple[int, int]]) -> list[Any]:
    """The slices of ``data`` as a list of arrays (no copy: concatenated once, later)."""
    return [c for off, n in slices for c in _chunks(data.slice(off, n))]


def _chunks(a: Any) -> list[Any]:
    import pyarrow as pa

    if isinstance(a, pa.ChunkedArray):
        return list(a.chunks) or [pa.array([], type=a.type)]
    return [a]


class SelectionReader:
    """One Parquet file opened for reading selections (see the module example).

    The page index is read and decoded once, when first needed; each
    chunk's page table once, when first read.  A caller that has read the
    footer (and the page index) already, a planner say, passes them: they
    are not read again.  A remote file is opened once for all the reader's
    reads (its last 64 KiB fetched at most once).
    """

    def __init__(self, path: Target, filesystem: Any = None, *, footer: Footer | None = None,
                 region: PageIndexRegion | None = None) -> None:
        self.where: Location = resolve(path, filesystem)
        self._remote: RemoteFile | None = None
        self._lock = threading.Lock()
        self.bytes_read = 0
        if footer is None:
            with self._open() as f:
                footer = read_footer(f)
            self.bytes_read += int(footer.metadata_length) + 8  # the footer and its tail
        self.footer: Footer = footer
        self.leaves: dict[str, LeafColumn] = {leaf.name: leaf for leaf in self.footer.columns}
        self.pages_read = 0
        self.row_groups_read = 0
        self._pf: Any = None
        self._schema: Any = None
        self._region: PageIndexRegion | None = region
        self._pages: dict[tuple[int, int], ChunkPages | None] = {}

    @contextmanager
    def _open(self) -> Iterator[BinaryIO]:
        """The file for ``seek``/``read``: a local file opened for the call, a remote
        one opened once and kept (see :meth:`nanstats.lake.fs.Location.open_reader`)."""
        with remote_errors(self.where):
            if self.where.is_local:
                with open(self.where.path, "rb") as f:
                    yield f
                return
            with self._lock:  # one position for all: one read at a time
                if self._remote is None:
                    self._remote = RemoteFile(self.where.open_input_file(), self.where.uri)
                yield cast(BinaryIO, self._remote)

    @property
    def parquet_file(self) -> Any:
        """pyarrow's ParquetFile of the file (its schema; whole row groups)."""
        import pyarrow.parquet as papq

        if self._pf is None:
            with remote_errors(self.where):
                self._pf = (papq.ParquetFile(self.where.path) if self.where.is_local else
                            papq.ParquetFile(self.where.path, filesystem=self.where.filesystem))
        return self._pf

    @property
    def arrow_schema(self) -> Any:
        """The file's schema as Arrow reads it (from the footer's bytes)."""
        if self._schema is None:
            self._schema = self.footer.arrow_schema()
        return self._schema

    def chunk_pages(self, f: Any, g: int, leaf: LeafColumn) -> ChunkPages | None:
        """The page table of one chunk, or None when it cannot be read page by page
        (nested, or written without an OffsetIndex); ``f`` is the file, open.

        >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
        >>> papq.write_table(pa.table({"x": [1.0, 2.0, 3.0]}), path, write_page_index=True,
        ...                  data_page_size=1, write_batch_size=1)
        >>> r = SelectionReader(path)
        >>> with open(path, "rb") as f:
        ...     r.chunk_pages(f, 0, r.leaves["x"]).starts.tolist()
        [0, 1, 2]
        """
        key = (g, leaf.index)
        if key in self._pages:
            return self._pages[key]
        found = None
        if leaf.max_repetition_level == 0 and len(leaf.path) == 1:
            if self._region is None:
                self._region = PageIndexRegion(f, self.footer)
                self.bytes_read += self._region.bytes_read
            _, oi = self._region.read_page_index(self.footer, g, leaf.index)
            index = PageIndex.from_thrift(None, oi)
            if (index.first_row_index is not None and index.offsets is not None
                    and index.compressed_sizes is not None and index.num_pages):
                rows = int(self.footer.row_groups[g].num_rows or 0)
                starts = index.first_row_index.astype(np.int64)
                chunk_start, _ = chunk_range(self.footer, g, leaf.index)
                offsets = index.offsets.astype(np.int64)
                found = ChunkPages(chunk_start, max(0, int(offsets[0]) - chunk_start), offsets,
                                   index.compressed_sizes.astype(np.int64), starts,
                                   np.append(starts[1:], rows).astype(np.int64))
        self._pages[key] = found
        return found

    def counts(self) -> ReadCounts:
        """What this reader has read so far (one file), as :class:`ReadCounts`.

        >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
        >>> papq.write_table(pa.table({"x": [1.0, 2.0]}), path)
        >>> SelectionReader(path).counts().files    # the footer is read
        1
        """
        return ReadCounts(1, self.row_groups_read, self.pages_read, self.bytes_read)

    def bytes_for(self, selection: RowSelection, columns: Sequence[str] | None = None) -> int:
        """Bytes of the file :meth:`read` reads for a selection (pages and dictionaries;
        whole chunks where a column cannot be read page by page).

        >>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
        >>> papq.write_table(pa.table({"x": np.arange(10_000.0)}), path, data_page_size=4096,
        ...                  use_dictionary=False, write_page_index=True)
        >>> r = SelectionReader(path)
        >>> r.bytes_for(RowSelection({0: ((0, 10),)}, 10_000)) < os.path.getsize(path) / 5
        True
        """
        names = list(self.arrow_schema.names) if columns is None else list(columns)
        total = 0
        with self._open() as f:
            for g in selection.row_groups:
                for name in names:
                    leaf = self.leaves.get(name)
                    pages = self.chunk_pages(f, g, leaf) if leaf is not None else None
                    if pages is None:
                        total += sum(chunk_range(self.footer, g, lf.index)[1]
                                     for lf in self.footer.columns if lf.path[0] == name)
                        continue
                    wanted = pages.wanted(selection.ranges[g])
                    if len(wanted):
                        total += pages.dictionary_length + int(pages.sizes[wanted].sum())
        return total

    def read(self, selection: RowSelection, columns: Sequence[str] | None = None) -> Any:
        """The rows of ``selection`` (row groups in file order) as one pyarrow Table."""
        touched: set[int] = set()
        table = self._read(selection, columns, touched)
        self.row_groups_read += len(touched)
        return table

    def _read(self, selection: RowSelection, columns: Sequence[str] | None,
              touched: set[int]) -> Any:
        import pyarrow as pa

        schema = self.arrow_schema
        names = list(schema.names) if columns is None else list(columns)
        fields = [schema.field(n) for n in names]
        groups = list(selection.row_groups)
        if not groups:
            return pa.schema(fields).empty_table()
        with self._open() as f:
            arrays = [self._read_column(f, name, field, selection, groups, touched)
                      for name, field in zip(names, fields, strict=True)]
        return pa.Table.from_arrays(arrays, schema=pa.schema(fields))

    def read_where(self, selection: RowSelection, predicate: Expr, semantics: Any,
                   columns: Sequence[str] | None = None,
                   constants: dict[str, Any] | None = None) -> Any:
        """The rows of ``selection`` where ``predicate`` is true, as a pyarrow Table.

        The predicate's columns are read first and the predicate evaluated
        (``nanstats.prune.row_filter.filter_mask`` under ``semantics``);
        the other ``columns`` are then read only at the rows that passed
        (the pages holding them), or over the whole selection when most
        rows pass.  ``constants`` gives columns the file does not hold (Hive
        partition values) as Arrow scalars; ``columns`` (default: the file's
        columns) may name them.

        >>> import numpy as np, pyarrow as pa, tempfile, os
        >>> from nanstats.parquet.writing import write_table
        >>> from nanstats.prune.parser import parse
        >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
        >>> _ = write_table(pa.table({"x": [1.0, np.nan, 3.0], "k": [1, 2, 3]}), path)
        >>> r = SelectionReader(path)
        >>> sel = RowSelection({0: ((0, 3),)}, 3)
        >>> r.read_where(sel, parse("x > 2"), "spark", ["k", "day"],
        ...              {"day": pa.scalar(7, pa.int32())}).to_pydict()
        {'k': [2, 3], 'day': [7, 7]}
        """
        import pyarrow as pa

        from nanstats.prune.row_filter import filter_mask

        constants = constants or {}
        file_names = list(self.arrow_schema.names)
        names = file_names if columns is None else list(columns)
        tops = {c.split(".")[0] for c in predicate.columns()}
        first = [n for n in file_names if n in tops]
        touched: set[int] = set()
        table = self._read(selection, first, touched) if first else \
            pa.table({"": pa.nulls(selection.num_rows)})  # no file column: the rows' count
        for name in sorted(tops & set(constants)):
            table = table.append_column(name, pa.repeat(constants[name], table.num_rows))
        mask = filter_mask(predicate, table, semantics) if table.num_rows else \
            np.zeros(0, dtype=bool)
        passed = int(mask.sum())
        rest = [n for n in names if n in file_names and n not in first]
        flags = pa.array(mask)
        cols = {n: table.column(n).filter(flags) for n in table.column_names if n in names}
        if rest and passed:
            if passed > LATE_SHARE * len(mask):
                later = self._read(selection, rest, touched).filter(flags)
            else:
                sel, positions = survivors_selection(selection, mask)
                later = self._read(sel, rest, touched).take(pa.array(positions))
            cols.update({n: later.column(n) for n in rest})
        self.row_groups_read += len(touched)
        schema = self.arrow_schema
        out = []
        for n in names:
            if n in cols:
                out.append(cols[n])
            elif n in file_names:
                out.append(pa.array([], type=schema.field(n).type))
            elif n in constants:
                out.append(pa.repeat(constants[n], passed))
            else:
                raise KeyError(f"{self.where.uri}: no column {n!r}")
        return pa.table(dict(zip(names, out, strict=True)))

    def _read_column(self, f: Any, name: str, field: Any, selection: RowSelection,
                     groups: list[int], touched: set[int]) -> Any:
        import pyarrow as pa

        leaf = self.leaves.get(name)
        tables = [self.chunk_pages(f, g, leaf) if leaf is not None else None for g in groups]
        paged = [g for g, t in zip(groups, tables, strict=True) if t is not None]
        pieces: dict[int, Any] = {}
        if paged:
            assert leaf is not None
            pieces.update(self._read_paged(f, leaf, field, selection, paged, touched))
        whole = [g for g, t in zip(groups, tables, strict=True) if t is None]
        if whole:
            # Not readable page by page: pyarrow reads the chunks whole.
            table = self.parquet_file.read_row_groups(whole, columns=[name], use_threads=False)
            col, at = table.column(0), 0
            for g in whole:
                ranges = selection.ranges[g]
                pieces[g] = _take_slices(col, [(at + a, b - a) for a, b in ranges])
                at += int(self.footer.row_groups[g].num_rows or 0)
                self.bytes_read += sum(chunk_range(self.footer, g, lf.index)[1]
                                       for lf in self.footer.columns if lf.path[0] == name)
            touched.update(whole)
        chunks = [c for g in groups for c in pieces[g]]
        arr = pa.concat_arrays(chunks) if chunks else pa.array([], type=field.type)
        return arr if arr.type == field.type else arr.cast(field.type)

    def _read_paged(self, f: Any, leaf: LeafColumn, field: Any, selection: RowSelection,
                    groups: list[int], touched: set[int]) -> dict[int, Any]:
        """The selected rows of one column in ``groups``, decoded by pyarrow in one call."""
        import pyarrow as pa
        import pyarrow.parquet as papq

        parts: list[bytes] = []
        at = 4
        row_groups, plans = [], []
        counts: list[int] = []  # rows of each group's wanted pages
        total_values = 0
        for g in groups:
            pages = self._pages[(g, leaf.index)]
            assert pages is not None
            wanted = pages.wanted(selection.ranges[g])
            plans.append(wanted)
            if len(wanted):
                touched.add(g)
                self.pages_read += len(wanted)
            start = at
            if pages.dictionary_length:
                f.seek(pages.chunk_start)
                parts.append(f.read(pages.dictionary_length))
                at += pages.dictionary_length
            data_at = at
            # Pages back to back are read together (one request each run on object stores).
            cut = np.flatnonzero(np.diff(wanted) != 1) + 1
            first = wanted[np.concatenate(([0], cut))] if len(wanted) else wanted
            last = wanted[np.concatenate((cut, [len(wanted)])) - 1] if len(wanted) else wanted
            for lo, hi in zip(pages.offsets[first].tolist(),
                              (pages.offsets[last] + pages.sizes[last]).tolist(), strict=True):
                f.seek(lo)
                data = f.read(hi - lo)
                parts.append(data)
                at += len(data)
            values = int((pages.ends[wanted] - pages.starts[wanted]).sum())
            counts.append(values)
            total_values += values
            old = self.footer.chunk_meta(g, leaf.index)
            meta = pq.ColumnMetaData(
                type=old.type, encodings=old.encodings, path_in_schema=old.path_in_schema,
                codec=old.codec, num_values=values, total_uncompressed_size=at - start,
                total_compressed_size=at - start, data_page_offset=data_at,
                dictionary_page_offset=start if pages.dictionary_length else None)
            row_groups.append(pq.RowGroup(columns=[pq.ColumnChunk(file_offset=start,
                                                                  meta_data=meta)],
                                          total_byte_size=at - start, num_rows=values))
        body = b"".join(parts)
        self.bytes_read += len(body)
        md = pq.FileMetaData(version=self.footer.metadata.version or 1,
                             schema=[pq.SchemaElement(name=b"schema", num_children=1),
                                     self.footer.schema[leaf.schema_index]],
                             num_rows=total_values,
                             row_groups=row_groups, created_by=self.footer.metadata.created_by)
        tail = encode(md)
        buf = b"PAR1" + body + tail + len(tail).to_bytes(4, "little") + b"PAR1"
        data = papq.ParquetFile(pa.BufferReader(buf)).read(use_threads=False).column(0)
        if data.type != field.type:
            data = data.cast(field.type)
        out, base = {}, 0
        for g, wanted, rows in zip(groups, plans, counts, strict=True):
            pages = self._pages[(g, leaf.index)]
            assert pages is not None
            out[g] = _take_slices(data, _slices(selection.ranges[g], pages.starts, pages.ends,
                                                wanted, base))
            base += rows
        return out


def survivors_selection(selection: RowSelection, mask: Any, gap: int = 1024
                        ) -> tuple[RowSelection, Ints]:
    """The rows of ``selection`` where ``mask`` is true, as ranges and positions.

    Selected rows that pass lie in ranges, neighbours closer than ``gap`` rows
    joined (a page is decoded whole anyway; fewer ranges mean fewer slices);
    ``positions`` are where the passing rows are among the rows of those
    ranges, in order.

    >>> import numpy as np
    >>> sel = RowSelection({0: ((0, 10),), 3: ((5, 8),)}, 20)
    >>> mask = np.zeros(13, dtype=bool); mask[[1, 3, 11]] = True
    >>> s, pos = survivors_selection(sel, mask, gap=4)
    >>> s.ranges, pos.tolist()
    ({0: ((1, 4),), 3: ((6, 7),)}, [0, 2, 3])
    """
    starts, groups, los = [], [], []
    at = 0
    for gg in selection.row_groups:
        for a, b in selection.ranges[gg]:
            starts.append(at)
            groups.append(gg)
            los.append(a)
            at += b - a
    p = np.flatnonzero(np.asarray(mask, dtype=bool))
    if not len(p):
        return RowSelection({}, selection.total_rows), np.zeros(0, dtype=np.int64)
    # Each passing row's range among the selected ones, then its group and row.
    k = np.searchsorted(np.asarray(starts, dtype=np.int64), p, side="right") - 1
    g = np.asarray(groups, dtype=np.int64)[k]
    r = np.asarray(los, dtype=np.int64)[k] + (p - np.asarray(starts, dtype=np.int64)[k])
    cut = np.flatnonzero((g[1:] != g[:-1]) | (r[1:] - r[:-1] > gap)) + 1
    first = np.concatenate(([0], cut))
    last = np.concatenate((cut, [len(r)])) - 1
    lo, hi = r[first], r[last] + 1
    run_of = np.repeat(np.arange(len(first)), last - first + 1)
    base = np.concatenate(([0], np.cumsum(hi - lo)[:-1]))
    positions = base[run_of] + (r - lo[run_of])
    ranges: dict[int, list[tuple[int, int]]] = {}
    for gg, a, b in zip(g[first].tolist(), lo.tolist(), hi.tolist(), strict=True):
        ranges.setdefault(gg, []).append((a, b))
    return (RowSelection({k: tuple(v) for k, v in ranges.items()}, selection.total_rows),
            positions.astype(np.int64))


#: This process's readers, one per file while the file is unchanged (at most 32 files:
#: each holds its file's page index bytes).
_READERS: FileCache[SelectionReader] = FileCache(SelectionReader, limit=32)


def reader_for(path: Target) -> SelectionReader:
    """This process's :class:`SelectionReader` of a file, made again when the file changes.

    >>> import pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    >>> papq.write_table(pa.table({"x": [1.0]}), path)
    >>> reader_for(path) is reader_for(path)
    True
    """
    return _READERS(path if isinstance(path, str) else resolve(path).uri)
