"""nanstats.spark.summary against Spark's own min/max/count, side by side.

Writes a Parquet dataset of ``--rows`` rows and 4 double columns (NaNs of
both signs, nulls), then times, on the same local session:

* Spark: ``df.agg(min, max, count, count(isnan))`` per column (it orders NaN
  above +inf and equates -0.0 with +0.0, so it is a speed reference only);
* nanstats: ``nanstats.spark.summary(df)`` (exact counts by NaN sign and
  total-order bounds).

Usage: python benchmarks/spark_stats.py [--rows 20000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def write_dataset(path: str, rows: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    chunk = 2_000_000
    writer = None
    for start in range(0, rows, chunk):
        n = min(chunk, rows - start)
        cols = {}
        for c in range(4):
            v = rng.normal(size=n)
            v[rng.random(n) < 0.01] = np.nan
            v[rng.random(n) < 0.005] = -np.nan
            cols[f"x{c}"] = pa.array(v, mask=rng.random(n) < 0.05)
        table = pa.table(cols)
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table, row_group_size=1_000_000)
    assert writer is not None
    writer.close()


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import warnings

    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    from pyspark.sql import functions as F

    import nanstats.spark
    from nanstats.spark.session import local_session

    spark = local_session()
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "data.parquet")
        write_dataset(path, args.rows)
        df = spark.read.parquet(path)
        names = df.columns
        aggs = []
        for c in names:
            aggs += [F.min(c), F.max(c), F.count(c), F.count(F.when(F.isnan(c), 1))]
        t_spark = best(lambda: df.agg(*aggs).collect(), args.repeat)
        t_ns = best(lambda: nanstats.spark.summary(df).collect(), args.repeat)
    print(f"{args.rows:,} rows x {len(names)} double columns, local[2]")
    print(f"  Spark min/max/count/isnan : {t_spark:8.2f} s")
    print(f"  nanstats.spark.summary    : {t_ns:8.2f} s")
    print(f"  ratio nanstats / Spark    : {t_ns / t_spark:8.2f}  (goal <= 1.5)")
    spark.stop()


if __name__ == "__main__":
    main()
