"""nanstats.spark on an object-store lake (the S3 test server): listing on the
driver, files opened on the executors through nanstats.lake.fs.

nanstats' executors read through pyarrow's S3 and need only the standard AWS
variables, which Spark hands its Python workers from
``SparkContext.environment`` (``spark.executorEnv.*``).  Spark's own readers
go through Hadoop's S3A connector: the test session carries it
(``tools/s3a_jars.py``) and ``demo.object_store.connect`` points it at the
server, so reads by nanstats are compared with Spark's own on the same lake.
"""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

import nanstats.spark
from nanstats.parquet.reading import read_table
from nanstats.prune.parser import parse
from nanstats.spark.sql import to_spark_sql


@pytest.fixture
def s3_spark(spark, s3):  # type: ignore[no-untyped-def]
    from demo.object_store import connect

    env = spark.sparkContext.environment
    saved = dict(env)
    env.update(s3.env)
    connect(spark, f"s3a://{s3.bucket}/")
    yield spark
    env.clear()
    env.update(saved)


def _put_lake(s3, rows: int = 20_000) -> dict[str, pa.Table]:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(3)
    tables = {}
    for day in range(2):
        x = rng.normal(20, 5, rows)
        x[rng.random(rows) < 0.02] = np.nan
        table = pa.table({"x": x, "sensor": np.arange(rows, dtype=np.int32) % 4})
        buf = io.BytesIO()
        papq.write_table(table, buf, row_group_size=5000, write_page_index=True,
                         data_page_size=4096)
        key = f"lake/day={day}/part-0.parquet"
        s3.client().put_object(Bucket=s3.bucket, Key=key, Body=buf.getvalue())
        tables[key] = table
    s3.client().put_object(Bucket=s3.bucket, Key="lake/_SUCCESS", Body=b"")
    return tables


def test_index_files_on_s3(s3_spark, s3) -> None:
    tables = _put_lake(s3)
    lake = f"s3://{s3.bucket}/lake"
    index = nanstats.spark.index_files(s3_spark, lake).collect()
    assert sorted({r.path for r in index}) == [f"s3://{s3.bucket}/{k}" for k in sorted(tables)]
    for key, table in tables.items():
        x = table.column("x").to_numpy()
        rows = [r for r in index if r.path.endswith(key)]
        assert sum(r.nan_count for r in rows) == int(np.isnan(x).sum())
        assert sum(r.num_values for r in rows) == len(x)


def test_upgrade_files_on_s3_then_read_table(s3_spark, s3) -> None:
    tables = _put_lake(s3)
    src, dst = f"s3://{s3.bucket}/lake", f"s3://{s3.bucket}/upgraded"
    rows = nanstats.spark.upgrade_files(s3_spark, src, dst).collect()
    assert [r.error for r in rows] == [None, None]
    for key, table in tables.items():
        out = f"s3://{s3.bucket}/upgraded/{key.removeprefix('lake/')}"
        got = read_table(out, "x > 25 or is_nan(x)", semantics="spark")
        x = table.column("x").to_numpy()
        assert got.num_rows == int(((x > 25) | np.isnan(x)).sum())


QUERIES = ("x > 25", "x < 12 or is_nan(x)", "not is_nan(x) and x between 18 and 19",
           "sensor = 2 and x > 20")


@pytest.mark.parametrize("upgraded", [False, True], ids=["legacy", "upgraded"])
def test_read_returns_the_rows_of_sparks_correct_scan_on_s3(s3_spark, s3, upgraded) -> None:
    """nanstats.spark.read on an S3 lake (index and plan from the store, Spark's own
    reader through S3A) returns exactly the rows of Spark's correct scan."""
    spark = s3_spark
    _put_lake(s3)
    lake = f"s3a://{s3.bucket}/lake"
    if upgraded:
        rows = nanstats.spark.upgrade_files(spark, lake, f"s3a://{s3.bucket}/upgraded").collect()
        assert [r.error for r in rows] == [None, None]
        lake = f"s3a://{s3.bucket}/upgraded"
    index = nanstats.spark.index_files(spark, lake)
    previous = spark.conf.get("spark.sql.parquet.filterPushdown")
    try:
        for q in QUERIES:
            spark.conf.set("spark.sql.parquet.filterPushdown", "false")
            full = spark.read.parquet(lake).where(to_spark_sql(parse(q)))
            expected = sorted(repr(tuple(r)) for r in full.collect())  # NaN-safe
            spark.conf.set("spark.sql.parquet.filterPushdown", previous)
            for source, method in ((index, "native"), (None, "native"), (index, "arrow")):
                got = nanstats.spark.read(spark, lake, q, index=source, method=method)
                assert sorted(got.columns) == sorted(full.columns)
                got_rows = sorted(repr(tuple(r)) for r in got.select(*full.columns).collect())
                assert got_rows == expected, (q, source is None, method)
    finally:
        spark.conf.set("spark.sql.parquet.filterPushdown", previous)


def test_summary_from_files_on_s3_equals_spark_rows(s3_spark, s3) -> None:
    """summary() of a DataFrame Spark read from S3: from the files (inputFiles() URIs
    opened on the executors) and from the rows, grouped by a partition key."""
    spark = s3_spark
    tables = _put_lake(s3)
    df = spark.read.parquet(f"s3a://{s3.bucket}/lake")
    fields = ("num_values", "null_count", "nan_count", "min_bits", "max_bits")
    from_files = {(r["day"], r["column"]): tuple(r[f] for f in fields)
                  for r in nanstats.spark.summary(df, by="day").collect()}
    from_rows = {(r["day"], r["column"]): tuple(r[f] for f in fields)
                 for r in nanstats.spark.summary(df, by="day", read_files=False).collect()}
    assert from_files == from_rows
    for key, table in tables.items():
        day = int(key.split("day=")[1].split("/")[0])
        x = table.column("x").to_numpy()
        assert from_files[(day, "x")][:3] == (len(x), 0, int(np.isnan(x).sum()))
