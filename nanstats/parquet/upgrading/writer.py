"""The output of an upgrade: a new file written beside ``dst``, batched,
synced and renamed over ``dst`` only when complete.

:func:`new_file` gives the file descriptor of a temporary file in the
directory of ``dst`` and, when its block ends without an error, fsyncs it,
renames it over ``dst`` and fsyncs the directory; on any error the
temporary file is removed and ``dst`` is left as it was.  :class:`Writer`
appends to it: new bytes and copies of source ranges, queued and written
with ``writev``.  Every system call goes through the
:class:`~nanstats.parquet.upgrading.io_calls.IOCalls` given (the native
calls by default; see :mod:`~nanstats.parquet.upgrading.io_calls`).

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> src, dst = os.path.join(d, "src"), os.path.join(d, "dst")
>>> with open(src, "wb") as out:
...     _ = out.write(b"0123456789")
>>> calls = io_calls()
>>> with new_file(dst) as fd, open(src, "rb") as f:
...     w = Writer(fd, calls.open_reader(src, f.fileno()), calls=calls)
...     w.write(b"<"), w.copy(2, 3, src), w.write(b">")
...     w.flush()
...     w.close()
(0, 1, 4)
>>> import pathlib
>>> pathlib.Path(dst).read_bytes(), sorted(os.listdir(d))
(b'<234>', ['dst', 'src'])
"""

from __future__ import annotations

import itertools
import os
import re
import secrets
import socket
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from nanstats._pagewalk import interleave
from nanstats.errors import ParquetFormatError
from nanstats.parquet.source_map import SourceMap
from nanstats.parquet.upgrading.io_calls import O_BINARY, IOCalls, SourceReader, io_calls

_BATCH = 1 << 24  # bytes queued before a write; larger pieces go by copy_file_range
# Source bytes of small pages laid out with their new headers in one buffer
# (Writer.write_pages); a page this large goes as a header and a copy.
_RUN = 1 << 20
_NATIVE = io_calls(portable=False)


def same_file(a: str, b: str) -> bool:
    """Whether two paths name the same file (by path, or by inode when both exist).

    >>> same_file("/tmp/../tmp/x", "/tmp/x")
    True
    """
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def output_mode(src: str, dst: str) -> int:
    """The permission bits an upgrade of ``src`` into ``dst`` gets: the source's,
    and no more than those of a ``dst`` it replaces (a private file stays private).

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> src, old = os.path.join(d, "src"), os.path.join(d, "old")
    >>> for path, mode in ((src, 0o644), (old, 0o600)):
    ...     open(path, "wb").close(); os.chmod(path, mode)
    >>> oct(output_mode(src, os.path.join(d, "new"))), oct(output_mode(src, old))
    ('0o644', '0o600')
    """
    mode = stat.S_IMODE(os.stat(src).st_mode) & 0o777
    try:
        mode &= stat.S_IMODE(os.stat(dst).st_mode)
    except FileNotFoundError:
        pass
    return mode


#: Every temporary file an upgrade names ends so (see :func:`remove_stale_temporaries`).
TEMPORARY_SUFFIX = ".nanstats-tmp"
#: A temporary file of our naming untouched this long is stale, whoever wrote it.
STALE_AFTER_SECONDS = 24 * 3600
# Folders cleaned lately by this process (folder -> time.monotonic()); cleaned
# again after _CLEAN_AGAIN_SECONDS, so that a folder upgrade lists it once,
# not once per file.
_CLEAN_AGAIN_SECONDS = 600.0
_cleaned: dict[str, float] = {}
_cleaned_lock = threading.Lock()


def _host_tag() -> str:
    """This machine's name as it goes into temporary names (letters, digits, dashes)."""
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:40] or "host"


def _temporary_name(directory: str, base: str) -> str:
    """``.<dst>.<host>.<pid>.<random>.nanstats-tmp``: who wrote it is in the name."""
    return os.path.join(directory, f".{base}.{_host_tag()}.{os.getpid()}."
                                   f"{secrets.token_hex(4)}{TEMPORARY_SUFFIX}")


_NAME = re.compile(r"\..+\.(?P<host>[A-Za-z0-9-]+)\.(?P<pid>[0-9]+)\.[0-9a-f]{8}"
                   + re.escape(TEMPORARY_SUFFIX) + "$")


def _process_runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's process, or no such pid range
        return True
    return True


def remove_stale_temporaries(directory: str, *, now: float | None = None,
                             force: bool = False) -> list[str]:
    """Remove the provably stale temporary files of earlier upgrades in ``directory``.

    A temporary file is stale when its name says it was written on this
    machine by a process that no longer runs (a killed upgrade), or when
    nobody has written it for :data:`STALE_AFTER_SECONDS` (24 hours; an
    upgrade writes its temporary file all the time).  Only names of our own
    making (``.<name>.<host>.<pid>.<random>.nanstats-tmp``, or older
    ``.<name>.<random>.nanstats-tmp``) are looked at.  Returns one note per
    file removed (or that could not be).  A folder is looked at once per
    ten minutes per process (``force`` looks anyway).

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> dead = os.path.join(d, f".x.parquet.{_host_tag()}.999999999.0123abcd.nanstats-tmp")
    >>> open(dead, "wb").close()
    >>> [note.split(":")[0] for note in remove_stale_temporaries(d)], os.listdir(d)
    (['removed a stale temporary file'], [])
    """
    directory = os.path.abspath(directory)
    clock = time.monotonic()
    with _cleaned_lock:
        if not force and clock - _cleaned.get(directory, -1e18) < _CLEAN_AGAIN_SECONDS:
            return []
        _cleaned[directory] = clock
    now = time.time() if now is None else now
    notes = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    host = _host_tag()
    for entry in entries:
        name = entry.name
        if not (name.startswith(".") and name.endswith(TEMPORARY_SUFFIX)):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        match = _NAME.match(name)
        why = None
        if match and match["host"] == host and not _process_runs(int(match["pid"])):
            why = f"left by process {match['pid']}, which no longer runs"
        elif now - st.st_mtime > STALE_AFTER_SECONDS:
            why = f"untouched for {(now - st.st_mtime) / 3600:.0f} hours"
        if why is None:
            continue
        try:
            os.unlink(entry.path)
        except FileNotFoundError:
            continue  # another process cleaned it first
        except OSError as exc:
            notes.append(f"could not remove a stale temporary file: {entry.path} ({why}; "
                         f"{exc.strerror})")
            continue
        notes.append(f"removed a stale temporary file: {entry.path} ({why})")
    return notes


@contextmanager
def new_file(dst: str, calls: IOCalls = _NATIVE, mode: int | None = None) -> Iterator[int]:
    """A temporary file beside ``dst`` (its descriptor), renamed over ``dst`` when complete.

    On Linux (``calls.unnamed_file``) the file has no name while it is
    written (``O_TMPFILE``): a crash or a ``kill -9`` leaves nothing behind.  When complete it is
    linked to a temporary name and renamed over ``dst`` at once.  Where
    ``O_TMPFILE`` is unavailable (another OS, a file system without it) it
    is created under a temporary name of our making
    (``.<dst>.<host>.<pid>.<random>.nanstats-tmp``), which a later upgrade
    into the same folder removes if its writer died
    (:func:`remove_stale_temporaries`).

    Created private (``0o600``) so that nobody reads it half-written, and
    given ``mode`` (see :func:`output_mode`) just before the rename (without
    ``mode`` it stays private);
    made durable (``calls.sync_file``) before the rename, the directory
    fsynced after it.  On an error the temporary file is removed and
    ``dst`` untouched.  See the module example.
    """
    directory = os.path.dirname(os.path.abspath(dst))
    base = os.path.basename(dst)
    fd = _open_unnamed(directory) if calls.unnamed_file else None
    tmp = None
    if fd is None:
        fd, tmp = _create_temporary(directory, base)
    try:
        try:
            yield fd
            calls.sync_file(fd)
            if mode is not None and hasattr(os, "fchmod"):  # POSIX permission bits
                os.fchmod(fd, mode)
            if tmp is None:
                tmp = _link_unnamed(fd, directory, base)
        finally:
            os.close(fd)
        os.replace(tmp, dst)
    except BaseException:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        raise
    _fsync_directory(directory)


def _open_unnamed(directory: str) -> int | None:
    """An unnamed file in ``directory`` (``O_TMPFILE``), or None where there is none.

    Linking it later goes through ``/proc/self/fd``: without ``/proc`` it
    is not used either.
    """
    try:
        fd = os.open(directory, os.O_TMPFILE | os.O_WRONLY | O_BINARY, 0o600)
    except OSError:  # EOPNOTSUPP: the file system lacks it; EISDIR: an old kernel
        return None
    if not os.path.exists(f"/proc/self/fd/{fd}"):  # pragma: no cover - no /proc
        os.close(fd)
        return None
    return fd


def _link_unnamed(fd: int, directory: str, base: str) -> str:
    """Give the unnamed file ``fd`` a temporary name in ``directory`` (``linkat``)."""
    # linkat(/proc/self/fd, "<fd>", AT_FDCWD, path, AT_SYMLINK_FOLLOW): os.link
    # calls linkat (which follows the /proc link) only when given a dir fd.
    fds = os.open("/proc/self/fd", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        for _ in range(100):
            path = _temporary_name(directory, base)
            try:
                os.link(str(fd), path, src_dir_fd=fds, follow_symlinks=True)
                return path
            except FileExistsError:  # pragma: no cover - 32 random bits taken
                continue
    finally:
        os.close(fds)
    raise FileExistsError(f"no free temporary name in {directory!r}")  # pragma: no cover


def _create_temporary(directory: str, base: str) -> tuple[int, str]:
    """A new file of a name nobody else has, private, opened for writing (as mkstemp)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_BINARY
    for _ in range(100):
        path = _temporary_name(directory, base)
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:  # pragma: no cover - 32 random bits taken
            continue
    raise FileExistsError(f"no free temporary name in {directory!r}")  # pragma: no cover


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


class Writer:
    """Appends to the output file descriptor and counts the bytes written.

    Writes and copies are queued and written out in batches with ``writev``
    (one system call for thousands of pages instead of one per page): the
    new page headers interleaved with the page payloads, taken straight
    from the memory-mapped source when there is one (``source``, see
    ``nanstats.parquet.source_map``; its ranges are populated by the
    caller), else read a stretch at a time with one ``pread`` (``reader``)
    into a reused buffer.  A piece larger than the batch (a chunk kept as
    it is) is copied by the kernel (``os.copy_file_range``) where the
    platform allows.  Between row groups, :meth:`start_writeback` has a
    background thread ``fdatasync`` what was written so far, so that the
    final ``fsync`` has little left to do.  ``calls`` chooses the system
    calls (:func:`~nanstats.parquet.upgrading.io_calls.io_calls`);
    :meth:`close` closes the reader.
    """

    def __init__(self, fd: int, reader: SourceReader, source: SourceMap | None = None,
                 calls: IOCalls = _NATIVE) -> None:
        self.fd, self.reader = fd, reader
        self.source = source
        self.calls = calls
        self.pos = 0
        self.segments: list[bytes | tuple[int, int, str]] = []
        self.queued = 0
        self.kernel_copy = calls.copy_file_range
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
            n = self.reader.read_into(self._buffer[got:length], offset + got)
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

    def write_pages(self, headers: bytes, header_at: Any, payload_offset: Any,
                    payload_length: Any, path: str) -> None:
        """Append pages: header ``i`` (``headers[header_at[i]:header_at[i + 1]]``),
        then ``payload_length[i]`` source bytes from ``payload_offset[i]``.

        Small pages go out a run at a time: the run's source bytes read once
        (from the map, or with one ``pread``) and laid out with their new
        headers in one buffer; a large page is queued as a header and a copy.
        """
        n = len(payload_offset)
        ends = payload_offset + payload_length
        i = 0
        while i < n:
            lo = int(payload_offset[i])
            if payload_length[i] >= _RUN:
                self.write(headers[header_at[i]:header_at[i + 1]])
                self.copy(lo, int(payload_length[i]), path)
                i += 1
                continue
            j = max(int(np.searchsorted(ends, lo + _RUN, side="right")), i + 1)
            big = np.flatnonzero(payload_length[i:j] >= _RUN)
            if len(big):
                j = i + int(big[0])
            hi = int(ends[j - 1])
            self.write(interleave(headers, header_at, self._source_bytes(lo, hi - lo, path),
                                  lo, payload_offset, payload_length, i, j))
            i = j

    def _source_bytes(self, offset: int, length: int, path: str) -> Any:
        """``length`` source bytes from ``offset``: a slice of the map, or read."""
        if self.source is not None:
            if offset + length > self.source.size:
                raise ParquetFormatError("the file ends inside a page", path=path,
                                         offset=self.source.size)
            view = self.source.view[offset:offset + length]
            return view if view.format == "B" else view.cast("B")
        data = self.reader.read(length, offset)
        if len(data) < length:
            raise ParquetFormatError("the file ends inside a page", path=path,
                                     offset=offset + len(data))
        return data

    def _copy_now(self, offset: int, length: int, path: str) -> None:
        end = offset + length
        while offset < end:
            n = 0
            if self.kernel_copy:
                try:
                    n = os.copy_file_range(self.reader.fd, self.fd, end - offset, offset)
                except OSError:  # another file system, or not supported here
                    self.kernel_copy = False
                    continue
            else:
                data = self.reader.read(min(end - offset, _BATCH), offset)
                n = len(data)
                self._write_all([data])
            if n == 0:
                raise ParquetFormatError("the file ends inside a page", path=path, offset=offset)
            offset += n

    def _write_all(self, iov: list[Any]) -> None:
        """Write every buffer, resuming after partial writes (``writev`` where there is one)."""
        self.calls.write_all(self.fd, iov)

    def flush(self) -> None:
        """Write out everything queued."""
        segs, self.segments, self.queued = self.segments, [], 0
        if self.source is not None:
            self.source.check()
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
        self._sync = self._executor.submit(self.calls.sync_data, self.fd)

    def wait_for_writeback(self) -> None:
        """Wait for the background fdatasync (raising its error) and stop the thread."""
        if self._executor is None:
            return
        try:
            self._sync.result()
        finally:
            self._executor.shutdown()
            self._executor = None

    def close(self) -> None:
        """Close the reader (not the descriptors the writer was given)."""
        self.reader.close()
