"""nanstats.parquet.upgrading against pyarrow.parquet.read_table, side by side.

Writes a Parquet file of about ``--mb`` megabytes with 8 float64 columns
(NaNs of both signs, nulls; pyarrow defaults: dictionary falling back to
plain, snappy, 1 MiB pages), then times in the same run, best of
``--repeat``:

* ``read_table``: ``pyarrow.parquet.read_table(path, columns=the 8 floats)``
  (decoding only: what any reader of the data pays);
* ``upgrade``: ``nanstats.parquet.upgrade(path, dst)`` (decode with pyarrow,
  one kernel pass per column, copy every page, write the new metadata,
  fsync and rename), reading the source through a memory map (the default);
* ``upgrade, pread``: the same with ``memory_map=False`` (the fallback where
  the platform cannot populate a mapping);
* ``write floor``: writing as many bytes from memory to a new file and
  fsyncing it, what any durable rewrite of the file pays on this disk.

The issue's target: upgrade <= 1.5x read_table.  Prints one line per
measurement and the ratios; ``--json`` prints them as JSON.

Usage: python benchmarks/upgrade_speed.py [--mb 200] [--repeat 3] [--dir DIR] [--json]
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
from bench_support.timing import best

COLUMNS = 8
BYTES_PER_ROW = COLUMNS * 8


def write_file(path: str, mb: float, seed: int = 0) -> int:
    rng = np.random.default_rng(seed)
    rows = int(mb * 1e6 / BYTES_PER_ROW)
    chunk = 1 << 20
    with papq.ParquetWriter(path, pa.schema([(f"x{c}", pa.float64())
                                            for c in range(COLUMNS)])) as writer:
        for start in range(0, rows, chunk):
            n = min(chunk, rows - start)
            cols = {}
            for c in range(COLUMNS):
                v = rng.normal(size=n)
                v[rng.random(n) < 0.01] = np.nan
                v[rng.random(n) < 0.005] = -np.nan
                cols[f"x{c}"] = pa.array(v, mask=rng.random(n) < 0.05)
            writer.write_table(pa.table(cols))
    return rows


def write_and_fsync(path: str, size: int, block: bytes) -> None:
    """Write ``block`` over and over until ``size`` bytes, then fsync: the write floor."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        for _ in range(0, size, len(block)):
            os.write(fd, block)
        os.fsync(fd)
    finally:
        os.close(fd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=200.0, help="size of the data (MB)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", default=None,
                        help="where to write the files (default: a temp dir)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from nanstats.parquet.upgrading import upgrade

    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        src, dst = os.path.join(d, "src.parquet"), os.path.join(d, "dst.parquet")
        rows = write_file(src, args.mb)
        size = os.path.getsize(src)
        names = [f"x{c}" for c in range(COLUMNS)]
        papq.read_table(src, columns=names)  # warm the page cache for both
        t_read = best(lambda: papq.read_table(src, columns=names), args.repeat)
        # dst is removed before each run, untimed: freeing the blocks of a
        # replaced file is the file system's work, not the upgrade's.
        def remove_dst() -> None:
            if os.path.exists(dst):
                os.unlink(dst)
            os.sync()

        t_upgrade = best(lambda: upgrade(src, dst), args.repeat, remove_dst)
        t_pread = best(lambda: upgrade(src, dst, memory_map=False), args.repeat, remove_dst)
        t_read_again = best(lambda: papq.read_table(src, columns=names), args.repeat)
        t_read = min(t_read, t_read_again)
        floor_path = os.path.join(d, "floor.bin")
        block = os.urandom(1 << 24)

        def remove_floor() -> None:
            if os.path.exists(floor_path):
                os.unlink(floor_path)
            os.sync()

        t_floor = best(lambda: write_and_fsync(floor_path, size, block), args.repeat,
                       remove_floor)
        result = {
            "rows": rows,
            "columns": COLUMNS,
            "file_mb": round(size / 1e6, 1),
            "row_groups": papq.ParquetFile(src).num_row_groups,
            "cpus": os.cpu_count(),
            "read_table_s": round(t_read, 4),
            "upgrade_s": round(t_upgrade, 4),
            "ratio": round(t_upgrade / t_read, 3),
            "upgrade_pread_s": round(t_pread, 4),
            "pread_ratio": round(t_pread / t_read, 3),
            "write_floor_s": round(t_floor, 4),
            "floor_ratio": round(t_floor / t_read, 3),
            "target_ratio": 1.5,
        }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"file: {result['file_mb']} MB, {rows} rows x {COLUMNS} float64 columns, "
              f"{result['row_groups']} row groups, {result['cpus']} CPUs")
        print(f"pyarrow.parquet.read_table: {t_read * 1e3:8.1f} ms  (best of {args.repeat})")
        print(f"nanstats upgrade:           {t_upgrade * 1e3:8.1f} ms  (best of {args.repeat})")
        print(f"  ... memory_map=False:     {t_pread * 1e3:8.1f} ms  (best of {args.repeat}; "
              f"{t_pread / t_read:.2f}x read_table)")
        print(f"write + fsync, same bytes:  {t_floor * 1e3:8.1f} ms  (best of {args.repeat}; "
              "the floor of any durable rewrite)")
        print(f"ratio upgrade/read_table:   {result['ratio']:.2f}  (target <= 1.5; "
              f"the write floor alone is {result['floor_ratio']:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
