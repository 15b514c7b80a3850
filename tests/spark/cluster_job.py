"""job.py: nanstats on a Spark cluster (docs/spark.rst shows it; test_cluster.py submits it).

Usage: spark-submit ... job.py LAKE OUT

Runs summary (by an int key, from the files and through Spark's rows), the
pandas UDF flavour, index_files, upgrade_files and read on the cluster, and
prints one line ``NANSTATS-REPORT <json>`` with what they returned and where
nanstats was imported from on the driver and on the executors.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator

import pyarrow as pa
from pyspark.sql import SparkSession

import nanstats
import nanstats.spark


def where_nanstats(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """On an executor: the nanstats it imports, its Python, its folder and its threads."""
    import nanstats

    for _ in batches:
        yield pa.RecordBatch.from_pydict({
            "file": [nanstats.__file__], "python": [sys.executable], "cwd": [os.getcwd()],
            "threads": [nanstats.get_threads()]})


def rows(df) -> list[dict]:
    return [r.asDict() for r in df.collect()]


def main(lake: str, out: str) -> None:
    spark = SparkSession.builder.appName("nanstats-cluster").getOrCreate()
    df = spark.read.parquet(lake)
    report = {
        "driver": nanstats.__file__,
        "executors": rows(spark.range(4).repartition(4).mapInArrow(
            where_nanstats, "file string, python string, cwd string, threads long")),
        "summary": rows(nanstats.spark.summary(df, by="sensor")),
        "summary_rows": rows(nanstats.spark.summary(df, by="sensor", read_files=False)),
        "summary_day": rows(nanstats.spark.summary(df, by="day")),
        "summary_site": rows(nanstats.spark.summary(df.select("site", "temp"), by="site")),
        "summary_site_rows": rows(nanstats.spark.summary(df.select("site", "temp"), by="site",
                                                         read_files=False)),
        "pandas_udf": rows(df.groupBy("sensor").agg(*nanstats.spark.summary_columns(
            "temp", ["num_values", "nan_count", "min_bits", "max_bits"]))),
        "index": rows(nanstats.spark.index_files(spark, lake).select(
            "path", "row_group", "page", "column", "num_values", "nan_count")),
        "upgrade": rows(nanstats.spark.upgrade_files(spark, lake, out).select(
            "src", "dst", "columns_upgraded", "nan_count", "error")),
        "read": rows(nanstats.spark.read(spark, lake, "temp > 25").select("sensor", "temp")),
    }
    print("NANSTATS-REPORT " + json.dumps(report, default=str))
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:3])
