"""How much each kind of statistics lets a reader skip, per query and NaN semantics.

The dataset: time-ordered sensor readings (a timestamp, temperature as
float64, pressure as float32, humidity as float16), 2% NaN in bursts of both
signs from failing sensors, bursts long enough to fill some pages, a few
nulls; 64 row groups of 16 pages.  For 12 fixed queries and each of the four
semantics, the share of pages (rows in skipped pages) skipped using

(a) ``legacy``: the statistics pyarrow writes (TYPE_ORDER bounds without NaN,
    no nan_count, a page index only where the chunk has no NaN);
(b) ``spec``: the same file after ``nanstats.parquet.upgrading`` (IEEE 754
    total order, nan_count, a ColumnIndex with nan_counts for every chunk);
(c) ``nanstats``: exact ColumnStats of the same pages, which know NaN signs.

Every plan is checked sound against the exact filter before it is counted.

    python benchmarks/prune_tightness.py [--row-groups 64] [--pages 16] [--page-rows 1024]
        [--rst FILE]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq

from nanstats.core.stats import ColumnStats
from nanstats.metadata.footer import read_footer
from nanstats.parquet.recompute import recompute
from nanstats.parquet.upgrading import upgrade
from nanstats.prune.parquet_source import FileSource
from nanstats.prune.parser import parse
from nanstats.prune.planner import plan
from nanstats.prune.row_filter import filter_mask
from nanstats.prune.semantics import SEMANTICS
from nanstats.prune.sources import LayeredSource, StatsSource

QUERIES = (
    "temp > 30",
    "temp < 0",
    "temp between 20 and 20.5",
    "is_nan(temp)",
    "not is_nan(temp) and temp > 28",
    "temp * 1.8 + 32 > 95",
    "-temp > 5",
    "pressure < 985 or pressure > 1040",
    "humidity >= 99",
    "temp > 25 and pressure < 1000",
    "ts >= 500000 and ts < 520000 and temp > 15",
    "temp != temp",
)
SOURCES = ("legacy", "spec", "nanstats")


def sensor_table(row_groups: int, pages: int, page_rows: int, seed: int = 3) -> pa.Table:
    """Readings with daily cycles, NaN bursts of both signs, some page-long, a few nulls."""
    rng = np.random.default_rng(seed)
    n = row_groups * pages * page_rows
    t = np.arange(n, dtype=np.int64)
    day = 2 * np.pi * t / (pages * page_rows * 4)
    temp = 15 + 10 * np.sin(day) + rng.normal(0, 1.5, n)
    pressure = (1012 + 15 * np.sin(day / 3.1) + rng.normal(0, 3, n)).astype(np.float32)
    humidity = np.clip(60 + 30 * np.cos(day) + rng.normal(0, 4, n), 0, 100).astype(np.float16)
    bits = temp.view(np.uint64)
    nan_rows = 0
    while nan_rows < 0.02 * n:  # 2% NaN in bursts
        length = int(rng.choice([16, 64, 256, page_rows * 2]))
        start = int(rng.integers(0, n - length))
        payload = np.uint64(0x7FF8000000000000 | int(rng.integers(0, 1 << 20)))
        sign = np.uint64(1 << 63) if rng.random() < 0.4 else np.uint64(0)
        bits[start:start + length] = payload | sign
        for col in (pressure, humidity):
            if rng.random() < 0.5:
                col[start:start + length] = np.nan if sign == 0 else -np.nan
        nan_rows += length
    nulls = rng.random(n) < 0.001
    return pa.table({
        "ts": t,
        "temp": pa.array(temp, mask=nulls),
        "pressure": pa.array(pressure),
        "humidity": pa.array(humidity, type=pa.float16()),
    })


def exact_source(path: str) -> StatsSource:
    """ColumnStats of every page of the file's float columns (same page bounds)."""
    footer = read_footer(path)
    pf = papq.ParquetFile(path)
    groups, rows = [], []
    with open(path, "rb") as f:
        for g in range(footer.num_row_groups):
            group = {}
            for leaf in footer.float_columns:
                cs = recompute(pf, footer, f, g, leaf.index)
                stats = [ColumnStats.from_table(cs.pages, i) for i in range(len(cs.pages))]
                group[leaf.name] = (cs.page_starts.tolist(), stats)
            groups.append(group)
            rows.append(footer.metadata.row_groups[g].num_rows)
    return StatsSource(groups, rows)


def measure(row_groups: int, pages: int, page_rows: int, folder: str
            ) -> tuple[dict[tuple[str, str, str], float], dict[str, float]]:
    table = sensor_table(row_groups, pages, page_rows)
    legacy = os.path.join(folder, "legacy.parquet")
    spec = os.path.join(folder, "spec.parquet")
    papq.write_table(table, legacy, row_group_size=pages * page_rows, write_page_index=True,
                     data_page_size=1, write_batch_size=page_rows, use_dictionary=False)
    upgrade(legacy, spec, "ieee754")
    sources = {
        "legacy": FileSource(legacy),
        "spec": FileSource(spec),
        "nanstats": LayeredSource([exact_source(spec), FileSource(spec)]),
    }
    n = table.num_rows
    starts = np.cumsum([0] + [papq.ParquetFile(spec).metadata.row_group(g).num_rows
                              for g in range(row_groups)])
    skipped: dict[tuple[str, str, str], float] = {}
    timing = dict.fromkeys(SOURCES, 0.0)
    for q in QUERIES:
        pred = parse(q)
        for sem in SEMANTICS:
            match = np.flatnonzero(filter_mask(pred, table, sem))
            for name, src in sources.items():
                t0 = time.perf_counter()
                sel = plan(src, pred, sem, detail=False).selection
                timing[name] += time.perf_counter() - t0
                keep = np.zeros(n, dtype=bool)
                for g, ranges in sel.ranges.items():
                    for a, b in ranges:
                        keep[starts[g] + a:starts[g] + b] = True
                if not keep[match].all():
                    raise AssertionError(f"UNSOUND: {q} under {sem} with {name} statistics")
                skipped[q, sem, name] = 1.0 - sel.num_rows / n
    return skipped, timing


def render(skipped: dict[tuple[str, str, str], float], fmt: str = "text") -> str:
    rows = [[q] + [f"{100 * skipped[q, sem, src]:.0f}%" for sem in SEMANTICS for src in SOURCES]
            for q in QUERIES]
    means = ["mean"] + [f"{100 * np.mean([skipped[q, sem, src] for q in QUERIES]):.0f}%"
                        for sem in SEMANTICS for src in SOURCES]
    rows.append(means)
    if fmt == "rst":
        out = [".. list-table:: Share of rows (in skipped pages) skipped",
               "   :header-rows: 2", "", "   * - query"]
        out += [f"     - {sem}" if i == 0 else "     -" for sem in SEMANTICS
                for i in range(len(SOURCES))]
        out.append("   * -")
        out += [f"     - {src}" for _ in SEMANTICS for src in SOURCES]
        for r in rows:
            out.append(f"   * - ``{r[0]}``" if r[0] != "mean" else "   * - **mean**")
            out += [f"     - {c}" for c in r[1:]]
        return "\n".join(out) + "\n"
    width = max(len(q) for q in QUERIES) + 2
    lines = [" " * width + "  ".join(f"{sem:^26}" for sem in SEMANTICS),
             " " * width + "  ".join("  ".join(f"{s:>8}" for s in SOURCES) for _ in SEMANTICS)]
    for r in rows:
        cells = r[1:]
        groups = ["  ".join(f"{c:>8}" for c in cells[i:i + 3]) for i in range(0, len(cells), 3)]
        lines.append(f"{r[0]:<{width}}" + "  ".join(groups))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--row-groups", type=int, default=64)
    ap.add_argument("--pages", type=int, default=16)
    ap.add_argument("--page-rows", type=int, default=1024)
    ap.add_argument("--rst", help="also write the table as reStructuredText to this file")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        skipped, timing = measure(args.row_groups, args.pages, args.page_rows, folder)
    print(f"{args.row_groups} row groups x {args.pages} pages x {args.page_rows} rows; "
          "share of rows in skipped pages (every plan checked sound)")
    print(render(skipped))
    print("planning time per source, all queries and semantics: "
          + ", ".join(f"{k} {v:.2f} s" for k, v in timing.items()))
    if args.rst:
        with open(args.rst, "w") as f:
            f.write(render(skipped, "rst"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
