"""plan_scan and read against Spark's own full scan; our nan_greatest is Spark's."""

from __future__ import annotations

import math
import os
import random

import numpy as np
import pyarrow as pa
import pytest

from demo.job import QUERIES as DEMO_QUERIES
from demo.lake import make_lake
from nanstats.parquet.writing import write_table
from nanstats.prune.parser import parse
from nanstats.prune.row_filter import filter_mask
from nanstats.spark import index_files, plan_scan, read, upgrade_files
from nanstats.spark.sql import to_spark_sql
from nanstats.testing.predicate_oracle import random_predicate

QUERIES = [
    "temperature > 27",
    "is_nan(humidity)",
    "voltage < 0 or voltage >= 3.45",
    "pressure between 1025 and 1030 and sensor == 3",
    "not is_nan(temperature) and temperature * 1.8 + 32 < 50",
    "humidity == 100",
]


@pytest.fixture(scope="module")
def lake(spark, tmp_path_factory):
    root = str(tmp_path_factory.mktemp("lake"))
    make_lake(spark, root, rows=60_000, days=2)
    index = index_files(spark, root).toArrow()
    return root, index


@pytest.fixture(scope="module")
def lakes(spark, lake, tmp_path_factory):
    """The legacy lake and its upgraded copy, each with its index."""
    root, index = lake
    upgraded = str(tmp_path_factory.mktemp("upgraded"))
    assert not [r for r in upgrade_files(spark, root, upgraded).collect() if r.error]
    return {"legacy": (root, index), "upgraded": (upgraded, index_files(spark, upgraded).toArrow())}


def _same_rows(ours, full) -> bool:
    return ours.count() == full.count() and ours.exceptAll(full).isEmpty() \
        and full.exceptAll(ours).isEmpty()


@pytest.mark.parametrize("method", ["native", "arrow"])
@pytest.mark.parametrize("which", ["legacy", "upgraded"])
@pytest.mark.parametrize("query", sorted(set(DEMO_QUERIES) | set(QUERIES)))
def test_every_read_path_returns_spark_correct_rows(spark, lakes, which, method, query) -> None:
    """Both paths, both lakes, with Spark's pushdown left on (its default) while reading."""
    root, index = lakes[which]
    pred = parse(query)
    ours = read(spark, root, pred, index=index, method=method)
    previous = spark.conf.get("spark.sql.parquet.filterPushdown")
    try:
        spark.conf.set("spark.sql.parquet.filterPushdown", "false")  # a true full scan
        full = spark.read.parquet(root).where(to_spark_sql(pred))
        want = full.count()
        spark.conf.set("spark.sql.parquet.filterPushdown", "true")
        assert ours.count() == want
        spark.conf.set("spark.sql.parquet.filterPushdown", "false")
        assert _same_rows(ours, full)
    finally:
        spark.conf.set("spark.sql.parquet.filterPushdown", previous)


def test_native_read_keeps_rows_spark_pushdown_loses(spark, lake) -> None:
    """On the legacy lake Spark's pushdown loses NaN rows; the native path does not."""
    root, index = lake
    sql = to_spark_sql(parse("temperature > 27"))
    previous = spark.conf.get("spark.sql.parquet.filterPushdown")
    try:
        spark.conf.set("spark.sql.parquet.filterPushdown", "true")
        pushed = spark.read.parquet(root).where(sql).count()
        ours = read(spark, root, "temperature > 27", index=index, method="native").count()
        spark.conf.set("spark.sql.parquet.filterPushdown", "false")
        full = spark.read.parquet(root).where(sql).count()
    finally:
        spark.conf.set("spark.sql.parquet.filterPushdown", previous)
    assert pushed < full == ours


def test_native_read_pushes_no_float_condition(spark, lake) -> None:
    root, index = lake
    df = read(spark, root, "temperature > 27 and sensor == 3", index=index, method="native")
    plan = df._jdf.queryExecution().executedPlan().toString()
    pushed = plan.split("PushedFilters: [")[1].split("]")[0]
    assert "EqualTo(sensor,3)" in pushed and "temperature" not in pushed


def test_read_method_is_checked(spark, lake) -> None:
    root, _ = lake
    with pytest.raises(ValueError, match="method"):
        read(spark, root, "temperature > 27", method="fast")


def _rows(df):
    return df.count()


@pytest.mark.parametrize("query", QUERIES)
def test_read_equals_spark_full_scan(spark, lake, query) -> None:
    root, index = lake
    pred = parse(query)
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")  # a true full scan
    full = spark.read.parquet(root).where(to_spark_sql(pred))
    for kwargs in ({}, {"index": index}):
        ours = read(spark, root, pred, **kwargs)
        assert ours.count() == full.count()
        assert ours.exceptAll(full).count() == 0 and full.exceptAll(ours).count() == 0
    spark.conf.set("spark.sql.parquet.filterPushdown", "true")
    exact = plan_scan(index, pred, path=root)
    legacy = plan_scan(root, pred)
    assert exact.rows <= legacy.rows <= legacy.rows_total


def test_exact_statistics_skip_what_legacy_cannot(lake) -> None:
    root, index = lake
    # Spark's and pyarrow's files carry no nan_count: under Spark's semantics
    # any page may hold a NaN, which is above 27.
    legacy = plan_scan(root, "temperature > 27")
    exact = plan_scan(index, "temperature > 27", path=root)
    assert exact.rows < legacy.rows
    assert plan_scan(index, "is_nan(humidity)", path=root).rows < legacy.rows_total


def test_plan_scan_reports(lake) -> None:
    root, index = lake
    p = plan_scan(index, "temperature > 1000", "ieee", path=root)  # NaN compares false
    assert p.rows == 0 and p.files == [] and "0 of" in repr(p)
    assert p.to_dict()["files_total"] == len(p.all_files) > 0


def test_nan_greatest_is_spark(spark) -> None:
    """Random predicates over NaN, both zeros, infinities and nulls: Spark agrees row by row."""
    values = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, -math.nan, 2.5, None]
    rng = random.Random(7)
    xs = [rng.choice(values) for _ in range(60)]
    ys = [rng.choice(values) for _ in range(60)]
    table = pa.table({"i": list(range(60)), "x": xs, "y": ys})
    df = spark.createDataFrame(table)
    lits = [0.0, -0.0, 1.0, math.inf, -math.inf, math.nan, 2.5]
    checked = 0
    while checked < 40:
        pred = random_predicate(rng, ["x", "y"], lits, depth=2)
        if "/" in repr(pred):  # Spark divides by zero differently (NULL or an error)
            continue
        want = sorted(np.flatnonzero(filter_mask(pred, table, "nan_greatest")).tolist())
        got = sorted(r.i for r in df.where(to_spark_sql(pred)).select("i").collect())
        assert got == want, (repr(pred), to_spark_sql(pred))
        checked += 1


def test_read_files_without_index(spark, tmp_path) -> None:
    for i in range(3):
        x = np.arange(100.0) + 100 * i
        x[::10] = np.nan
        write_table(pa.table({"x": x}), os.path.join(tmp_path, f"p{i}.parquet"),
                    data_page_size=128, write_batch_size=10)
    df = read(spark, str(tmp_path), "x > 250")
    assert df.count() == spark.read.parquet(str(tmp_path)).where("x > 250").count()
    assert read(spark, str(tmp_path), "x > 1e9", "ieee").count() == 0


def test_read_infers_the_lake_schema_once_while_files_are_unchanged(spark, tmp_path) -> None:
    """The second read of a lake runs one Spark job fewer; a file added is seen."""
    from nanstats.spark.native_scan import lake_schema

    folder = str(tmp_path)
    write_table(pa.table({"x": [1.0, np.nan, 3.0]}), os.path.join(folder, "a.parquet"))

    def jobs(action) -> tuple[int, object]:
        sc = spark.sparkContext
        group = f"schema-{random.random()}"
        sc.setJobGroup(group, group)
        try:
            result = action()
        finally:
            sc.setLocalProperty("spark.jobGroup.id", None)
        return len(sc.statusTracker().getJobIdsForGroup(group)), result

    first, n_first = jobs(lambda: read(spark, folder, "x >= 2").count())
    again, n_again = jobs(lambda: read(spark, folder, "x >= 2").count())
    assert n_first == n_again == 2 and again == first - 1
    old = [os.path.join(folder, "a.parquet")]
    assert jobs(lambda: lake_schema(spark, folder, old))[0] == 0
    # A file added: the schema is inferred again (a job), and its rows are read.
    write_table(pa.table({"x": [5.0]}), os.path.join(folder, "b.parquet"))
    assert jobs(lambda: lake_schema(spark, folder, old + [os.path.join(folder, "b.parquet")])
                )[0] == 1
    assert read(spark, folder, "x >= 2").count() == 3
    # A file rewritten in place (Spark's relation over the lake is kept while the
    # files are unchanged): the new rows are read.
    write_table(pa.table({"x": [7.0, 8.0, 9.0, 1.0]}), os.path.join(folder, "a.parquet"))
    assert read(spark, folder, "x >= 2").count() == 4


EDGES = {
    # non-NaN values all one value, and a NaN: min == max, which parquet-java
    # uses even under a column order it does not know
    "one value and NaN": ([5.0, math.nan, 5.0, None], ["x > 6", "x >= 5", "x = 5.0"]),
    "negative zeros": ([-0.0, -0.0, None], ["x = 0.0", "x <= 0.0", "x > -0.0"]),
    "positive zeros": ([0.0, 0.0, 1.0], ["x = -0.0", "x <= -0.0", "x < 0.0"]),
    "both zeros, NaN of both signs": ([-0.0, 0.0, math.nan, -math.nan, -1.0],
                                      ["x = 0.0", "x > 0.0", "is_nan(x)", "x >= -0.0"]),
}


@pytest.mark.parametrize("order", ["ieee754", "type_order"])
@pytest.mark.parametrize("dictionary", [True, False])
@pytest.mark.parametrize("edge", sorted(EDGES))
def test_read_zeros_and_nans_of_upgraded_files(spark, tmp_path, order, dictionary, edge) -> None:
    """nanstats' read returns Spark's correct rows where Spark's pushdown does not.

    Measured with Spark 4.3 (parquet-java 1.17): on such files its pushdown
    loses the NaN row of the min == max chunk (ieee754 order) and the -0.0
    rows of a dictionary-encoded chunk for ``x = 0.0`` (either order).
    """
    import pyarrow.parquet as papq

    from nanstats.parquet.upgrading import upgrade

    values, queries = EDGES[edge]
    src, dst = str(tmp_path / "src.parquet"), tmp_path / "lake"
    dst.mkdir()
    papq.write_table(pa.table({"i": list(range(len(values))), "x": values}), src,
                     use_dictionary=dictionary)
    upgrade(src, str(dst / "a.parquet"), order)
    index = index_files(spark, str(dst)).toArrow()
    previous = spark.conf.get("spark.sql.parquet.filterPushdown")
    try:
        for q in queries:
            sql = to_spark_sql(parse(q))
            spark.conf.set("spark.sql.parquet.filterPushdown", "false")
            want = sorted(r.i for r in spark.read.parquet(str(dst)).where(sql).collect())
            spark.conf.set("spark.sql.parquet.filterPushdown", "true")
            for kwargs in ({}, {"index": index}):
                got = sorted(r.i for r in read(spark, str(dst), q, **kwargs).collect())
                assert got == want, (q, kwargs)
            if edge == "one value and NaN" and order == "ieee754" and q == "x > 6":
                assert spark.read.parquet(str(dst)).where(sql).count() < len(want)
    finally:
        spark.conf.set("spark.sql.parquet.filterPushdown", previous)
