"""nanstats against numpy, pyarrow and polars doing the same job, in one run.

For each float type it generates one column (default 1e7 values, 1% NaN of
both signs, 5% nulls), checks that every method gives exactly nanstats'
answer, then times each (best of ``--repeat``) and prints GB/s of input and
how many times slower than nanstats each method is.  It also times the read
ceiling (an OR-reduce over the same bytes), nanstats per SIMD level, the
per-page job (``--page-rows``) and the pandas/Arrow faces at the largest size
(their overhead over the raw call).

    python benchmarks/compare.py [--size 1e7] [--dtype float64 ...] [--json out.json]

``--targets`` measures instead what the kernel is held to (``make
compare-targets``): 1e8 values, one thread, with no nulls and with 10% nulls
as an Arrow bitmap, as fractions of the read ceiling (the faster of numpy's
OR-reduce and the same OR-reduce in C with AVX2 and software prefetch,
``bench_support.floor.read_or``: kernels that prefetch read faster than
numpy's loop, so it alone is not what the machine can read); the numpy and polars
compositions as multiples of nanstats' time; the per-page overhead with
20,000- and 1,000-row pages; two threads against one.  Each line says the
target and whether this run met it.  The one-thread kernel passes and the
read ceiling they are held to are timed in the calling thread's CPU time
(``time.thread_time``), which leaves out the time other processes of a
shared machine held the core; the compositions (polars uses threads) and
the two-thread speed-up are timed in wall time.  A page cost is the median
over ``PAGE_BLOCKS`` blocks of interleaved best-of timings, its spread the
lowest and highest block; the same page costs are also shown for the column's
first 2 MB, read from cache, where the loop and not the read bounds them (no
target).  ``[floor]`` rows time loops that do less than any
exact kernel (``bench_support.floor``): the values and a bool mask read
together, and float16's bitmap loops.  Where the first lies below the bool
mask target (float16 reads three bytes a value for two counted: at most 2/3
of the ceiling), a miss prints the floor beside it: ``NO (floor 0.59)``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from bench_support import floor
from bench_support.compositions import COMPOSITIONS, numpy_page_stats
from bench_support.timing import best, best_interleaved, block_ratios

import nanstats
from nanstats import _kernels
from nanstats.core.stats import page_table


def make_column(dtype: str, size: int, nan_frac: float, null_frac: float, seed: int = 0,
                neg_nan_frac: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Normal values with ``nan_frac`` NaN rows (``neg_nan_frac`` of them
    -NaN) and a validity mask with ``null_frac`` nulls."""
    rng = np.random.default_rng(seed)
    values = rng.normal(0, 100, size).astype(dtype)
    nan_rows = rng.random(size) < nan_frac
    values[nan_rows] = np.nan
    values[nan_rows & (rng.random(size) < neg_nan_frac)] = -np.nan
    return values, rng.random(size) >= null_frac


def with_threads(n: int, fn: Callable[[], Any]) -> Callable[[], Any]:
    """``fn`` run with ``n`` kernel threads (the setting put back after)."""
    def run() -> Any:
        before = nanstats.set_threads(n)
        try:
            return fn()
        finally:
            nanstats.set_threads(before)
    return run


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for dtype in args.dtype:
        rows += run_dtype(dtype, args)
    return rows


def run_dtype(dtype: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Check, then time, every method on one column of ``dtype``."""
    import pandas as pd
    import pyarrow as pa

    rows: list[dict[str, Any]] = []
    values, valid = make_column(dtype, args.size, args.nan_frac, args.null_frac)
    gb = values.nbytes / 1e9
    expected = nanstats.summary(values, valid)
    for name, fn in COMPOSITIONS.items():
        if fn(values, valid) != expected:
            sys.exit(f"{name} disagrees with nanstats on {dtype}: refusing to time it")
    starts = np.arange(0, args.size, args.page_rows)
    if numpy_page_stats(values, valid, starts) != nanstats.page_stats(values, valid,
                                                                      page_starts=starts):
        sys.exit(f"numpy per-page composition disagrees with nanstats on {dtype}")

    def record(job: str, method: str, seconds: float, ref: float | None) -> None:
        rows.append({"dtype": dtype, "job": job, "method": method, "ms": seconds * 1e3,
                     "GB/s": gb / seconds, "x slower than nanstats":
                     None if ref is None else seconds / ref})

    t_ns = best(lambda: nanstats.summary(values, valid), args.repeat)
    record("summary", "nanstats", t_ns, t_ns)
    before = _kernels.simd_level()
    for level in _kernels.simd_levels():
        _kernels.set_simd_level(level)
        t = best(lambda: nanstats.summary(values, valid), args.repeat)
        record("summary", f"nanstats [{level}]", t, t_ns)
    _kernels.set_simd_level(before)
    record("summary", "read ceiling",
           min(best(read, args.repeat) for read in floor.ceiling_reads(values)), t_ns)
    for name, fn in COMPOSITIONS.items():
        record("summary", name, best(lambda fn=fn: fn(values, valid), args.repeat), t_ns)

    t_pages = best(lambda: page_table(values, valid, page_starts=starts), args.repeat)
    record(f"pages of {args.page_rows}", "nanstats", t_pages, t_pages)
    record(f"pages of {args.page_rows}", "numpy",
           best(lambda: numpy_page_stats(values, valid, starts), args.repeat), t_pages)

    # The faces: same data, read where users hold it.
    t_plain = best(lambda: nanstats.summary(values), args.repeat)
    record("faces", "nanstats (ndarray, no mask)", t_plain, t_plain)
    series = pd.Series(values, copy=False)
    record("faces", "Series.nanstats", best(lambda: series.nanstats.summary(), args.repeat),
           t_plain)
    arrow = pa.array(values, mask=~valid)
    t_arrow = best(lambda: nanstats.summary(arrow), args.repeat)
    record("faces", "pyarrow.Array", t_arrow, t_ns)
    # Arrow's UDF machinery around the same kernel call.
    import pyarrow.compute as pc

    from nanstats.arrow import FUNCTION_NAMES

    udf = FUNCTION_NAMES[str(arrow.type)]
    record("faces", "pyarrow.Array via compute UDF",
           best(lambda: pc.call_function(udf, [arrow]), args.repeat), t_arrow)
    if dtype != "float16":
        masked = pd.Series(pd.arrays.FloatingArray(values, ~valid))
        record("faces", "masked Float64" if dtype == "float64" else "masked Float32",
               best(lambda: masked.nanstats.summary(), args.repeat), t_ns)
    return rows

#: Fraction of the read ceiling each SIMD level must reach, by dtype (no nulls,
#: and 10% nulls in an Arrow bitmap); the portable level has no such target.
CEILING_TARGET = {"float64": 0.85, "float32": 0.85, "float16": 0.85}
#: The same with a numpy bool mask (one more byte read per value).
BYTES_TARGET = 0.75
#: How many times slower each composition must be, by dtype.
COMPOSITION_TARGET = {"float64": {"numpy": 10.0, "polars": 6.0},
                      "float32": {"numpy": 10.0, "polars": 6.0},
                      "float16": {"numpy": 100.0}}
#: How many times slower the numpy composition must be than the portable level.
PORTABLE_COMPOSITION_TARGET = 5.0
#: Page rows -> the most a page table may cost over one summary of the same data.
PAGE_TARGET = {20_000: 1.03, 1_000: 1.10}
#: Page costs (multiples of one summary) are the median over this many blocks,
#: each the best of ``2 * --repeat`` calls of every function taken in turn; the
#: table's spread is their lowest and highest.  At 1e8 values one call swings
#: 10.4-17.8 ms from call to call on a shared VM (float16 with a bitmap, AMD
#: EPYC Zen 3), and the best of one block of 10 gave pages of 1,000 rows
#: 1.00-1.24 times one summary from run to run (see docs/performance.rst).
PAGE_BLOCKS = 5
#: NaN rows in the float16 rows with few NaNs of both signs (shown, no target).
FEW_NAN_FRAC = 0.001
#: -NaN among the NaNs in the float16 rows whose NaNs are mostly +NaN (shown,
#: no target): np.nan is +NaN, while x86's invalid operations (0/0, inf - inf)
#: give -NaN, so real columns may hold both, one far rarer.
MOSTLY_NEG_FRAC = 0.02
#: Null rows in the float16 rows of a sparse column (shown, no target): a page
#: whose first valid row is a NaN then has no valid value near it, which cost
#: AVX2 a scalar pass over the page until the thirtieth session (see
#: docs/performance.rst).
SPARSE_NULL_FRAC = 0.99
#: Bytes of values in the in-cache page rows (shown, no target): the first
#: values of the same column, read from the last-level cache, so that the page
#: cost is the loop's own and not hidden under the read.  At 1e8 values a page
#: cost depends on whether the run is bound by the read or, in a VM's slow
#: minutes, by the loop; these rows show the second case whatever the minute.
#: (The statistics' 64 bytes a page cost nothing measurable at 1e8: every
#: page's outputs written to one place, or to a ring of 64 pages, left pages
#: of 1,000 rows where they were; see docs/performance.rst.)  They
#: time ``page_table`` as the other rows do, so Python's fixed cost of a call
#: (some 10-20 us, a sixth to an eighth of a call here) is in both and pulls
#: the ratio slightly towards 1: the kernel alone gave float16 with a bitmap
#: 1.13-1.15 where these rows gave 1.12-1.14.
CACHE_BYTES = 2_000_000
#: Calls of every function in each block of the in-cache page rows.
CACHE_REPEAT = 200


def verdict(value: float, target: float | None, higher_is_better: bool = True,
            floor: float | None = None) -> str:
    """Whether ``value`` met ``target``: ``-`` (no target), ``yes`` or ``NO``;
    a ``floor`` measured in the same run (the fraction of the ceiling a loop
    that does less than the kernel reaches) is printed beside a target it
    puts out of reach.

    >>> verdict(0.80, 0.75), verdict(0.70, 0.75), verdict(0.62, 0.75, floor=0.59)
    ('yes', 'NO', 'NO (floor 0.59)')
    >>> verdict(0.70, 0.75, floor=0.80), verdict(1.2, None)
    ('NO', '-')
    """
    if target is None:
        return "-"
    if value >= target if higher_is_better else value <= target:
        return "yes"
    if higher_is_better and floor is not None and floor < target:
        return f"NO (floor {floor:.2f})"
    return "NO"


def run_targets(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The kernel's targets, each measured side by side in this run."""
    import pyarrow as pa

    rows: list[dict[str, Any]] = []

    def check(dtype: str, what: str, value: float, target: float | None,
              higher_is_better: bool = True,
              spread: tuple[float, float] | None = None,
              floor: float | None = None) -> None:
        rows.append({"dtype": dtype, "measure": what, "value": value,
                     "spread": None if spread is None else f"{spread[0]:.2f}-{spread[1]:.2f}",
                     "target": None if target is None else
                     (">= " if higher_is_better else "<= ") + f"{target:g}",
                     "met": verdict(value, target, higher_is_better, floor)})

    def page_ratios(fns: list[Callable[[], Any]]) -> list[tuple[float, float, float]]:
        return block_ratios(fns, PAGE_BLOCKS, 2 * args.repeat, clock=time.thread_time)

    def one(dtype: str) -> None:
        values, valid = make_column(dtype, args.size, args.nan_frac, 0.1)
        arrow = pa.array(values, mask=~valid)
        expected = nanstats.summary(values, valid)
        if nanstats.summary(arrow) != expected:
            sys.exit(f"Arrow input disagrees with the numpy mask on {dtype}")
        gb = values.nbytes / 1e9
        target = CEILING_TARGET[dtype]

        def at_level(level: str, fn: Callable[[], Any]) -> Callable[[], Any]:
            def run() -> Any:
                _kernels.set_simd_level(level)
                return fn()
            return run

        # The ceiling and every kernel pass timed in turn, so that the
        # machine's drift in speed (large on shared VMs) cancels out.
        # The read ceiling: the faster of numpy's OR-reduce and the same with
        # prefetch (C, where AVX2 and a compiler are).
        reads = floor.ceiling_reads(values)
        fns = list(reads)
        # The floor of a kernel with a numpy bool mask: the values and the
        # mask's bytes read together (no kernel reads less), every width.
        mask_floor = floor.available()
        if mask_floor:
            fns.append(lambda: floor.read_or2(values, valid))
        for level in _kernels.simd_levels():
            fns += [at_level(level, lambda: nanstats.summary(values)),
                    at_level(level, lambda: nanstats.summary(arrow)),
                    at_level(level, lambda: nanstats.summary(values, valid))]
        # The floor probes (float16 with an Arrow bitmap, where AVX2 runs):
        # loops doing less than any exact kernel, timed in the same turns.
        probe = dtype == "float16" and floor.available()
        if probe:
            bitmap = np.frombuffer(arrow.buffers()[0], np.uint8)
            fns += [lambda: floor.read2(values, bitmap), lambda: floor.bitmap16(values, bitmap)]
        # Real data's NaNs mostly have one sign (np.nan is +NaN), and where
        # they have both they may be few: float16's loops choose a mode by
        # the NaNs' signs, so these are shown too (no target): +NaN only,
        # and 0.1% NaN of both signs in one summary and in pages of 1,000;
        # and a sparse column (SPARSE_NULL_FRAC).
        pos = dtype == "float16"
        if pos:
            pos_values, pos_valid = make_column(dtype, args.size, args.nan_frac, 0.1,
                                                neg_nan_frac=0.0)
            pos_arrow = pa.array(pos_values, mask=~pos_valid)
            mostly_values, mostly_valid = make_column(dtype, args.size, args.nan_frac, 0.1,
                                                      neg_nan_frac=MOSTLY_NEG_FRAC)
            mostly_arrow = pa.array(mostly_values, mask=~mostly_valid)
            few_values, few_valid = make_column(dtype, args.size, FEW_NAN_FRAC, 0.1)
            few_arrow = pa.array(few_values, mask=~few_valid)
            sparse_values, sparse_valid = make_column(dtype, args.size, args.nan_frac,
                                                      SPARSE_NULL_FRAC)
            sparse_arrow = pa.array(sparse_values, mask=~sparse_valid)
            for level in _kernels.simd_levels():
                fns += [at_level(level, lambda: nanstats.summary(pos_arrow)),
                        at_level(level, lambda: nanstats.summary(few_arrow)),
                        at_level(level, lambda: page_table(few_arrow, page_rows=1_000)),
                        at_level(level, lambda: nanstats.summary(sparse_arrow))]
        # An Arrow slice from row 3, its bitmap from inside a byte (slices,
        # and a file's pages, start at any row): one summary per level.
        sliced = arrow.slice(3)
        for level in _kernels.simd_levels():
            fns.append(at_level(level, lambda: nanstats.summary(sliced)))
        times = best_interleaved(fns, args.repeat, clock=time.thread_time)
        t_sliced = times[-len(_kernels.simd_levels()):]
        times = times[:-len(_kernels.simd_levels())]
        plain, ceiling = times[0], min(times[:len(reads)])
        times = times[len(reads):]
        if mask_floor:
            t_mask_floor, times = times[0], times[1:]
        t_signs: list[float] = []
        if pos:
            t_signs = times[-4 * len(_kernels.simd_levels()):]
            times = times[:-4 * len(_kernels.simd_levels())]
        _kernels.set_simd_level(level_before)
        check(dtype, "read ceiling, GB/s", gb / ceiling, None)
        check(dtype, "read ceiling without prefetch (numpy OR-reduce), GB/s", gb / plain, None)
        if mask_floor:
            check(dtype, "[floor] values and bool mask read (1 more byte a value), fraction of "
                  "ceiling", ceiling / t_mask_floor, None)
        if probe:
            t_read2, t_floor = times[-2:]
            times = times[:-2]
            check(dtype, "[floor] values and bitmap read, min and max, fraction of ceiling",
                  ceiling / t_read2, None)
            check(dtype, "[floor] + bits widened, one blend (Arrow bitmap), fraction of ceiling",
                  ceiling / t_floor, None)
        for i, level in enumerate(_kernels.simd_levels()):
            t_none, t_level_bitmap, t_level_bytes = times[3 * i:3 * i + 3]
            simd = level != "portable"
            check(dtype, f"[{level}] no nulls, fraction of ceiling", ceiling / t_none,
                  target if simd else None)
            check(dtype, f"[{level}] 10% nulls (Arrow bitmap), fraction of ceiling",
                  ceiling / t_level_bitmap, target if simd else None)
            check(dtype, f"[{level}] 10% nulls (numpy bool mask; 1 more byte a value), "
                  "fraction of ceiling", ceiling / t_level_bytes,
                  BYTES_TARGET if simd else None,
                  floor=ceiling / t_mask_floor if mask_floor else None)
        for level, t in zip(_kernels.simd_levels(), t_sliced, strict=True):
            check(dtype, f"[{level}] 10% nulls, an Arrow slice from row 3 (bitmap from inside a "
                  "byte), fraction of ceiling", ceiling / t, None)
        for i, level in enumerate(_kernels.simd_levels() if pos else []):
            t_pos, t_few, t_few_pages, t_sparse = t_signs[4 * i:4 * i + 4]
            check(dtype, f"[{level}] +NaN only, 10% nulls (Arrow bitmap), fraction of ceiling",
                  ceiling / t_pos, None)
            check(dtype, f"[{level}] {FEW_NAN_FRAC:.1%} NaN (both signs), 10% nulls (Arrow "
                  "bitmap), fraction of ceiling", ceiling / t_few, None)
            check(dtype, f"[{level}] {FEW_NAN_FRAC:.1%} NaN (both signs), pages of 1,000 "
                  "(Arrow nulls), fraction of ceiling", ceiling / t_few_pages, None)
            check(dtype, f"[{level}] {SPARSE_NULL_FRAC:.0%} nulls (Arrow bitmap), fraction of "
                  "ceiling", ceiling / t_sparse, None)
        # The compositions are timed in wall time, so nanstats here too.
        t_bytes = best(at_level(level_before, lambda: nanstats.summary(values, valid)),
                       args.repeat)
        t_portable = best(at_level("portable", lambda: nanstats.summary(values, valid)),
                          args.repeat)
        _kernels.set_simd_level(level_before)
        for name, fn in COMPOSITIONS.items():
            if fn(values, valid) != expected:
                sys.exit(f"{name} disagrees with nanstats on {dtype}")
            t = best(lambda fn=fn: fn(values, valid), max(1, args.repeat // 3))
            check(dtype, f"{name} composition, x nanstats time (same mask)", t / t_bytes,
                  COMPOSITION_TARGET[dtype].get(name))
            check(dtype, f"{name} composition, x [portable] time (same mask)", t / t_portable,
                  PORTABLE_COMPOSITION_TARGET if name == "numpy" else None)
        for level in _kernels.simd_levels():
            for label, data in (("no nulls", values), ("Arrow nulls", arrow)):
                fns = [at_level(level, lambda data=data: page_table(data))] + [
                    at_level(level, lambda data=data, r=r: page_table(data, page_rows=r))
                    for r in PAGE_TARGET]
                for (page_rows, limit), (ratio, lo, hi) in zip(PAGE_TARGET.items(),
                                                               page_ratios(fns), strict=True):
                    check(dtype, f"[{level}] pages of {page_rows:,} ({label}), x one summary",
                          ratio, limit if level != "portable" else None,
                          higher_is_better=False, spread=(lo, hi))
        # The same page costs with the values in cache (bound by the loop);
        # wall time, as a call here is too short for the thread clock's
        # resolution on a VM.
        n_cache = CACHE_BYTES // values.itemsize
        cached = (("no nulls", values[:n_cache]), ("Arrow nulls", arrow.slice(0, n_cache)))
        for level in _kernels.simd_levels():
            for label, data in cached:
                [(ratio, lo, hi)] = block_ratios(
                    [at_level(level, lambda data=data: page_table(data)),
                     at_level(level, lambda data=data: page_table(data, page_rows=1_000))],
                    PAGE_BLOCKS, CACHE_REPEAT)
                check(dtype, f"[{level}] in cache ({CACHE_BYTES / 1e6:g} MB): pages of 1,000 "
                      f"({label}), x one summary", ratio, None, higher_is_better=False,
                      spread=(lo, hi))
        if pos:
            for level in _kernels.simd_levels():
                [(ratio, lo, hi)] = page_ratios(
                    [at_level(level, lambda: page_table(pos_arrow)),
                     at_level(level, lambda: page_table(pos_arrow, page_rows=1_000))])
                check(dtype, f"[{level}] +NaN only, pages of 1,000 (Arrow nulls), "
                      "x one summary", ratio, None, higher_is_better=False, spread=(lo, hi))
                [(ratio, lo, hi)] = page_ratios(
                    [at_level(level, lambda: page_table(mostly_arrow)),
                     at_level(level, lambda: page_table(mostly_arrow, page_rows=1_000))])
                check(dtype, f"[{level}] {MOSTLY_NEG_FRAC:.0%} of the NaNs -NaN, pages of 1,000 "
                      "(Arrow nulls), x one summary", ratio, None, higher_is_better=False,
                      spread=(lo, hi))
            del pos_values, pos_valid, pos_arrow, mostly_values, mostly_valid, mostly_arrow
            del few_values, few_valid, few_arrow
            del sparse_values, sparse_valid, sparse_arrow
        if probe:
            # The floor's own pages of 1,000 rows (widen, blend, min, max, the
            # two reductions a page) against its one pass and against the
            # AVX2 kernel's one summary, which the target is a multiple of.
            for what, whole in (("its one pass", lambda: floor.bitmap16(values, bitmap)),
                                ("[avx2] one summary",
                                 at_level("avx2", lambda: page_table(arrow)))):
                [(ratio, lo, hi)] = page_ratios(
                    [whole, lambda: floor.bitmap16(values, bitmap, 1_000)])
                check(dtype, f"[floor] pages of 1,000 (Arrow nulls), x {what}", ratio,
                      None, higher_is_better=False, spread=(lo, hi))
        _kernels.set_simd_level(level_before)
        for label, data in (("no nulls", values), ("Arrow nulls", arrow)):
            one, two = best_interleaved([with_threads(1, lambda data=data: nanstats.summary(data)),
                                         with_threads(2, lambda data=data: nanstats.summary(data))],
                                        args.repeat)
            check(dtype, f"two threads over one, {label} (speed-up)", one / two, None)

    threads_before = nanstats.set_threads(1)
    level_before = _kernels.simd_level()
    try:
        for dtype in args.dtype:
            one(dtype)
    finally:
        _kernels.set_simd_level(level_before)
        nanstats.set_threads(threads_before)
    return rows


def shown(row: dict[str, Any], header: str) -> str:
    """A row's cell as printed: figures to two decimals, or three where two
    would print the value as its target (1.034 against "<= 1.03" reads
    "1.034 | <= 1.03 | NO", not "1.03 | <= 1.03 | NO").

    >>> shown({"value": 1.034, "target": "<= 1.03"}, "value")
    '1.034'
    >>> shown({"value": 0.8712, "target": ">= 0.85"}, "value")
    '0.87'
    """
    v = row[header]
    if v is None:
        return "-"
    if not isinstance(v, float):
        return str(v)
    target = row.get("target") if header == "value" else None
    if target and f"{v:.2f}" == f"{float(target.split()[-1]):.2f}":
        return f"{v:.3f}"
    return f"{v:.2f}"


def print_table(rows: list[dict[str, Any]], plain: bool) -> None:
    headers = list(rows[0]) if rows else []

    try:
        if plain:
            raise ImportError
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        table = Table(*headers, title="nanstats vs exact compositions (best of repeats)")
        for r in rows:
            # Text, not markup: "[avx2]" is a level's name, not a style.
            table.add_row(*(Text(shown(r, h)) for h in headers))
        Console().print(table)
    except ImportError:
        print(" | ".join(headers))
        for r in rows:
            print(" | ".join(shown(r, h) for h in headers))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=lambda s: int(float(s)), default=None,
                        help="values per dtype (default 1e7; 1e8 with --targets)")
    parser.add_argument("--dtype", nargs="+", default=["float64", "float32", "float16"])
    parser.add_argument("--nan-frac", type=float, default=0.01)
    parser.add_argument("--null-frac", type=float, default=0.05)
    parser.add_argument("--page-rows", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--plain", action="store_true", help="plain text, no rich table")
    parser.add_argument("--targets", action="store_true",
                        help="measure the kernel's targets instead (1e8 values, one thread)")
    args = parser.parse_args(argv)
    if args.size is None:
        args.size = 100_000_000 if args.targets else 10_000_000
    if args.targets:
        rows = run_targets(args)
        print(f"{args.size:,} values per dtype, {args.nan_frac:.1%} NaN (both signs), "
              f"10% null where stated; SIMD level {_kernels.simd_level()}; one thread "
              f"unless stated; fractions of the ceiling and page costs in thread CPU time")
        print_table(rows, args.plain)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=1)
        return
    rows = run(args)
    print(f"{args.size:,} values per dtype, {args.nan_frac:.1%} NaN (both signs), "
          f"{args.null_frac:.1%} null; SIMD level {_kernels.simd_level()}")
    print_table(rows, args.plain)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
