"""The system calls an upgrade makes, and portable stand-ins where a platform lacks one.

Linux has every call the fast path uses: ``pread``/``preadv`` (a positional
read that leaves the file position to other threads), ``writev`` (thousands
of pages in one system call), ``copy_file_range`` (large stretches copied
inside the kernel), ``fdatasync`` (the background writeback), ``madvise``
(the memory-mapped source, :mod:`nanstats.parquet.source_map`) and
``O_TMPFILE`` (the new file has no name until it is complete).
macOS lacks ``fdatasync``, ``copy_file_range`` and that ``madvise``, and
needs ``fcntl(F_FULLFSYNC)`` for a flush that survives power loss (its
``fsync`` leaves the data in the drive's cache); Windows lacks all of them
as well as ``pread`` and ``writev``.

:func:`io_calls` chooses per call: the native call where :mod:`os` has it,
else its stand-in -- ``fsync`` for ``fdatasync``, ``seek`` and ``readinto``
on a private handle of the source for ``pread`` (so that the file position
the other threads use is not moved), a loop of ``write`` for ``writev``,
reads and writes for ``copy_file_range``, reads for the memory map, a
named temporary file for ``O_TMPFILE``.  The
bytes written are the same either way.  ``NANSTATS_PORTABLE_IO=1`` (or
``io_calls(portable=True)``) takes every stand-in, whatever the platform
has: on Linux that runs what macOS and Windows run.

>>> calls = io_calls(portable=True)
>>> calls.writev, calls.pread, calls.fdatasync, calls.memory_map
(False, False, False, False)
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "f.bin")
>>> fd = os.open(path, os.O_RDWR | os.O_CREAT | O_BINARY, 0o666)
>>> calls.write_all(fd, [b"0123", memoryview(b"456789")])
>>> calls.sync_file(fd)
>>> reader = calls.open_reader(path, fd)
>>> buffer = memoryview(bytearray(4))
>>> reader.read_into(buffer, 3), bytes(buffer), reader.read(10, 8)
(4, b'3456', b'89')
>>> reader.close(); os.close(fd)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

#: The environment variable that forces the portable stand-ins (``1``).
PORTABLE_IO_ENV = "NANSTATS_PORTABLE_IO"

#: Added to every ``os.open`` flag set: Windows opens descriptors in text mode otherwise.
O_BINARY: int = getattr(os, "O_BINARY", 0)

#: At most this many buffers in one ``writev`` (the POSIX minimum of IOV_MAX).
_IOV_MAX = 1024

try:
    import fcntl

    _F_FULLFSYNC: int | None = getattr(fcntl, "F_FULLFSYNC", None)  # macOS only
except ImportError:  # pragma: no cover - Windows
    _F_FULLFSYNC = None


class SourceReader(Protocol):
    """Positional reads of the source file, whatever the other threads do with it."""

    #: the source's descriptor, as the caller opened it (``copy_file_range`` reads from it).
    fd: int

    def read_into(self, buffer: memoryview, offset: int) -> int:
        """Read up to ``len(buffer)`` bytes from ``offset``; how many were read (0 at the end)."""

    def read(self, length: int, offset: int) -> bytes:
        """Up to ``length`` bytes from ``offset`` (fewer only at the end of the file)."""

    def close(self) -> None:
        """Release what the reader holds (never the descriptor it was given)."""


class _PositionalReader:
    """``preadv``/``pread`` on the caller's descriptor."""

    def __init__(self, fd: int, preadv: bool) -> None:
        self.fd, self.preadv = fd, preadv

    def read_into(self, buffer: memoryview, offset: int) -> int:
        if self.preadv:
            return os.preadv(self.fd, [buffer], offset)
        data = os.pread(self.fd, len(buffer), offset)  # no preadv here: read, then copy in
        buffer[:len(data)] = data
        return len(data)

    def read(self, length: int, offset: int) -> bytes:
        return os.pread(self.fd, length, offset)

    def close(self) -> None:
        pass


class _SeekingReader:
    """``seek`` then ``readinto`` on a handle of its own.

    The upgrade's other threads read the source through their own file
    object; seeking the shared descriptor would move their position, so
    this reader opens the file again.  One thread uses it at a time.
    """

    def __init__(self, path: str, fd: int) -> None:
        self.fd = fd
        self.file = open(path, "rb", buffering=0)  # noqa: SIM115 - closed by close()

    def read_into(self, buffer: memoryview, offset: int) -> int:
        self.file.seek(offset)
        return self.file.readinto(buffer) or 0

    def read(self, length: int, offset: int) -> bytes:
        buffer = memoryview(bytearray(length))
        got = 0
        while got < length:  # an unbuffered read may return less than asked
            n = self.read_into(buffer[got:], offset + got)
            if n == 0:
                break
            got += n
        return bytes(buffer[:got])

    def close(self) -> None:
        self.file.close()


@dataclass(frozen=True)
class IOCalls:
    """Which native calls an upgrade uses; each False field means its stand-in.

    Build it with :func:`io_calls`.  See the module example.
    """

    #: ``os.preadv`` / ``os.pread``; else seek and read on a private handle.
    preadv: bool
    pread: bool
    #: ``os.writev``; else one ``os.write`` per buffer.
    writev: bool
    #: ``os.copy_file_range``; else read and write.
    copy_file_range: bool
    #: ``os.fdatasync`` for the background writeback; else ``os.fsync``.
    fdatasync: bool
    #: the memory-mapped source, where :mod:`nanstats.parquet.source_map` can map it.
    memory_map: bool
    #: ``O_TMPFILE``: the new file unnamed until complete; else a named temporary file.
    unnamed_file: bool = False

    def open_reader(self, path: str, fd: int) -> SourceReader:
        """Positional reads of ``path``, open as ``fd`` (left open by ``close``)."""
        if self.pread:
            return _PositionalReader(fd, self.preadv)
        return _SeekingReader(path, fd)

    def write_all(self, fd: int, buffers: Sequence[Any]) -> None:
        """Write every buffer, in order, resuming after partial writes.

        The buffers are bytes-like objects of bytes (``bytes``, byte
        memoryviews): their ``len`` is their size.
        """
        if not self.writev:
            for buffer in buffers:
                view = memoryview(buffer)
                while view:
                    view = view[os.write(fd, view):]
            return
        # Handed to writev as they are (a memoryview only for the rest of a
        # piece written in part: tens of thousands of pieces per flush), and
        # an index into the list, never list.pop(0), which would be quadratic.
        views = [b for b in buffers if len(b)]
        i = 0
        while i < len(views):
            written = os.writev(fd, views[i:i + _IOV_MAX])
            while written:
                size = len(views[i])
                if written >= size:
                    written -= size
                    i += 1
                else:
                    views[i] = memoryview(views[i])[written:]
                    written = 0

    def sync_data(self, fd: int) -> None:
        """Push the data written so far towards the disk (the background writeback)."""
        if self.fdatasync:
            os.fdatasync(fd)
        else:
            os.fsync(fd)

    @staticmethod
    def sync_file(fd: int) -> None:
        """Make the file durable before it is renamed into place.

        ``F_FULLFSYNC`` on macOS, where ``fsync`` stops at the drive's cache
        (``fsync`` when the file system refuses it); ``fsync`` elsewhere.
        """
        if _F_FULLFSYNC is not None:  # pragma: no cover - macOS
            try:
                fcntl.fcntl(fd, _F_FULLFSYNC)
                return
            except OSError:
                pass
        os.fsync(fd)


def _portable_from_environment() -> bool:
    text = os.environ.get(PORTABLE_IO_ENV, "").strip().lower()
    if text in ("", "0", "false", "no"):
        return False
    if text in ("1", "true", "yes"):
        return True
    raise ValueError(f"{PORTABLE_IO_ENV}={text!r}: expected 1 (the portable calls) or 0")


def io_calls(portable: bool | None = None) -> IOCalls:
    """The calls to use: native where ``os`` has them, unless ``portable``.

    ``portable=None`` reads ``NANSTATS_PORTABLE_IO`` (``1`` forces every
    stand-in).  Raises ValueError for another value of the variable.

    >>> io_calls(portable=False).writev == hasattr(os, "writev")
    True
    """
    if portable is None:
        portable = _portable_from_environment()
    if portable:
        return IOCalls(preadv=False, pread=False, writev=False, copy_file_range=False,
                       fdatasync=False, memory_map=False, unnamed_file=False)
    return IOCalls(preadv=hasattr(os, "preadv"), pread=hasattr(os, "pread"),
                   writev=hasattr(os, "writev"), copy_file_range=hasattr(os, "copy_file_range"),
                   fdatasync=hasattr(os, "fdatasync"), memory_map=True,
                   unnamed_file=hasattr(os, "O_TMPFILE"))


__all__ = ["O_BINARY", "PORTABLE_IO_ENV", "IOCalls", "SourceReader", "io_calls"]
