"""nanstats.spark on an object-store lake (the S3 test server): listing on the
driver, files opened on the executors through nanstats.lake.fs.

Spark's own readers need the hadoop-aws jars for ``s3a://`` (not shipped with
pyspark); nanstats' executors read through pyarrow's S3 and need only the
standard AWS variables, which Spark hands its Python workers from
``SparkContext.environment`` (``spark.executorEnv.*``).
"""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

import nanstats.spark
from nanstats.parquet.reading import read_table


@pytest.fixture
def s3_spark(spark, s3):  # type: ignore[no-untyped-def]
    env = spark.sparkContext.environment
    saved = dict(env)
    env.update(s3.env)
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
