"""How many threads a kernel pass may use.

One thread reads memory nearly as fast as the machine delivers it, so a
second only pays on large arrays: nanstats splits a scan across threads only
when it covers at least :data:`PARALLEL_MIN_ROWS` values, into parts of whole
64-row groups, and merges the parts exactly.  The default is the number of
CPUs this process may run on; ``NANSTATS_THREADS`` or :func:`set_threads`
change it (``1`` turns threading off).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

#: Scans of fewer values than this run on the calling thread.  Measured on a
#: 2-core AMD EPYC (AVX-512), two threads over one: 0.9-1.06x at 1e7 values,
#: 0.7-1.04x at 3e7, 1.05-1.11x at 1e8; below this they do not pay.
PARALLEL_MIN_ROWS = 50_000_000

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _available_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _from_environment() -> int:
    text = os.environ.get("NANSTATS_THREADS", "").strip()
    if not text:
        return _available_cpus()
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"NANSTATS_THREADS={text!r} is not a whole number") from None
    if n < 1:
        raise ValueError(f"NANSTATS_THREADS={text!r} must be at least 1")
    return n


_threads = _from_environment()


def get_threads() -> int:
    """The number of threads a large scan may use.

    >>> import nanstats
    >>> nanstats.get_threads() >= 1
    True
    """
    return _threads


def set_threads(n: int | None) -> int:
    """Let large scans use ``n`` threads (``None``: one per available CPU).

    Returns the previous setting, so a caller can put it back.

    >>> import nanstats
    >>> before = nanstats.set_threads(1)   # single-threaded from now on
    >>> nanstats.get_threads()
    1
    >>> _ = nanstats.set_threads(before)
    """
    global _threads, _pool
    if n is None:
        n = _available_cpus()
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"threads must be an int or None, not {type(n).__name__}")
    if n < 1:
        raise ValueError(f"threads must be at least 1, got {n}")
    with _lock:
        before, _threads = _threads, n
        if _pool is not None and n != before:
            _pool.shutdown(wait=False)
            _pool = None
    return before


def parts_for(rows: int) -> int:
    """How many parts a scan of ``rows`` values is split into.

    >>> parts_for(1000)
    1
    """
    if _threads < 2 or rows < PARALLEL_MIN_ROWS:
        return 1
    return min(_threads, rows // (PARALLEL_MIN_ROWS // 2))


def pool() -> ThreadPoolExecutor:
    """The shared worker pool (created on first use).

    It has one worker per thread allowed (:func:`~nanstats.get_threads`) and is kept
    until :func:`~nanstats.set_threads` changes that number.

    >>> import nanstats
    >>> from nanstats import threads
    >>> threads.pool() is threads.pool()
    True
    >>> threads.pool()._max_workers == nanstats.get_threads()
    True
    >>> sorted(threads.pool().map(abs, [-2, 1]))
    [1, 2]
    """
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=_threads, thread_name_prefix="nanstats")
        return _pool
