"""nanstats.spark.summary against Spark's own aggregation, same data, same run.

Writes a Parquet dataset of ``--rows`` rows: a long group key (``--groups``
values), an int key, and 4 double columns (NaNs of both signs, nulls), then
times on one session, the runs interleaved and the best of ``--repeat``
kept (the machine is shared: interleaving lets drift hit every contender
alike):

* ``summary(df, by=key)`` against ``df.groupBy(key).agg(min, max, count,
  count(isnan))`` of every column, for the long and the int key;
* ``summary(df)`` (files read by pyarrow on the executors) and
  ``summary(df, read_files=False)`` (rows through Spark) against
  ``df.agg(...)`` of the same expressions.

Spark orders NaN above +inf and equates -0.0 with +0.0, so its numbers are a
speed reference only; nanstats gives counts by NaN sign and total-order
bounds.  The goal is a ratio of at most 1.5.

Usage: python benchmarks/spark_summary.py [--rows 8000000] [--groups 100]
       [--repeat 3] [--master local[2]]
``--master spark://host:port`` measures on a standalone cluster (nanstats
installed on its executors, see docs/spark.rst; the data folder must be
readable there: ``--data`` names one).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from bench_support.timing import best_interleaved

COLUMNS = 4


def write_dataset(folder: str, rows: int, groups: int, seed: int = 0,
                  rows_per_file: int = 2_000_000) -> None:
    """Files of up to ``rows_per_file`` rows, row groups of 500,000 rows."""
    rng = np.random.default_rng(seed)
    os.makedirs(folder, exist_ok=True)
    for part, start in enumerate(range(0, rows, rows_per_file)):
        n = min(rows_per_file, rows - start)
        key = rng.integers(0, groups, n)
        cols: dict[str, Any] = {"key": key, "ikey": key.astype(np.int32)}
        for c in range(COLUMNS):
            v = rng.normal(size=n)
            v[rng.random(n) < 0.01] = np.nan
            v[rng.random(n) < 0.005] = -np.nan
            cols[f"x{c}"] = pa.array(v, mask=rng.random(n) < 0.05)
        pq.write_table(pa.table(cols), os.path.join(folder, f"part-{part}.parquet"),
                       row_group_size=500_000)


def spark_aggregates(names: list[str]) -> list[Any]:
    """Spark's nearest: min, max, count and NaN count of every column."""
    from pyspark.sql import functions as F

    out = []
    for c in names:
        out += [F.min(c), F.max(c), F.count(c), F.count(F.when(F.isnan(c), 1))]
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=8_000_000)
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--data", help="folder for the dataset (default: a temporary one)")
    args = parser.parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import warnings

    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")

    import nanstats.spark
    from nanstats.spark.session import local_session

    spark = local_session(args.master, "nanstats-bench")
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as tmp:
        path = args.data or os.path.join(tmp, "data")
        write_dataset(path, args.rows, args.groups)
        df = spark.read.parquet(path)
        names = [f"x{c}" for c in range(COLUMNS)]
        aggs = spark_aggregates(names)
        runs = {
            "Spark groupBy(key).agg": lambda: df.groupBy("key").agg(*aggs).collect(),
            "summary(by=key)": lambda: nanstats.spark.summary(df, names, by="key").collect(),
            "Spark groupBy(ikey).agg": lambda: df.groupBy("ikey").agg(*aggs).collect(),
            "summary(by=ikey)": lambda: nanstats.spark.summary(df, names, by="ikey").collect(),
            "Spark agg": lambda: df.agg(*aggs).collect(),
            "summary (files)": lambda: nanstats.spark.summary(df, names).collect(),
            "summary (rows)": lambda: nanstats.spark.summary(df, names,
                                                             read_files=False).collect(),
        }
        for fn in runs.values():  # warm-up: JIT, Python workers, file cache
            fn()
        times = dict(zip(runs, best_interleaved(list(runs.values()), args.repeat),
                         strict=True))
    print(f"{args.rows:,} rows x {COLUMNS} double columns, {args.groups} groups, "
          f"{args.master}, best of {args.repeat} interleaved")
    for name, t in times.items():
        print(f"  {name:26s} {t:8.2f} s")
    pairs = [("summary(by=key)", "Spark groupBy(key).agg"),
             ("summary(by=ikey)", "Spark groupBy(ikey).agg"),
             ("summary (files)", "Spark agg"), ("summary (rows)", "Spark agg")]
    for ours, theirs in pairs:
        print(f"  ratio {ours} / {theirs}: {times[ours] / times[theirs]:.2f}  (goal <= 1.5)")
    spark.stop()


if __name__ == "__main__":
    main()
