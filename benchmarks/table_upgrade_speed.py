"""upgrade_table of a small Delta Lake and Iceberg table against upgrading the same files alone.

Writes a table of ``--files`` appends of ``--rows`` rows (an int partition
key, a float64 and a float32 column with NaNs) with ``deltalake`` and with
``pyiceberg`` (SQLite catalog), then times in the same run, interleaved, best
of ``--repeat`` (each run on a fresh copy of the tables, made untimed):

* ``delta table``: ``nanstats.parquet.upgrade_table(folder)`` (every live
  file upgraded beside itself, then the commit through deltalake);
* ``iceberg table``: the same through the table's catalog;
* ``files only``: ``nanstats.parquet.upgrade`` of the same live files to
  new files, no table: what the commit adds is the difference.

Usage: python benchmarks/table_upgrade_speed.py [--files 8] [--rows 100000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from typing import Any

import numpy as np
import pyarrow as pa
from bench_support.timing import best_interleaved


def _parts(files: int, rows: int) -> list[pa.Table]:
    rng = np.random.default_rng(0)
    out = []
    for i in range(files):
        x = rng.standard_normal(rows)
        x[::97] = np.nan
        out.append(pa.table({"k": np.full(rows, i % 4, np.int32), "x": x,
                             "y": x.astype(np.float32)}))
    return out


def main() -> None:
    from deltalake import DeltaTable, write_deltalake
    from pyiceberg.catalog.sql import SqlCatalog

    from nanstats.lake.tables import iceberg_table
    from nanstats.parquet import upgrade, upgrade_table

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--files", type=int, default=8)
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    parts = _parts(args.files, args.rows)
    base = tempfile.mkdtemp(prefix="nanstats-bench-tables-")
    state: dict[str, Any] = {}

    def setup() -> None:
        where = tempfile.mkdtemp(dir=base)
        delta = os.path.join(where, "delta")
        for part in parts:
            write_deltalake(delta, part, partition_by=["k"], mode="append")
        catalog = SqlCatalog("bench", uri=f"sqlite:///{where}/c.db",
                             warehouse=f"file://{where}/iceberg")
        catalog.create_namespace("n")
        table = catalog.create_table("n.t", schema=parts[0].schema)
        for part in parts:
            table.append(part)
        state.update(where=where, delta=delta, catalog=catalog,
                     files=DeltaTable(delta).file_uris())

    def files_only() -> None:
        for i, path in enumerate(state["files"]):
            upgrade(path, os.path.join(state["where"], f"alone-{i}.parquet"))

    try:
        times = best_interleaved(
            [lambda: upgrade_table(state["delta"]),
             lambda: upgrade_table(iceberg_table(state["catalog"], "n.t")),
             files_only], args.repeat, setup)
    finally:
        shutil.rmtree(base)
    size = sum(p.nbytes for p in parts)
    print(f"{args.files} files x {args.rows:,} rows ({size / 1e6:.1f} MB in memory), "
          f"best of {args.repeat}, interleaved")
    for name, t in zip(("delta table", "iceberg table", "files only"), times, strict=True):
        print(f"  {name:14s} {t * 1000:8.1f} ms  ({t / times[2]:.2f}x files only)")


if __name__ == "__main__":
    main()
