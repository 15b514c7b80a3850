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

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from bench_support.timing import best


def write_dataset(folder: str, rows: int, seed: int = 0, rows_per_file: int = 4_000_000) -> None:
    """Files of up to ``rows_per_file`` rows, row groups of 1M rows."""
    rng = np.random.default_rng(seed)
    os.makedirs(folder, exist_ok=True)
    chunk = 1_000_000
    writer, written, part = None, 0, 0
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
            writer = pq.ParquetWriter(os.path.join(folder, f"part-{part}.parquet"), table.schema)
        writer.write_table(table, row_group_size=chunk)
        written += n
        if written >= rows_per_file:
            writer.close()
            writer, written, part = None, 0, part + 1
    if writer is not None:
        writer.close()


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
        path = os.path.join(tmp, "data")
        write_dataset(path, args.rows)
        df = spark.read.parquet(path)
        names = df.columns
        aggs = []
        for c in names:
            aggs += [F.min(c), F.max(c), F.count(c), F.count(F.when(F.isnan(c), 1))]
        t_spark = best(lambda: df.agg(*aggs).collect(), args.repeat)
        t_ns = best(lambda: nanstats.spark.summary(df).collect(), args.repeat)
        t_rows = best(lambda: nanstats.spark.summary(df, read_files=False).collect(),
                      args.repeat)
    print(f"{args.rows:,} rows x {len(names)} double columns, local[2]")
    print(f"  Spark min/max/count/isnan : {t_spark:8.2f} s")
    print(f"  nanstats.spark.summary    : {t_ns:8.2f} s  (files read by pyarrow on executors)")
    print(f"  ... through Spark rows    : {t_rows:8.2f} s  (mapInArrow, any DataFrame)")
    print(f"  ratio nanstats / Spark    : {t_ns / t_spark:8.2f}  (goal <= 1.5); rows path "
          f"{t_rows / t_spark:.2f}")
    spark.stop()


if __name__ == "__main__":
    main()
