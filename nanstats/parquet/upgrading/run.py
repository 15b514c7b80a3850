"""``upgrade``: the float statistics of a Parquet file rewritten, data pages untouched.

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
write is computed by a :class:`_Preparer` (in worker threads, two row
groups ahead; :mod:`~nanstats.parquet.upgrading.plan`) and
:func:`~nanstats.parquet.upgrading.layout.write_chunk` only writes it
(:mod:`~nanstats.parquet.upgrading.layout`, through the writer of
:mod:`~nanstats.parquet.upgrading.writer`).

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
import dataclasses
import os
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO, Any

from nanstats.core.rules import ColumnOrderName, TypeOrderPolicy, check_order
from nanstats.lake.fs import Target, resolve
from nanstats.metadata.convert import column_orders
from nanstats.metadata.footer import MAGIC, Footer, read_footer, refuse_encrypted
from nanstats.metadata.pages import chunk_range
from nanstats.parquet.recompute import leaf_arrays, open_parquet_file, stats_for_array
from nanstats.parquet.source_map import SourceMap, map_source
from nanstats.parquet.string_stats import (
    check_truncate,
    is_string_leaf,
    string_leaf_arrays,
    string_stats_for_array,
)
from nanstats.parquet.upgrading import layout
from nanstats.parquet.upgrading.io_calls import IOCalls, io_calls
from nanstats.parquet.upgrading.plan import (
    Chunk,
    float_statistics,
    read_chunk,
    refuse_external_chunks,
    string_statistics,
)
from nanstats.parquet.upgrading.remote import upgrade_staged
from nanstats.parquet.upgrading.report import ColumnTotals, UpgradeReport
from nanstats.parquet.upgrading.source_guard import SourceGuard
from nanstats.parquet.upgrading.writer import (
    Writer,
    new_file,
    output_mode,
    remove_stale_temporaries,
    same_file,
)

ProgressCallback = Callable[[int, int], Any]


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


def upgrade(src: Target, dst: Target,
            order: ColumnOrderName = "ieee754", *, policy: TypeOrderPolicy = "safe",
            progress: Any = None, truncate: int | None = None,
            memory_map: bool = True, filesystem: Any = None) -> UpgradeReport:
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

    ``src`` must hold still while it is upgraded (replacing it by a rename
    is fine): on Linux the upgrade holds a read lease on it, so that a
    process opening it for writing or truncating it waits until the upgrade
    stops, and the upgrade then stops at once with SourceChangedError; in
    every case a change of its size, inode, modification or change time
    seen before a row group or before the rename raises SourceChangedError
    (see ``nanstats.parquet.upgrading.source_guard``).  Nothing is written
    to ``dst`` then.

    ``memory_map=True`` (the default, where the platform allows it and the
    lease was granted, so that nobody can truncate the source under the
    mapping) reads ``src`` through a memory map, which saves copying every
    byte twice (see ``nanstats.parquet.source_map``).  ``memory_map=False``
    reads with ``pread``; the output is byte for byte the same.  About two
    row groups of decoded values are held at a time.

    Where the platform lacks a system call the fast path uses (``pread``,
    ``writev``, ``fdatasync``, ``copy_file_range``: macOS, Windows), a
    portable stand-in takes its place, with the same output;
    ``NANSTATS_PORTABLE_IO=1`` forces every stand-in (see
    ``nanstats.parquet.upgrading.io_calls``).

    ``src`` and ``dst`` are local paths or URIs of any filesystem
    (:func:`nanstats.lake.fs.resolve`; with ``filesystem=``, paths on it);
    when either is remote, the upgrade is staged through local temporary
    files and the result uploaded so that ``dst`` appears only complete
    (:mod:`nanstats.parquet.upgrading.remote`).

    Raises UnsupportedParquetError for encrypted files, ParquetFormatError
    for corrupt ones, SourceChangedError for a source changed during the
    run, ValueError when ``src`` and ``dst`` are the same file.
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
    src_at, dst_at = resolve(src, filesystem), resolve(dst, filesystem)
    if not (src_at.is_local and dst_at.is_local):
        return upgrade_staged(src_at, dst_at, lambda s, d: upgrade(
            s, d, order, policy=policy, progress=progress, truncate=truncate,
            memory_map=memory_map))
    src, dst = src_at.path, dst_at.path
    if same_file(src, dst):
        raise ValueError(f"upgrade writes a new file: src and dst are the same file ({src!r})")
    # Temporaries of killed earlier upgrades into this folder (where the
    # platform has no unnamed files): removed, and said so in the report.
    notes = remove_stale_temporaries(os.path.dirname(os.path.abspath(dst)))
    report = _upgrade_with(src, dst, _Settings(order, policy, truncate), progress, memory_map,
                           io_calls())
    return dataclasses.replace(report, notes=report.notes + tuple(notes)) if notes else report


def _upgrade_with(src: str, dst: str, settings: _Settings, progress: Any, memory_map: bool,
                  calls: IOCalls) -> UpgradeReport:
    """The upgrade itself, through the system calls ``calls``."""
    with new_file(dst, calls, output_mode(src, dst)) as fd, open(src, "rb") as f:
        guard = SourceGuard(src, f.fileno())
        # Only a leased source is mapped: nobody can truncate it under the map.
        source = map_source(src, guard.check) \
            if memory_map and calls.memory_map and guard.leased else None
        w = Writer(fd, calls.open_reader(src, f.fileno()), source, calls)
        try:
            report = _rewrite(f, src, w, dst, settings, progress, source, guard)
            w.flush()
            guard.check()  # every byte is copied: the source held still until now
        finally:
            try:
                w.wait_for_writeback()
            finally:
                w.close()
                if source is not None:
                    source.close()
    return report


@dataclass(frozen=True)
class _Settings:
    """What the caller asked for."""

    order: ColumnOrderName
    policy: TypeOrderPolicy
    truncate: int | None


class _Preparer:
    """Prepares row groups ahead of the writer, on two worker threads.

    One thread (``decoder``) has pyarrow decode the columns to rewrite
    (without the GIL); the other (``planner``) walks the page headers (with
    it), then runs the kernels and the rules on the decoded values and
    starts decoding the next row group.  Only the planner touches ``f``
    until it is done; ``decodes`` (row group -> its decoding, started
    ahead) is touched by the planner only.
    """

    def __init__(self, f: IO[bytes], footer: Footer, source: SourceMap | None,
                 guard: SourceGuard, parquet_file: Any, floats: list[int], strings: list[int],
                 settings: _Settings) -> None:
        self.f, self.footer, self.source, self.guard = f, footer, source, guard
        self.parquet_file = parquet_file
        self.floats, self.strings = floats, strings
        self.settings = settings
        self.num_row_groups = footer.num_row_groups
        self.decodes: dict[int, Future[tuple[dict[int, Any], dict[int, Any]]] | None] = {}
        self.planner = ThreadPoolExecutor(1, thread_name_prefix="nanstats-prepare")
        self.decoder = ThreadPoolExecutor(1, thread_name_prefix="nanstats-decode")

    def submit(self, g: int) -> Future[list[Chunk]]:
        """Start preparing row group g."""
        return self.planner.submit(self._prepare, g)

    def close(self) -> None:
        """Stop both threads (a decode left running when a walk failed included)."""
        self.planner.shutdown(cancel_futures=True)
        self.decoder.shutdown()

    def _decode(self, g: int) -> tuple[dict[int, Any], dict[int, Any]]:
        """pyarrow's values of row group g: the float leaves, the string leaves."""
        return (leaf_arrays(self.parquet_file, self.footer, g, self.floats) if self.floats
                else {},
                string_leaf_arrays(self.parquet_file, self.footer, g, self.strings)
                if self.strings else {})

    def _start_decoding(self, g: int) -> Future[tuple[dict[int, Any], dict[int, Any]]] | None:
        self.guard.check()  # no decoding of a source that is changing (or being truncated)
        if self.source is not None:
            # Mapped now, for pyarrow's decoding and the writer's copy.
            for leaf in self.footer.columns:
                self.source.populate(*chunk_range(self.footer, g, leaf.index))
        return self.decoder.submit(self._decode, g) if self.floats or self.strings else None

    def _prepare(self, g: int) -> list[Chunk]:
        """Walk the pages of row group g, decode the columns to rewrite, compute what
        to write for them (float statistics by the kernels, truncated string bounds)."""
        # pyarrow decodes (without the GIL) while this thread walks the page
        # headers (with it), and goes on with the next row group while the
        # kernels and the rules run on this one.
        footer, s = self.footer, self.settings
        decoded = self.decodes.pop(g) if g in self.decodes else self._start_decoding(g)
        chunks = [read_chunk(self.f, footer, g, leaf, self.source) for leaf in footer.columns]
        floats, texts = decoded.result() if decoded is not None else ({}, {})
        if g + 1 < self.num_row_groups:
            self.decodes[g + 1] = self._start_decoding(g + 1)
        for leaf in self.floats:
            ch = chunks[leaf]
            cs = stats_for_array(floats.pop(leaf), ch.pages, ch.oi, path=footer.path,
                                 where=f"row group {g}, column {ch.leaf.name!r}")
            ch.stats = float_statistics(cs, ch.pages, ch.ci, s.order, s.policy)
        if self.strings:
            assert s.truncate is not None
            for leaf in self.strings:
                ch = chunks[leaf]
                ss = string_stats_for_array(texts.pop(leaf), ch.pages, ch.oi, s.truncate,
                                            path=footer.path,
                                            where=f"row group {g}, column {ch.leaf.name!r}")
                ch.stats = string_statistics(ss, ch.pages, ch.ci)
        return chunks


def _rewrite(f: IO[bytes], src: str, w: Writer, dst: str, settings: _Settings,
             progress: Any, source: SourceMap | None, guard: SourceGuard) -> UpgradeReport:
    footer = read_footer(f)
    refuse_encrypted(footer, "nanstats does not rewrite encrypted files")
    refuse_external_chunks(footer)
    meta = footer.metadata
    report_progress = _progress_callback(progress, footer.file_size)
    floats = [c.index for c in footer.columns
              if c.float_type is not None and c.max_repetition_level == 0]
    strings = [] if settings.truncate is None else \
        [c.index for c in footer.columns if is_string_leaf(footer, c)]
    parquet_file = open_parquet_file(src, None if source is None else source.file) \
        if floats or strings else None
    w.write(MAGIC)
    totals = {c.index: ColumnTotals() for c in footer.columns}
    new_row_groups = []
    all_chunks: list[list[Chunk]] = []
    done = 0
    row_groups = meta.row_groups or []
    # A worker prepares row groups g + 1 and g + 2 (pyarrow and the kernels
    # release the GIL) while this thread writes row group g (the kernel
    # copies the pages).
    preparer = _Preparer(f, footer, source, guard, parquet_file, floats, strings, settings)
    try:
        # Two row groups ahead, so that the worker never waits for the writer.
        pending = deque(preparer.submit(g) for g in range(min(2, len(row_groups))))
        for g, rg in enumerate(row_groups):
            chunks = pending.popleft().result()
            guard.check()  # what was decoded is what is about to be copied
            if g + 2 < len(row_groups):
                pending.append(preparer.submit(g + 2))
            for ch in chunks:
                layout.write_chunk(w, ch)
                totals[ch.leaf.index].add(ch)
                done += ch.length
                if report_progress is not None:
                    report_progress(done, footer.file_size)
            new_row_groups.append(layout.new_row_group(rg, chunks))
            all_chunks.append(chunks)
            w.start_writeback()
            if source is not None:  # written: keep the mapping from growing
                for ch in chunks:
                    source.release(ch.start, ch.length)
    finally:
        preparer.close()
        if parquet_file is not None:
            parquet_file.close()
    blooms = layout.write_bloom_filters(w, f, footer, all_chunks, source)
    layout.write_page_indexes(w, all_chunks)
    new_meta = copy.copy(meta)
    new_meta.row_groups = new_row_groups
    new_meta.column_orders = column_orders(meta.column_orders, len(footer.columns), floats,
                                           settings.order)
    raw = layout.encode_rewritten(new_meta, footer.path, "the new footer")
    w.write(raw)
    w.write(len(raw).to_bytes(4, "little") + MAGIC)
    if report_progress is not None:
        report_progress(footer.file_size, footer.file_size)
    columns = tuple(totals[c.index].summary(c, len(all_chunks), c.index in floats,
                                            settings.truncate if c.index in strings else None)
                    for c in footer.columns)
    return UpgradeReport(src, dst, settings.order, settings.policy, columns, len(all_chunks),
                         footer.file_size, w.pos, blooms, (), settings.truncate)
