"""The file being upgraded, memory-mapped read-only and populated range by range.

:func:`nanstats.parquet.upgrading.upgrade` reads every byte of the source
twice: pyarrow decodes the float columns, and the page payloads are copied
to the new file.  Through one shared mapping neither read copies: pyarrow
decodes straight from the page cache, and ``writev`` copies the payloads
from the mapping into the new file.

A mapping is only fast once its page-table entries exist.  Touching an
unmapped page costs a fault per page (pyarrow decoding a fresh 1 GB mapping
took 1.9 s on the development VM, against 0.4 s populated), and a
``write(2)`` from unmapped pages is slower still, because the kernel's copy
stops and retries at every missing page.  So each range is populated with
``madvise(MADV_POPULATE_READ)`` (Linux 5.14+) just before it is used: one
system call maps a column chunk (60-100 ms a GB here).  After a row group is
written its range is dropped again (``MADV_DONTNEED``, which for a file
mapping only forgets the page-table entries), so the mapping never holds
more than two row groups.

Where any of this is unavailable (another OS, an older kernel, a file that
cannot be mapped), :func:`map_source` returns None and the upgrade reads
with ``pread`` instead.

A mapped file truncated under the mapping kills the reading process with
SIGBUS (``pyarrow.memory_map`` included).  So the upgrade maps only a source
it holds a read lease on (:mod:`nanstats.parquet.upgrading.source_guard`: a
writer or a truncation waits until the upgrade lets go), and ``guard``, the
lease's check, runs before every use of the mapping (:meth:`SourceMap.check`,
called by :meth:`SourceMap.populate` and by the writer before it copies).

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "f.bin")
>>> with open(path, "wb") as f:
...     _ = f.write(b"PAR1" + bytes(10_000) + b"PAR1")
>>> source = map_source(path)
>>> source is None or (source.view[:4].tobytes(), source.size)
(b'PAR1', 10008)
>>> if source is not None:
...     source.populate(4, 8000)
...     source.release(0, source.size)
...     source.close()
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import mmap
import os
import sys
from collections.abc import Callable
from typing import Any

from nanstats.errors import ParquetFormatError

# madvise(2) advice values of Linux (include/uapi/asm-generic/mman-common.h).
_MADV_DONTNEED = 4
_MADV_POPULATE_READ = 22

_madvise: Any = None
if sys.platform.startswith("linux"):  # pragma: no branch
    try:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        _madvise = _libc.madvise
        _madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        _madvise.restype = ctypes.c_int
    except (OSError, AttributeError):  # pragma: no cover - no usable libc
        _madvise = None


class SourceMap:
    """A read-only mapping of a whole file, as a pyarrow file and a memoryview.

    ``file`` is the ``pyarrow.MemoryMappedFile`` (hand it to
    ``pyarrow.parquet.ParquetFile``), ``view`` a memoryview of all ``size``
    bytes.  Build it with :func:`map_source`.  pyarrow owns the mapping:
    buffers that still point into it keep it alive after :meth:`close`.
    """

    def __init__(self, path: str, file: Any, buffer: Any,
                 guard: Callable[[], None] | None = None) -> None:
        self.path = path
        self.guard = guard
        self.file = file
        self._buffer = buffer
        self.view = memoryview(buffer)
        self.size = len(self.view)
        self._address = int(buffer.address)

    def _advise(self, advice: int, start: int, length: int, *, outward: bool) -> int:
        """madvise the pages over bytes ``start``..``start + length``; 0 or an errno."""
        if length <= 0:
            return 0
        page = mmap.PAGESIZE
        lo, hi = self._address + start, self._address + min(start + length, self.size)
        if outward:
            lo, hi = lo - lo % page, hi + (-hi) % page
        else:
            lo, hi = lo + (-lo) % page, hi - hi % page
        if hi <= lo:
            return 0
        if _madvise(lo, hi - lo, advice) == 0:
            return 0
        return ctypes.get_errno() or -1

    def check(self) -> None:
        """Raise (the guard's error) unless the mapping is still safe to read."""
        if self.guard is not None:
            self.guard()

    def populate(self, start: int, length: int) -> None:
        """Map the pages of bytes ``start``..``start + length`` now, in one call.

        Runs :meth:`check` first.  Raises ParquetFormatError when the range
        lies past the end of the file, or past its end now (the file shrank
        while it was being read); OSError when the kernel cannot map the
        pages for another reason (out of memory, say).
        """
        self.check()
        if start < 0 or start + length > self.size:
            raise ParquetFormatError(f"bytes {start}..{start + length} lie past the end of the "
                                     f"file ({self.size} bytes)", path=self.path, offset=start)
        err = self._advise(_MADV_POPULATE_READ, start, length, outward=True)
        if err == errno.EFAULT:  # what reading those bytes would answer with SIGBUS
            raise ParquetFormatError(f"bytes {start}..{start + length} are no longer in the "
                                     "file: was it truncated while being upgraded?",
                                     path=self.path, offset=start)
        if err:
            raise OSError(err if err > 0 else errno.EIO,
                          f"cannot map bytes {start}..{start + length} of the file "
                          f"({os.strerror(err) if err > 0 else 'madvise failed'})", self.path)

    def release(self, start: int, length: int) -> None:
        """Forget the page-table entries of the whole pages inside the range.

        The bytes stay readable (a file mapping faults them back in); this
        only keeps the mapping from growing with the file.
        """
        self._advise(_MADV_DONTNEED, start, length, outward=False)

    def close(self) -> None:
        """Close the pyarrow file; buffers still pointing into it stay valid."""
        self._buffer = None
        self.file.close()


def map_source(path: str, guard: Callable[[], None] | None = None) -> SourceMap | None:
    """A populated-on-demand mapping of ``path``, or None where that is unavailable.

    ``guard`` (see :meth:`SourceMap.check`) raises when the mapping is no
    longer safe to read.  None on platforms without ``madvise(MADV_POPULATE_READ)`` (non-Linux,
    kernels before 5.14), for empty files and for files pyarrow cannot map.
    See the module example.
    """
    if _madvise is None:
        return None  # pragma: no cover - not Linux
    import pyarrow as pa

    try:
        file = pa.memory_map(path)
        size = file.size()
        if size == 0:
            file.close()
            return None
        buffer = file.read_buffer(size)
    except (OSError, pa.ArrowException, ValueError):
        return None
    source = SourceMap(path, file, buffer, guard)
    # Probe: an older kernel answers EINVAL to MADV_POPULATE_READ.
    if source._advise(_MADV_POPULATE_READ, 0, 1, outward=True):
        source.close()
        return None
    return source


__all__ = ["SourceMap", "map_source"]
