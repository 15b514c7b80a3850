"""Upgrade the float statistics of a Parquet file, data pages untouched.

:func:`upgrade` writes a new file with the same data: page payloads are
copied byte for byte, and for every float column (flat or inside optional
structs) the column order, the chunk ``Statistics``, each data page header's
statistics, the ColumnIndex (with ``nan_counts``) and the OffsetIndex are
rewritten from statistics recomputed with the kernels.  Every offset that
moves is recomputed.  The output goes to a temporary file beside ``dst``,
flushed, fsynced and renamed over ``dst``: the source is never modified and
a failure never leaves a partial ``dst``.

With ``truncate=N``, STRING columns outside lists get the same treatment (chunk and
page header statistics, ColumnIndex, OffsetIndex), their bounds recomputed
from the values and cut to at most N bytes (see
:mod:`nanstats.parquet.string_stats`).  For every rewritten chunk, what to
write is computed by ``prepare`` (in a worker thread, two row groups ahead);
``_write_chunk`` only writes it.

Layout of the output: ``PAR1``, the row groups' column chunks (in leaf
order), the bloom filters, all ColumnIndexes, all OffsetIndexes, the footer.

>>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
>>> d = tempfile.mkdtemp()
>>> src, dst = os.path.join(d, "src.parquet"), os.path.join(d, "dst.parquet")
>>> papq.write_table(pa.table({"x": [1.0, np.nan, -0.0], "s": ["a", "b", "c"]}), src)
>>> report = upgrade(src, dst)
>>> [(c.name, c.action, c.nan_count, c.column_index) for c in report.columns]
[('x', 'upgraded', 1, True), ('s', 'copied', None, False)]
>>> got = papq.read_table(dst)
>>> got["x"].to_pylist(), got["s"].equals(papq.read_table(src)["s"])
([1.0, nan, -0.0], True)
"""

from __future__ import annotations

import copy
import itertools
import os
import tempfile
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import IO, Any

from nanstats.core.column_index import ColumnIndex
from nanstats.core.rules import (
    ColumnOrderName,
    TypeOrderPolicy,
    bounds_to_write,
    check_order,
    column_index_refusal,
)
from nanstats.core.stats import EncodedStatistics
from nanstats.core.table import StatsTable
from nanstats.errors import ParquetFormatError, UnsupportedParquetError
from nanstats.metadata.convert import BOUNDARY_ORDER_CODES, PHYSICAL_TYPE_NAMES
from nanstats.metadata.footer import MAGIC, Footer, LeafColumn, read_footer
from nanstats.metadata.page_index import read_page_index
from nanstats.metadata.pages import (
    Page,
    check_offset_index_pages,
    chunk_range,
    pages_from_bytes,
    read_pages,
)
from nanstats.metadata.thrift import decode, encode, pq
from nanstats.parquet.recompute import (
    ChunkStats,
    leaf_arrays,
    open_parquet_file,
    stats_for_array,
)
from nanstats.parquet.source_map import SourceMap, map_source
from nanstats.parquet.string_stats import (
    StringBounds,
    StringChunkStats,
    check_truncate,
    is_string_leaf,
    string_leaf_arrays,
    string_stats_for_array,
)

ProgressCallback = Callable[[int, int], Any]

#: ColumnSummary.action of a string column rewritten with truncated bounds.
TRUNCATED = "upgraded (truncated bounds)"
_BATCH = 1 << 24  # bytes queued before a write; larger pieces go by copy_file_range
_IOV_MAX = 1024
_HAS_PREADV = hasattr(os, "preadv")


@dataclass(frozen=True)
class ColumnSummary:
    """What upgrade did to one leaf column, over all row groups.

    ``action`` is ``'upgraded'`` (float statistics rewritten),
    ``'upgraded (truncated bounds)'`` (a string column's statistics
    recomputed with bounds of at most ``truncate`` bytes; ``nan_count`` is
    None), ``'copied'`` (any other column, kept as it was) or ``'skipped'``
    (a repeated float column, kept as it was).  ``column_index_row_groups`` counts the row
    groups that got a ColumnIndex; ``reason`` says why the others did not.

    >>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> src, dst = os.path.join(d, "a.parquet"), os.path.join(d, "b.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, np.nan], "s": ["p", "q"]}), src)
    >>> [(c.name, c.action, c.nan_count) for c in upgrade(src, dst).columns]
    [('x', 'upgraded', 1), ('s', 'copied', None)]
    """

    name: str
    physical_type: str
    action: str
    rows: int
    pages: int
    nan_count: int | None
    null_count: int | None
    column_index_row_groups: int
    row_groups: int
    reason: str | None = None

    @property
    def column_index(self) -> bool:
        """True when every row group of the column has a ColumnIndex."""
        return self.row_groups > 0 and self.column_index_row_groups == self.row_groups

    def to_dict(self) -> dict[str, Any]:
        """The fields, plus ``column_index``."""
        return {**asdict(self), "column_index": self.column_index}


@dataclass(frozen=True)
class UpgradeReport:
    """The result of :func:`upgrade`: one ColumnSummary per leaf column.

    >>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> src, dst = os.path.join(d, "a.parquet"), os.path.join(d, "b.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, np.nan], "s": ["p", "q"]}), src)
    >>> report = upgrade(src, dst, truncate=8)
    >>> report.upgraded, report.truncated, report.bytes_out > 0
    (('x',), ('s',), True)
    """

    src: str
    dst: str
    order: ColumnOrderName
    policy: TypeOrderPolicy
    columns: tuple[ColumnSummary, ...]
    row_groups: int
    bytes_in: int
    bytes_out: int
    bloom_filters: int
    notes: tuple[str, ...] = field(default=())
    truncate: int | None = None

    @property
    def upgraded(self) -> tuple[str, ...]:
        """Names of the columns whose float statistics were rewritten."""
        return tuple(c.name for c in self.columns if c.action == "upgraded")

    @property
    def truncated(self) -> tuple[str, ...]:
        """Names of the string columns whose statistics got truncated bounds."""
        return tuple(c.name for c in self.columns if c.action == TRUNCATED)

    @property
    def skipped(self) -> tuple[str, ...]:
        """Names of the float columns left as they were (repeated leaves)."""
        return tuple(c.name for c in self.columns if c.action == "skipped")

    def to_dict(self) -> dict[str, Any]:
        """Plain Python objects, for JSON."""
        d = asdict(self)
        d["columns"] = [c.to_dict() for c in self.columns]
        d["notes"] = list(self.notes)
        d["skipped"] = list(self.skipped)
        d["truncated"] = list(self.truncated)
        return d

    def __repr__(self) -> str:
        return (f"UpgradeReport({self.src!r} -> {self.dst!r}, order={self.order}, "
                f"upgraded={list(self.upgraded)}, skipped={list(self.skipped)})")


def statistics_struct(enc: EncodedStatistics) -> Any:
    """The Thrift ``Statistics`` struct nanstats writes for encoded float statistics.

    ``null_count`` and ``nan_count`` always; ``min_value``/``max_value`` with
    ``is_min/max_value_exact`` set when the rules give bounds; the
    deprecated ``min``/``max`` never.

    >>> import numpy as np, nanstats
    >>> st = statistics_struct(nanstats.summary(np.array([1.0, np.nan])).statistics())
    >>> st.nan_count, st.min_value.hex(), st.is_min_value_exact, st.min
    (1, '000000000000f03f', True, None)
    """
    st = pq.Statistics(null_count=enc.null_count, nan_count=enc.nan_count)
    if enc.min_value is not None and enc.max_value is not None:
        st.min_value, st.max_value = enc.min_value, enc.max_value
        st.is_min_value_exact = st.is_max_value_exact = True
    return st


def page_statistics(table: StatsTable, order: ColumnOrderName,
                    policy: TypeOrderPolicy = "safe") -> list[Any]:
    """Statistics structs for every row (page) of a StatsTable, rules applied at once.

    Equal to ``statistics_struct(ColumnStats.from_table(table, i).statistics(order))``
    for each page ``i``.

    >>> import numpy as np
    >>> from nanstats.core.stats import page_table
    >>> [s.nan_count for s in page_statistics(page_table(np.array([1.0, np.nan]), page_rows=1),
    ...                                        "ieee754")]
    [0, 1]
    """
    if len(table) == 0:
        return []
    ft = table.float_type
    bounds = bounds_to_write(table, order, policy)
    mins = ft.bits_to_plain(bounds.min_bits)
    maxs = ft.bits_to_plain(bounds.max_bits)
    out = []
    for i, (present, nulls, nans) in enumerate(zip(
            bounds.present.tolist(), table.null_count.tolist(), table.nan_count.tolist(),
            strict=True)):
        st = pq.Statistics(null_count=nulls, nan_count=nans)
        if present:
            st.min_value, st.max_value = mins[i], maxs[i]
            st.is_min_value_exact = st.is_max_value_exact = True
        out.append(st)
    return out


def column_index_struct(ci: ColumnIndex, like: Any = None) -> Any:
    """The Thrift ``ColumnIndex`` of a nanstats ColumnIndex.

    Level histograms are taken from ``like`` (the chunk's previous
    ColumnIndex), which stay right because the pages do not change.

    >>> import numpy as np, nanstats
    >>> s = column_index_struct(nanstats.column_index(np.array([1.0, np.nan]), page_rows=1))
    >>> s.nan_counts, s.boundary_order, s.null_pages
    ([0, 1], 1, [False, False])
    """
    out = pq.ColumnIndex(
        null_pages=list(ci.null_pages),
        min_values=list(ci.min_values),
        max_values=list(ci.max_values),
        boundary_order=BOUNDARY_ORDER_CODES[ci.boundary_order],
        null_counts=list(ci.null_counts),
        nan_counts=list(ci.nan_counts),
    )
    _copy_level_histograms(out, like)
    return out


def _copy_level_histograms(out: Any, like: Any) -> None:
    """Copy the level histograms of ``like`` (the old ColumnIndex) into ``out``.

    Only when the page count is unchanged: the pages are the same, so the
    histograms still describe them.
    """
    if like is None:
        return
    n = len(out.null_pages)
    for name in ("repetition_level_histograms", "definition_level_histograms"):
        hist = getattr(like, name)
        if hist and len(like.null_pages or ()) == n:
            setattr(out, name, list(hist))


def string_statistics_struct(bounds: StringBounds) -> Any:
    """The Thrift ``Statistics`` struct nanstats writes for (truncated) string bounds.

    ``null_count`` always; ``min_value``/``max_value`` with honest
    ``is_min/max_value_exact`` unless every value is null; no ``nan_count``
    (strings have none) and never the deprecated ``min``/``max``.

    >>> import pyarrow as pa
    >>> from nanstats.parquet.string_stats import bounds_of
    >>> st = string_statistics_struct(bounds_of(pa.array(["Marvin", "Eddie"]), 4))
    >>> st.min_value, st.is_min_value_exact, st.max_value, st.is_max_value_exact, st.nan_count
    (b'Eddi', False, b'Marw', False, None)
    """
    st = pq.Statistics(null_count=bounds.null_count)
    if not bounds.all_null:
        st.min_value, st.max_value = bounds.min_value, bounds.max_value
        st.is_min_value_exact, st.is_max_value_exact = bounds.min_exact, bounds.max_exact
    return st


def string_column_index_struct(cs: StringChunkStats, like: Any = None) -> Any:
    """The Thrift ``ColumnIndex`` of a string chunk's truncated page bounds.

    Null pages get empty bounds; ``boundary_order`` comes from the stored
    (truncated) bounds; level histograms are copied from ``like`` (the old
    ColumnIndex) when it has as many pages.

    >>> import pyarrow as pa
    >>> from nanstats.parquet.string_stats import string_stats
    >>> cs = string_stats(pa.array(["ab", None, "abc"]), page_starts=[0, 1, 2], n=2)
    >>> s = string_column_index_struct(cs)
    >>> s.null_pages, s.min_values, s.max_values, s.boundary_order, s.null_counts
    ([False, True, False], [b'ab', b'', b'ab'], [b'ab', b'', b'ac'], 1, [0, 1, 0])
    """
    out = pq.ColumnIndex(
        null_pages=[p.all_null for p in cs.pages],
        min_values=[p.min_value or b"" for p in cs.pages],
        max_values=[p.max_value or b"" for p in cs.pages],
        boundary_order=BOUNDARY_ORDER_CODES[cs.boundary_order()],
        null_counts=[p.null_count for p in cs.pages],
    )
    _copy_level_histograms(out, like)
    return out


@dataclass(frozen=True)
class _NewStatistics:
    """The statistics to write for one column chunk, computed before it is written.

    ``pages`` holds the Statistics struct of each data page (file order),
    ``chunk`` the chunk's; ``column_index`` the encoded ColumnIndex, or None
    with ``refusal`` saying why; ``page_starts`` the first row of each data
    page (for the OffsetIndex); the counts feed the report (``nan_count`` is
    None for strings).
    """

    pages: list[Any]
    chunk: Any
    column_index: bytes | None
    refusal: str | None
    page_starts: list[int]
    num_values: int
    null_count: int
    nan_count: int | None


def _has_data_pages(pages: list[Page]) -> bool:
    return any(p.is_data for p in pages)


def _float_statistics(cs: ChunkStats, pages: list[Page], old_ci: Any, order: ColumnOrderName,
                      policy: TypeOrderPolicy) -> _NewStatistics:
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
    return _NewStatistics(page_statistics(cs.pages, order, policy),
                          statistics_struct(cs.chunk.statistics(order, policy=policy)),
                          encoded, refusal, cs.page_starts.tolist(), cs.chunk.num_values,
                          cs.chunk.null_count, cs.chunk.nan_count)


def _string_statistics(cs: StringChunkStats, pages: list[Page], old_ci: Any) -> _NewStatistics:
    """What to write for a string chunk: truncated bounds, a ColumnIndex if it has pages."""
    encoded = refusal = None
    if _has_data_pages(pages):
        encoded = encode(string_column_index_struct(cs, old_ci))
    else:
        refusal = "the chunk has no data pages"
    return _NewStatistics([string_statistics_struct(p) for p in cs.pages],
                          string_statistics_struct(cs.chunk), encoded, refusal,
                          cs.page_starts.tolist(), cs.chunk.num_values, cs.chunk.null_count,
                          None)


@dataclass
class _Chunk:
    """One column chunk as it is being rewritten."""

    leaf: LeafColumn
    old: Any  # pq.ColumnChunk
    start: int
    length: int
    pages: list[Page]
    ci: Any
    oi: Any
    ci_raw: bytes | None
    stats: _NewStatistics | None = None  # None: copied as it was
    new: Any = None  # pq.ColumnChunk
    new_ci: bytes | None = None
    new_oi: bytes | None = None
    bloom: bytes | None = None
    path: str = ""


@dataclass
class _ColumnTotals:
    rows: int = 0
    pages: int = 0
    nans: int = 0
    nulls: int = 0
    ci_row_groups: int = 0
    reasons: list[str] = field(default_factory=list)


def _progress_callback(progress: Any, total: int) -> ProgressCallback | None:
    """A (done, total) callback from a callable or a rich Progress."""
    if progress is None:
        return None
    if hasattr(progress, "add_task") and hasattr(progress, "update"):
        task = progress.add_task("upgrade", total=total)

        def update(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        return update
    if callable(progress):
        return progress  # type: ignore[no-any-return]
    raise TypeError(f"progress must be a callable (done, total) or a rich Progress, not "
                    f"{type(progress).__name__}")


def _refuse_unsupported(footer: Footer) -> None:
    meta = footer.metadata
    if meta.encryption_algorithm is not None:
        raise UnsupportedParquetError(f"{footer.path}: the file is encrypted (plaintext footer); "
                                      "nanstats does not rewrite encrypted files")
    for g, rg in enumerate(meta.row_groups or ()):
        for c, chunk in enumerate(rg.columns):
            name = footer.columns[c].name
            if chunk.crypto_metadata is not None or chunk.encrypted_column_metadata is not None:
                raise UnsupportedParquetError(
                    f"{footer.path}: row group {g}, column {name!r} is encrypted; nanstats does "
                    "not rewrite encrypted files")
            if chunk.file_path is not None:
                raise UnsupportedParquetError(
                    f"{footer.path}: row group {g}, column {name!r} lives in another file "
                    f"({chunk.file_path!r}); nanstats rewrites self-contained files only")


def _same_file(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _umask() -> int:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:  # pragma: no cover - not Linux
        pass
    mask = os.umask(0o022)  # pragma: no cover
    os.umask(mask)  # pragma: no cover
    return mask  # pragma: no cover


def upgrade(src: str | os.PathLike[str], dst: str | os.PathLike[str],
            order: ColumnOrderName = "ieee754", *, policy: TypeOrderPolicy = "safe",
            progress: Any = None, truncate: int | None = None,
            memory_map: bool = True) -> UpgradeReport:
    """Write ``dst``: the data of ``src`` with correct float statistics under ``order``.

    ``order='ieee754'`` sets the IEEE_754_TOTAL_ORDER column order of every
    float column (flat or inside structs); ``'type_order'`` keeps TYPE_ORDER
    with the legacy rules (``policy`` as in ``ColumnStats.statistics``).
    Chunk statistics, page header statistics, a ColumnIndex (where the rules
    allow one) and an OffsetIndex are written for each float column chunk.
    Non-float columns are copied with their statistics and page index;
    repeated float columns are copied as they were and listed in
    ``UpgradeReport.skipped``.

    ``truncate=N`` (a positive int) also rewrites every BYTE_ARRAY column
    annotated STRING/UTF8 that is not repeated (flat or inside structs;
    ``UpgradeReport.truncated``): chunk and
    page header statistics, a ColumnIndex and an OffsetIndex from the
    decoded values, each bound shortened to at most N bytes in UTF-8 mode
    (bounds stay valid UTF-8, as parquet-java writes them; see
    :mod:`nanstats.parquet.string_stats`) with honest
    ``is_min/max_value_exact`` flags, and ``boundary_order`` taken from the
    stored bounds.  Without it string columns are copied as they were.

    ``progress`` is an optional callable ``(done_bytes, total_bytes)`` or a
    ``rich.progress.Progress``.

    ``memory_map=True`` (the default, where the platform allows it) reads
    ``src`` through a memory map, which saves copying every byte twice (see
    ``nanstats.parquet.source_map``); like ``pyarrow.memory_map``, it
    requires that nobody truncates or rewrites ``src`` in place while it is
    being upgraded (replacing it by a rename is fine).  ``memory_map=False``
    reads with ``pread``; the output is byte for byte the same.  About two
    row groups of decoded values are held at a time.

    Raises UnsupportedParquetError for encrypted files, ParquetFormatError
    for corrupt ones, ValueError when ``src`` and ``dst`` are the same file.
    See the module example.

    >>> import numpy as np, pyarrow as pa, pyarrow.parquet as papq, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> src, dst = os.path.join(d, "a.parquet"), os.path.join(d, "b.parquet")
    >>> papq.write_table(pa.table({"x": [1.0, np.nan], "s": ["p", "q"]}), src)
    >>> upgrade(src, dst, "type_order").order
    'type_order'
    >>> papq.read_table(dst).to_pydict()
    {'x': [1.0, nan], 's': ['p', 'q']}
    """
    check_order(order, policy)
    if truncate is not None:
        truncate = check_truncate(truncate)
    src, dst = os.fspath(src), os.fspath(dst)
    if _same_file(src, dst):
        raise ValueError(f"upgrade writes a new file: src and dst are the same file ({src!r})")
    directory = os.path.dirname(os.path.abspath(dst))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(dst)}.",
                               suffix=".nanstats-tmp")
    try:
        try:
            os.fchmod(fd, 0o666 & ~_umask())
            with open(src, "rb") as f:
                source = map_source(src) if memory_map else None
                w = _Writer(fd, f.fileno(), source)
                try:
                    report = _upgrade(f, src, w, dst, order, policy, progress, truncate, source)
                    w.flush()
                finally:
                    w.wait_for_writeback()
                    if source is not None:
                        source.close()
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, dst)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(directory)
    return report


def _fsync_directory(directory: str) -> None:
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(dfd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(dfd)


class _Writer:
    """Appends to the output file descriptor and counts the bytes written.

    Writes and copies are queued and written out in batches with ``writev``
    (one system call for thousands of pages instead of one per page): the
    new page headers interleaved with the page payloads, taken straight
    from the memory-mapped source when there is one (``source``, see
    ``nanstats.parquet.source_map``; its ranges are populated by the
    caller), else read a stretch at a time with one ``pread`` into a reused
    buffer.  A piece larger than the batch (a chunk kept as it is) is
    copied by the kernel (``os.copy_file_range``) where the platform allows.
    Between row groups, :meth:`start_writeback` has a background thread
    ``fdatasync`` what was written so far, so that the final ``fsync`` has
    little left to do.
    """

    def __init__(self, fd: int, src_fd: int, source: SourceMap | None = None) -> None:
        self.fd, self.src_fd = fd, src_fd
        self.source = source
        self.pos = 0
        self.segments: list[bytes | tuple[int, int, str]] = []
        self.queued = 0
        self.kernel_copy = hasattr(os, "copy_file_range")
        self._sync: Any = None
        self._executor: Any = None
        # One read buffer, reused: fresh memory for every batch costs a page
        # fault per 4 KiB, more than the copy itself.
        self._buffer = memoryview(bytearray(0))

    def _read_into(self, offset: int, length: int) -> int:
        """Read up to ``length`` source bytes from ``offset`` into the buffer."""
        if len(self._buffer) < length:
            self._buffer = memoryview(bytearray(length))
        got = 0
        while got < length:
            if _HAS_PREADV:
                n = os.preadv(self.src_fd, [self._buffer[got:length]], offset + got)
            else:  # no preadv on this platform: read, then copy in
                data = os.pread(self.src_fd, length - got, offset + got)
                n = len(data)
                self._buffer[got:got + n] = data
            if n == 0:
                break
            got += n
        return got

    def write(self, data: bytes | memoryview) -> int:
        """Append bytes; returns the offset they start at."""
        start = self.pos
        self.segments.append(bytes(data))
        self.pos += len(data)
        self.queued += len(data)
        if self.queued >= _BATCH:
            self.flush()
        return start

    def copy(self, offset: int, length: int, path: str) -> int:
        """Append ``length`` bytes of the source from ``offset``; returns where they start."""
        start = self.pos
        if length >= _BATCH:
            self.flush()
            self._copy_now(offset, length, path)
        else:
            self.segments.append((offset, length, path))
            self.queued += length
            if self.queued >= _BATCH:
                self.flush()
        self.pos += length
        return start

    def _copy_now(self, offset: int, length: int, path: str) -> None:
        end = offset + length
        while offset < end:
            n = 0
            if self.kernel_copy:
                try:
                    n = os.copy_file_range(self.src_fd, self.fd, end - offset, offset)
                except OSError:  # another file system, or not supported here
                    self.kernel_copy = False
                    continue
            else:
                data = os.pread(self.src_fd, min(end - offset, _BATCH), offset)
                n = len(data)
                self._write_all([data])
            if n == 0:
                raise ParquetFormatError("the file ends inside a page", path=path, offset=offset)
            offset += n

    def _write_all(self, iov: list[Any]) -> None:
        """writev every buffer, resuming after partial writes."""
        views = [memoryview(b) for b in iov if len(b)]
        while views:
            batch = views[:_IOV_MAX]
            written = os.writev(self.fd, batch)
            while written and views:
                if written >= len(views[0]):
                    written -= len(views.pop(0))
                else:
                    views[0] = views[0][written:]
                    written = 0

    def flush(self) -> None:
        """Write out everything queued."""
        segs, self.segments, self.queued = self.segments, [], 0
        if self.source is not None:
            self._write_all(self._mapped_iov(segs, self.source))
        else:
            self._write_read(segs)

    @staticmethod
    def _mapped_iov(segs: list[bytes | tuple[int, int, str]], source: SourceMap) -> list[Any]:
        """The queued pieces as buffers: new bytes as they are, copies as slices of the map."""
        iov: list[Any] = []
        for seg in segs:
            if isinstance(seg, bytes):
                iov.append(seg)
                continue
            offset, length, path = seg
            if offset + length > source.size:
                raise ParquetFormatError("the file ends inside a page", path=path,
                                         offset=source.size)
            iov.append(source.view[offset:offset + length])
        return iov

    def _write_read(self, segs: list[bytes | tuple[int, int, str]]) -> None:
        """Write the queued pieces, reading the copies into the buffer a stretch at a time."""
        iov: list[Any] = []
        buf: memoryview | None = None
        buf_lo = buf_hi = 0
        for i, seg in enumerate(segs):
            if isinstance(seg, bytes):
                iov.append(seg)
                continue
            offset, length, path = seg
            if buf is None or offset < buf_lo or offset + length > buf_hi:
                # One read for this piece and the queued pieces that follow it
                # closely in the source (the next pages of the chunk).
                end = offset + length
                for later in itertools.islice(segs, i + 1, None):
                    if isinstance(later, bytes):
                        continue
                    if later[0] < end or later[0] + later[1] - offset > 2 * _BATCH:
                        break
                    end = later[0] + later[1]
                if buf is not None:
                    # The read buffer is about to be reused: write what
                    # points into it first.
                    self._write_all(iov)
                    iov = []
                got = self._read_into(offset, end - offset)
                if got < length:
                    raise ParquetFormatError("the file ends inside a page", path=path,
                                             offset=offset + got)
                buf, buf_lo, buf_hi = self._buffer[:got], offset, offset + got
            iov.append(buf[offset - buf_lo:offset - buf_lo + length])
        self._write_all(iov)

    def start_writeback(self) -> None:
        """Flush and, unless one is running, start a background fdatasync."""
        self.flush()
        if self._sync is not None and not self._sync.done():
            return
        if self._sync is not None:
            self._sync.result()  # raise its error, if any
        if self._executor is None:
            from concurrent.futures import ThreadPoolExecutor

            self._executor = ThreadPoolExecutor(1, thread_name_prefix="nanstats-writeback")
        self._sync = self._executor.submit(os.fdatasync, self.fd)

    def wait_for_writeback(self) -> None:
        """Wait for the background fdatasync (raising its error) and stop the thread."""
        if self._executor is None:
            return
        try:
            self._sync.result()
        finally:
            self._executor.shutdown()
            self._executor = None


def _upgrade(f: IO[bytes], src: str, w: _Writer, dst: str, order: ColumnOrderName,
             policy: TypeOrderPolicy, progress: Any, truncate: int | None,
             source: SourceMap | None) -> UpgradeReport:
    footer = read_footer(f)
    _refuse_unsupported(footer)
    meta = footer.metadata
    report_progress = _progress_callback(progress, footer.file_size)
    eligible = [c.index for c in footer.columns
                if c.float_type is not None and c.max_repetition_level == 0]
    strings = [] if truncate is None else \
        [c.index for c in footer.columns if is_string_leaf(footer, c)]
    parquet_file = open_parquet_file(src, None if source is None else source.file) \
        if eligible or strings else None
    w.write(MAGIC)
    totals = {c.index: _ColumnTotals() for c in footer.columns}
    notes: list[str] = []
    new_row_groups = []
    all_chunks: list[list[_Chunk]] = []
    done = 0
    row_groups = meta.row_groups or []

    def decode_row_group(g: int) -> tuple[dict[int, Any], dict[int, Any]]:
        """pyarrow's values of row group g: the float leaves, the string leaves."""
        return (leaf_arrays(parquet_file, footer, g, eligible) if eligible else {},
                string_leaf_arrays(parquet_file, footer, g, strings) if strings else {})

    decodes: dict[int, Any] = {}  # row group -> its decoding, started ahead

    def start_decoding(g: int) -> Any:
        if source is not None:
            # Mapped now, for pyarrow's decoding and the writer's copy.
            for leaf in footer.columns:
                source.populate(*chunk_range(footer, g, leaf.index))
        return decoder.submit(decode_row_group, g) if eligible or strings else None

    def prepare(g: int) -> list[_Chunk]:
        """Walk the pages of row group g, decode the columns to rewrite, compute what
        to write for them (float statistics by the kernels, truncated string bounds)."""
        # pyarrow decodes (without the GIL) while this thread walks the page
        # headers (with it), and goes on with the next row group while the
        # kernels and the rules run on this one.
        decoded = decodes.pop(g) if g in decodes else start_decoding(g)
        chunks = [_read_chunk(f, footer, g, leaf, source) for leaf in footer.columns]
        floats, texts = decoded.result() if decoded is not None else ({}, {})
        if g + 1 < len(row_groups):
            decodes[g + 1] = start_decoding(g + 1)
        for leaf in eligible:
            ch = chunks[leaf]
            cs = stats_for_array(floats.pop(leaf), ch.pages, ch.oi, path=footer.path,
                                 where=f"row group {g}, column {ch.leaf.name!r}")
            ch.stats = _float_statistics(cs, ch.pages, ch.ci, order, policy)
        if strings:
            assert truncate is not None
            for leaf in strings:
                ch = chunks[leaf]
                ss = string_stats_for_array(texts.pop(leaf), ch.pages, ch.oi, truncate,
                                            path=footer.path,
                                            where=f"row group {g}, column {ch.leaf.name!r}")
                ch.stats = _string_statistics(ss, ch.pages, ch.ci)
        return chunks

    # A worker prepares row groups g + 1 and g + 2 (pyarrow and the kernels
    # release the GIL) while this thread writes row group g (the kernel
    # copies the pages).  Only the worker touches ``f`` until it is done.
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(1, thread_name_prefix="nanstats-prepare")
    decoder = ThreadPoolExecutor(1, thread_name_prefix="nanstats-decode")
    try:
        # Two row groups ahead, so that the worker never waits for the writer.
        pending = deque(pool.submit(prepare, g) for g in range(min(2, len(row_groups))))
        for g, rg in enumerate(row_groups):
            chunks = pending.popleft().result()
            if g + 2 < len(row_groups):
                pending.append(pool.submit(prepare, g + 2))
            for ch in chunks:
                _write_chunk(w, ch)
                _account(totals[ch.leaf.index], ch)
                done += ch.length
                if report_progress is not None:
                    report_progress(done, footer.file_size)
            new_row_groups.append(_new_row_group(rg, chunks))
            all_chunks.append(chunks)
            w.start_writeback()
            if source is not None:  # written: keep the mapping from growing
                for ch in chunks:
                    source.release(ch.start, ch.length)
    finally:
        pool.shutdown(cancel_futures=True)
        decoder.shutdown()  # a decode left running when a walk failed
        if parquet_file is not None:
            parquet_file.close()
    blooms = _write_bloom_filters(w, f, footer, all_chunks, source)
    for chunks in all_chunks:
        for ch in chunks:
            if ch.new_ci is not None:
                ch.new.column_index_offset = w.write(ch.new_ci)
                ch.new.column_index_length = len(ch.new_ci)
            else:
                ch.new.column_index_offset = ch.new.column_index_length = None
    for chunks in all_chunks:
        for ch in chunks:
            if ch.new_oi is not None:
                ch.new.offset_index_offset = w.write(ch.new_oi)
                ch.new.offset_index_length = len(ch.new_oi)
            else:
                ch.new.offset_index_offset = ch.new.offset_index_length = None
    new_meta = copy.copy(meta)
    new_meta.row_groups = new_row_groups
    new_meta.column_orders = _column_orders(footer, eligible, order)
    raw = _encode_rewritten(new_meta, footer.path, "the new footer")
    w.write(raw)
    w.write(len(raw).to_bytes(4, "little") + MAGIC)
    if report_progress is not None:
        report_progress(footer.file_size, footer.file_size)
    columns = tuple(_summary(c, totals[c.index], len(all_chunks), c.index in eligible,
                             truncate if c.index in strings else None)
                    for c in footer.columns)
    return UpgradeReport(src, dst, order, policy, columns, len(all_chunks), footer.file_size,
                         w.pos, blooms, tuple(notes), truncate)


def _read_chunk(f: IO[bytes], footer: Footer, g: int, leaf: LeafColumn,
                source: SourceMap | None = None) -> _Chunk:
    start, length = chunk_range(footer, g, leaf.index)
    if source is None:
        pages = read_pages(f, footer, g, leaf.index)
    else:  # populated by the caller
        pages = pages_from_bytes(source.view[start:start + length], start, footer, g,
                                 leaf.index)
    ci, oi = read_page_index(f, footer, g, leaf.index)
    check_offset_index_pages(pages, oi, footer, g, leaf.index)
    old = footer.chunk(g, leaf.index)
    ci_raw = None
    if ci is not None:
        f.seek(old.column_index_offset)
        ci_raw = f.read(old.column_index_length)
    return _Chunk(leaf, old, start, length, pages, ci, oi, ci_raw, path=footer.path)


def _write_chunk(w: _Writer, ch: _Chunk) -> None:
    """Write one chunk: pages copied, headers and indexes rewritten from ``ch.stats``."""
    path = ch.path
    new_start = w.pos
    page_stats = iter(ch.stats.pages) if ch.stats is not None else None
    delta = 0  # change in header bytes
    shift = 0  # where the pages of a chunk copied whole moved by
    locations: list[tuple[int, int]] = []  # new (offset, size) of each data page
    dict_offset = index_offset = None
    old_meta = ch.old.meta_data
    for page in ch.pages:
        if page_stats is not None and page.is_data:
            header = page.header
            sub = header.data_page_header if header.type == pq.PAGE_DATA else \
                header.data_page_header_v2
            # The new statistics put in for the encoding and taken out again
            # (cheaper than copying two structs per page).
            old_stats, sub.statistics = sub.statistics, next(page_stats)
            try:
                raw_header = _encode_rewritten(header, path, f"the page header at byte "
                                               f"{page.offset}")
            finally:
                sub.statistics = old_stats
            delta += len(raw_header) - page.header_length
            at = w.write(raw_header)
            w.copy(page.data_offset, page.compressed_page_size, path)
        elif page_stats is None and page is ch.pages[0]:
            # A chunk kept as it is: all its pages in one copy.
            at = w.copy(ch.start, ch.length, path)
            shift = at - page.offset
        else:
            at = page.offset + shift if page_stats is None else \
                w.copy(page.offset, page.end - page.offset, path)
        if page.is_data:
            size = page.end - page.offset + (len(raw_header) - page.header_length
                                             if page_stats is not None else 0)
            locations.append((at, size))
        elif page.page_type == pq.PAGE_DICTIONARY:
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
            firsts = ch.stats.page_starts
            extra = ch.oi.unencoded_byte_array_data_bytes if ch.oi is not None else None
            ch.new_oi = _encode_rewritten(pq.OffsetIndex(
                page_locations=[pq.PageLocation(offset=o, compressed_page_size=s,
                                                first_row_index=r)
                                for (o, s), r in zip(locations, firsts, strict=True)],
                unencoded_byte_array_data_bytes=extra), path, "the OffsetIndex")
    else:
        ch.new_ci = ch.ci_raw
        if ch.oi is not None:
            new_oi = copy.copy(ch.oi)
            new_oi.page_locations = [
                pq.PageLocation(offset=o, compressed_page_size=s,
                                first_row_index=loc.first_row_index)
                for (o, s), loc in zip(locations, ch.oi.page_locations, strict=True)]
            ch.new_oi = _encode_rewritten(new_oi, path, "the OffsetIndex")


def _encode_rewritten(obj: Any, path: str, what: str) -> bytes:
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


def _account(t: _ColumnTotals, ch: _Chunk) -> None:
    t.rows += int(ch.old.meta_data.num_values or 0) if ch.stats is None else \
        ch.stats.num_values
    t.pages += sum(1 for p in ch.pages if p.is_data)
    if ch.stats is not None:
        t.nans += ch.stats.nan_count or 0
        t.nulls += ch.stats.null_count
    if ch.new_ci is not None:
        t.ci_row_groups += 1
    elif ch.stats is not None and ch.stats.refusal is not None \
            and ch.stats.refusal not in t.reasons:
        t.reasons.append(ch.stats.refusal)


def _summary(col: LeafColumn, t: _ColumnTotals, row_groups: int, eligible: bool,
             truncate: int | None) -> ColumnSummary:

    ptype = col.float_type.physical_type if col.float_type is not None else \
        PHYSICAL_TYPE_NAMES.get(col.physical_type, str(col.physical_type))
    if eligible:
        reason = "; ".join(t.reasons) or None
        return ColumnSummary(col.name, ptype, "upgraded", t.rows, t.pages, t.nans, t.nulls,
                             t.ci_row_groups, row_groups, reason)
    if truncate is not None:
        return ColumnSummary(col.name, ptype, TRUNCATED, t.rows, t.pages, None, t.nulls,
                             t.ci_row_groups, row_groups, "; ".join(t.reasons) or None)
    if col.float_type is not None:
        return ColumnSummary(col.name, ptype, "skipped", t.rows, t.pages, None, None,
                             t.ci_row_groups, row_groups,
                             "repeated (list or map) float column: left as it was")
    return ColumnSummary(col.name, ptype, "copied", t.rows, t.pages, None, None,
                         t.ci_row_groups, row_groups,
                         None if t.ci_row_groups == row_groups else "not a float column; "
                         "its page index (if any) is copied as it was")


def _new_row_group(rg: Any, chunks: list[_Chunk]) -> Any:
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


def _write_bloom_filters(w: _Writer, f: IO[bytes], footer: Footer,
                         all_chunks: list[list[_Chunk]], source: SourceMap | None) -> int:
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


def _column_orders(footer: Footer, eligible: list[int], order: ColumnOrderName) -> list[Any]:
    old = footer.metadata.column_orders
    orders = list(old) if old else [pq.ColumnOrder(TYPE_ORDER=pq.TypeDefinedOrder())
                                    for _ in footer.columns]
    for leaf in eligible:
        orders[leaf] = (pq.ColumnOrder(IEEE_754_TOTAL_ORDER=pq.IEEE754TotalOrder())
                        if order == "ieee754" else pq.ColumnOrder(TYPE_ORDER=pq.TypeDefinedOrder()))
    return orders


__all__ = ["TRUNCATED", "ColumnSummary", "UpgradeReport", "column_index_struct",
           "page_statistics", "statistics_struct", "string_column_index_struct",
           "string_statistics_struct", "upgrade"]
