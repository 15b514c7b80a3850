"""Performance figures for the docs, measured at build time on this machine.

Two outputs in ``docs/_generated/``:

* ``compare.csv``: the table of ``benchmarks/compare.py`` (nanstats against the
  read ceiling and the exact numpy, pyarrow and polars compositions of
  ``benchmarks/bench_support/compositions.py``, the per-page job and the faces), at a
  small size so the build stays quick;
* ``throughput.png``: GB/s of input against array size, one panel per float
  type, for :func:`nanstats.summary`, the three compositions and the read
  ceiling (``bench_support.floor.ceiling_reads``: the faster of numpy's
  OR-reduce and the prefetching one, as ``compare.py`` takes it).

Every composition is checked equal to nanstats before it is timed (as
``compare.py`` does).  Timings are the best of a few runs, a fraction of a
second each: figures from a shared build machine, to read as orders of
magnitude and shapes, not as a benchmark result (``make compare`` is that).

    .venv/bin/python docs/scripts/perf_plot.py [--quick]
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import nanstats  # noqa: E402
from nanstats import _kernels  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# The benchmark support lives beside the benchmarks, outside the package.
if str(ROOT / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_support import floor  # noqa: E402
from bench_support.compositions import COMPOSITIONS  # noqa: E402

OUT = ROOT / "docs" / "_generated"
DTYPES = ("float64", "float32", "float16")


def load_compare() -> Any:
    """benchmarks/compare.py as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("compare", ROOT / "benchmarks" / "compare.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def best_of(fn: Callable[[], Any], budget: float = 0.05, most: int = 50) -> float:
    """Best time of at least two runs, more for short ones, within ``budget`` seconds."""
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < 2 or (len(times) < most and time.perf_counter() - start < budget):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def compare_table(compare: Any, size: int) -> None:
    args = argparse.Namespace(size=size, dtype=list(DTYPES), nan_frac=0.01, null_frac=0.05,
                              page_rows=20_000, repeat=3)
    rows = compare.run(args)
    with open(OUT / "compare.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["dtype", "job", "method", "ms", "GB/s", "× nanstats time"])
        for r in rows:
            ratio = r["x slower than nanstats"]
            w.writerow([r["dtype"], r["job"], r["method"], f"{r['ms']:.2f}", f"{r['GB/s']:.2f}",
                        "" if ratio is None else f"{ratio:.2f}"])


def throughput_plot(compare: Any, sizes: list[int]) -> None:
    methods: dict[str, Callable[[np.ndarray, np.ndarray], Any]] = {
        "nanstats": nanstats.summary, **COMPOSITIONS}
    fig, axes = plt.subplots(1, len(DTYPES), figsize=(11, 3.8), sharey=True,
                             layout="constrained")
    for ax, dtype in zip(axes, DTYPES, strict=True):
        curves: dict[str, list[float]] = {m: [] for m in [*methods, "read ceiling"]}
        for size in sizes:
            values, valid = compare.make_column(dtype, size, 0.01, 0.05)
            expected = nanstats.summary(values, valid)
            for name, fn in COMPOSITIONS.items():
                if fn(values, valid) != expected:
                    raise SystemExit(f"{name} disagrees with nanstats on {dtype}")
            for name, fn in methods.items():
                seconds = best_of(lambda fn=fn, v=values, m=valid: fn(v, m))
                curves[name].append(values.nbytes / seconds / 1e9)
            # The ceiling as compare.py takes it: the faster of its read loops.
            seconds = min(best_of(read) for read in floor.ceiling_reads(values))
            curves["read ceiling"].append(values.nbytes / seconds / 1e9)
        for name, gbs in curves.items():
            style = {"lw": 2.5} if name == "nanstats" else {"ls": ":"} if name == "read ceiling" \
                else {"lw": 1.2}
            ax.plot(sizes, gbs, marker="o", ms=3, label=name, **style)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(dtype)
        ax.set_xlabel("values per array")
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("GB/s of input (best of runs)")
    axes[-1].legend(fontsize=8)
    fig.suptitle(f"summary with 1% NaN, 5% nulls; SIMD level {_kernels.simd_level()}",
                 fontsize=10)
    fig.savefig(OUT / "throughput.png", dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    args = parser.parse_args(argv)
    OUT.mkdir(exist_ok=True)
    compare = load_compare()
    if args.quick:
        compare_table(compare, 100_000)
        throughput_plot(compare, [1_000, 100_000])
    else:
        compare_table(compare, 1_000_000)
        throughput_plot(compare, [1_000, 10_000, 100_000, 1_000_000, 4_000_000])


if __name__ == "__main__":
    main()
