"""The source of an upgrade, held still: a read lease where Linux grants one, and its identity.

An upgrade reads every byte of the source twice -- pyarrow decodes the
values the statistics come from, the writer copies the pages -- so a source
rewritten in place during the run would give statistics of other bytes than
those copied, and a source truncated under the memory map would kill the
process with SIGBUS.  :class:`SourceGuard` closes both doors:

* On Linux it takes a read lease on the source (``fcntl(F_SETLEASE,
  F_RDLCK)``).  The kernel grants it only while nobody has the file open for
  writing, and from then on any ``open`` for writing or ``truncate`` of the
  file -- by any process -- waits (up to ``/proc/sys/fs/lease-break-time``
  seconds, 45 by default) until the lease holder lets go.  :meth:`check`
  sees such a writer waiting and raises :class:`SourceChangedError`; the
  upgrade then stops touching the source, removes its temporary file and
  closes the source, and only then does the writer proceed.  So with a lease
  the bytes cannot change during the run, and the memory map (which only a
  leased source gets) cannot lose its pages.  The lease break is announced
  with ``SIGURG``, whose default action is to ignore it; no lease is taken
  when the process handles ``SIGURG`` itself.
* Always, it records the source's device, inode, size, modification and
  change times (``fstat``), and :meth:`check` compares them again (the
  upgrade checks before each row group and just before the rename): a
  source changed in place fails the upgrade instead of succeeding.

The residual risk, stated honestly: without a lease (another OS, a file
system without leases, a file of another owner, a file already open for
writing somewhere), the upgrade reads through ``pread`` (never SIGBUS) and
relies on the ``fstat`` identity, which a file system with coarse timestamps
can miss for a same-size rewrite within one clock tick of the previous
write; with a lease, a writer that waits longer than the lease-break time
(a single row group decoding for more than 45 s) is let through by the
kernel: a truncation let through while that row group is decoded from the
mapping could still end in SIGBUS (a rewrite is caught by the next check).

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "f.bin")
>>> with open(path, "wb") as out:
...     _ = out.write(b"PAR1")
>>> with open(path, "rb") as f:
...     guard = SourceGuard(path, f.fileno(), lease=False)  # leased, our own write would wait
...     guard.check()                  # nothing changed: nothing to say
...     with open(path, "ab") as out:
...         _ = out.write(b"more")
...     guard.check()
Traceback (most recent call last):
...
nanstats.errors.SourceChangedError: ...: the source changed while it was being upgraded (size 4 -> 8, ...)
"""

from __future__ import annotations

import os
import sys
from typing import NamedTuple

from nanstats.errors import SourceChangedError

#: Where Linux keeps how long a lease holder may take to let go (seconds).
_LEASE_BREAK_TIME = "/proc/sys/fs/lease-break-time"
#: A lease is only worth taking if a writer waits at least this long for it.
_MIN_LEASE_BREAK_SECONDS = 5


class _Identity(NamedTuple):
    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int


def _identity(fd: int) -> _Identity:
    st = os.fstat(fd)
    return _Identity(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _lease_break_seconds() -> int:
    try:
        with open(_LEASE_BREAK_TIME) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return 45  # the kernel's default


def _take_lease(fd: int) -> bool:
    """A read lease on ``fd`` (its break announced by SIGURG), or False where none is granted."""
    if not sys.platform.startswith("linux"):
        return False  # pragma: no cover - leases are Linux's
    import fcntl
    import signal

    if signal.getsignal(signal.SIGURG) not in (signal.SIG_DFL, signal.SIG_IGN):
        return False  # the process handles SIGURG: do not send it one
    if _lease_break_seconds() < _MIN_LEASE_BREAK_SECONDS:
        return False  # a writer would not wait long enough to matter
    try:
        # The break signal: SIGURG, ignored by default (SIGIO, the default
        # one, would terminate the process).
        fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
    except OSError:
        # EAGAIN: open for writing somewhere; EACCES: another owner's file;
        # EINVAL: a file system without leases.
        return False
    return True


class SourceGuard:
    """A read lease on the source where one is granted, and the source's identity.

    ``fd`` is the source opened for reading (the lease lives as long as it
    stays open, or until :meth:`release`).  ``leased`` says whether a lease
    was granted.  See the module docstring.
    """

    def __init__(self, path: str, fd: int, *, lease: bool = True) -> None:
        self.path, self.fd = path, fd
        self.leased = lease and _take_lease(fd)
        self._identity = _identity(fd)

    def check(self) -> None:
        """Raise SourceChangedError if a writer waits for the lease or the source changed."""
        if self.leased:
            import fcntl

            if fcntl.fcntl(self.fd, fcntl.F_GETLEASE) != fcntl.F_RDLCK:
                raise SourceChangedError(self.path, "another process opened it for writing or "
                                         "truncated it; it waits until this upgrade stops")
        now = _identity(self.fd)
        if now != self._identity:
            changed = ", ".join(f"{name} {a} -> {b}" for name, a, b in
                                zip(_Identity._fields, self._identity, now, strict=True)
                                if a != b)
            raise SourceChangedError(self.path, changed)

    def release(self) -> None:
        """Let go of the lease (a writer waiting for it proceeds)."""
        if self.leased:
            import fcntl

            self.leased = False
            try:
                fcntl.fcntl(self.fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
            except OSError:  # pragma: no cover - the kernel broke it already
                pass


__all__ = ["SourceGuard"]
