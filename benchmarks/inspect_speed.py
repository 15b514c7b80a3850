"""Time ``nanstats.parquet.inspection`` on a file of many row groups.

    python benchmarks/inspect_speed.py [--row-groups 1000] [--columns 1] [--repeat 5]

Writes a file of ``--row-groups`` row groups (100 rows each, float64
columns, page index on), then prints the best time of inspect and, beside
it, pyarrow's own footer read (``pyarrow.parquet.read_metadata``), which
decodes the footer but not the page index.
"""

from __future__ import annotations

import argparse
import os
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
from bench_support.timing import best

from nanstats.parquet.inspection import inspect


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--row-groups", type=int, default=1000)
    parser.add_argument("--columns", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    rows = 100 * args.row_groups
    rng = np.random.default_rng(0)
    table = pa.table({f"x{i}": rng.normal(size=rows) for i in range(args.columns)})
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "many.parquet")
        papq.write_table(table, path, row_group_size=100, write_page_index=True)

        t_inspect = best(lambda: inspect(path), args.repeat)
        t_meta = best(lambda: papq.read_metadata(path), args.repeat)
    print(f"{args.row_groups} row groups x {args.columns} float64 column(s), page index on")
    print(f"  nanstats inspect (footer + page index): {t_inspect * 1e3:7.1f} ms (goal < 50 ms)")
    print(f"  pyarrow read_metadata (footer only):    {t_meta * 1e3:7.1f} ms")


if __name__ == "__main__":
    main()
