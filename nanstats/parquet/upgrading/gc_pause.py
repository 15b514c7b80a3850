"""No cyclic garbage collection while an upgrade runs: its cost per page halved.

An upgrade of a file of many small pages builds several Python objects per
page (page headers, statistics, page locations) and keeps them until the
chunk is written.  CPython's cyclic collector runs again and again over
them as they pile up, and that cost more than all the rest of the work per
page (a file of 100,000 one-value pages upgraded in half the time with it
paused; ``benchmarks/upgrade_pages.py``).  None of those objects is part of
a reference cycle, so reference counting frees them all the same.

:func:`collection_paused` disables the collector for the duration of a
block and enables it again afterwards if it was enabled before the first of
the blocks that overlap (upgrades in several threads pause it once between
them).  Cyclic garbage made meanwhile (by another thread, say) is collected
once the collector runs again.

>>> import gc
>>> with collection_paused():
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0
_was_enabled = False


@contextmanager
def collection_paused() -> Iterator[None]:
    """The cyclic garbage collector disabled for the block (see the module example).

    Blocks may overlap (in threads) or nest: the collector is enabled again
    when the last one ends, if it was enabled when the first began.

    >>> import gc
    >>> with collection_paused():
    ...     with collection_paused():
    ...         pass
    ...     gc.isenabled()
    False
    """
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                gc.enable()
