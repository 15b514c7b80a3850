"""Upgrade cost per page: files of one-value pages, against pyarrow reading them.

Issue 17 item 7: a legal file of tiny pages (tens of thousands of pages per
chunk) must upgrade in time linear in its pages and within 20x of
``pyarrow.parquet.read_table`` on the same file.  For each page count
(1e3, 1e4, 1e5 by default) this writes one float64 column of one value per
page (page index on, no dictionary, no compression), then times in turn
(interleaved, best of ``--repeat``) pyarrow's read and
``nanstats.parquet.upgrade`` (the memory-mapped default), and prints the
microseconds per page of each, their ratio, and how the upgrade's cost per
page at the largest count compares with the smallest (1.0 = flat).

Usage: python benchmarks/upgrade_pages.py [--pages 1000 10000 100000] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
from bench_support.timing import best_interleaved

TARGET_RATIO = 20.0


def write_file(path: str, pages: int) -> None:
    values = np.random.default_rng(0).normal(size=pages)
    papq.write_table(pa.table({"x": values}), path, data_page_size=1, write_batch_size=1,
                     use_dictionary=False, compression="none", write_page_index=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", default=None, help="where to write the files")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from nanstats.parquet.upgrading import upgrade

    rows = []
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        for n in args.pages:
            src, dst = os.path.join(d, f"{n}.parquet"), os.path.join(d, f"{n}-dst.parquet")
            write_file(src, n)
            assert papq.ParquetFile(src).metadata.row_group(0).column(0).num_values == n
            t_read, t_upgrade = best_interleaved(
                [lambda src=src: papq.read_table(src), lambda src=src, dst=dst: upgrade(src, dst)],
                args.repeat)
            rows.append({"pages": n, "read_us_per_page": round(t_read / n * 1e6, 3),
                         "upgrade_us_per_page": round(t_upgrade / n * 1e6, 3),
                         "ratio": round(t_upgrade / t_read, 2)})
    flatness = rows[-1]["upgrade_us_per_page"] / rows[0]["upgrade_us_per_page"]
    result = {"rows": rows, "flatness": round(flatness, 2), "target_ratio": TARGET_RATIO,
              "repeat": args.repeat, "cpus": os.cpu_count()}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"one float64 value per page; best of {args.repeat}, interleaved; "
          f"{os.cpu_count()} CPUs")
    print(f"{'pages':>8}  {'read_table us/page':>18}  {'upgrade us/page':>15}  {'ratio':>6}")
    for r in rows:
        print(f"{r['pages']:>8}  {r['read_us_per_page']:>18.2f}  "
              f"{r['upgrade_us_per_page']:>15.2f}  {r['ratio']:>6.1f}")
    print(f"upgrade cost per page, {rows[-1]['pages']} pages vs {rows[0]['pages']}: "
          f"{flatness:.2f}x (1.0 = linear)")
    worst = max(r["ratio"] for r in rows)
    print(f"worst ratio upgrade/read_table: {worst:.1f} (target <= {TARGET_RATIO:.0f}: "
          f"{'met' if worst <= TARGET_RATIO else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
