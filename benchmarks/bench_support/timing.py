"""Best-of timings for the benchmark scripts and the asv suite.

Shared so that every benchmark measures the same way: the best of a few
runs (the least disturbed by the rest of the machine), optionally with
untimed set-up before each run, or several functions timed in turn so that
drift in the machine's speed affects them alike.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any


def best_interleaved(fns: Sequence[Callable[[], Any]], repeat: int = 3,
                     setup: Callable[[], Any] | None = None,
                     clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """Best time in seconds of each function, the calls taken in turn.

    ``setup`` (untimed) runs before every timed call.  ``clock`` is wall time
    by default; ``time.thread_time`` (the calling thread's CPU time) leaves
    out the time other processes held the core, which on a shared machine is
    most of the noise, but counts only work done on the calling thread.

    >>> a, b = best_interleaved([lambda: sum(range(10)), lambda: sum(range(1000))], 3)
    >>> 0 < a and 0 < b
    True
    """
    times = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            if setup is not None:
                setup()
            start = clock()
            fn()
            times[i] = min(times[i], clock() - start)
    return times


def best(fn: Callable[[], Any], repeat: int = 3, setup: Callable[[], Any] | None = None
         ) -> float:
    """Best time in seconds of ``repeat`` calls of ``fn`` (``setup`` untimed before each).

    >>> best(lambda: sum(range(100)), repeat=2) > 0
    True
    """
    return best_interleaved([fn], repeat, setup)[0]


def block_ratios(fns: Sequence[Callable[[], Any]], blocks: int = 5, repeat: int = 10,
                 clock: Callable[[], float] = time.perf_counter
                 ) -> list[tuple[float, float, float]]:
    """Each function's time over the first's: the median, lowest and highest
    over ``blocks`` blocks, each the best of ``repeat`` calls taken in turn.

    Where one call's time swings by a third from call to call (large arrays
    on a shared VM), the best of one long block still depends on which
    function met the machine's quiet moments; the median over blocks does
    not hang on one block.

    >>> [(med, lo, hi)] = block_ratios([lambda: sum(range(10)), lambda: sum(range(10))], 3, 3)
    >>> 0 < lo <= med <= hi
    True
    """
    ratios = []
    for _ in range(blocks):
        first, *rest = best_interleaved(fns, repeat, clock=clock)
        ratios.append([t / first for t in rest])
    return [(statistics.median(column), min(column), max(column))
            for column in zip(*ratios, strict=True)]
