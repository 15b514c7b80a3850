"""nanstats.spark.summary against the core API on the same data."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import nanstats
import nanstats.spark


def _frame(spark, n=5000, seed=1):
    """Doubles and floats with NaNs of both signs and payloads, both zeros,
    infinities, nulls, an all-NaN group and an all-null group."""
    rng = np.random.default_rng(seed)
    d = rng.normal(size=n)
    bits = d.view(np.uint64)
    nan_rows = rng.random(n) < 0.05
    payload = rng.integers(1, 1 << 52, n, dtype=np.uint64)
    sign = np.where(rng.random(n) < 0.5, np.uint64(1 << 63), np.uint64(0))
    bits[nan_rows] = (np.uint64(0x7FF0000000000000) | payload | sign)[nan_rows]
    d[::97] = -0.0
    d[::89] = 0.0
    d[5] = np.inf
    with np.errstate(invalid="ignore"):  # signalling NaNs quieten on the cast
        f = d.astype(np.float32)
    key = rng.integers(0, 5, n)
    d[key == 3] = np.nan          # group 3: all NaN in x
    valid_x = rng.random(n) > 0.1
    valid_y = (rng.random(n) > 0.1) & (key != 4)   # group 4: all null in y
    table = pa.table({"k": pa.array(key), "x": pa.array(d, mask=~valid_x),
                      "y": pa.array(f, mask=~valid_y)})
    # From Arrow, not pandas: a pandas detour would turn NaN into null.
    return spark.createDataFrame(table), table


def test_whole_frame_matches_core(spark) -> None:
    df, table = _frame(spark)
    rows = {r.column: r for r in nanstats.spark.summary(df).collect()}
    assert set(rows) == {"x", "y"}
    for name in ("x", "y"):
        s = nanstats.summary(table.column(name))
        r = rows[name]
        assert (r.num_values, r.null_count, r.pos_nan_count, r.neg_nan_count, r.nan_count) == (
            s.num_values, s.null_count, s.pos_nan_count, s.neg_nan_count, s.nan_count)
        assert r.min_bits % (1 << 64) == s.min_bits and r.max_bits % (1 << 64) == s.max_bits
        assert r.physical_type == s.physical_type


def test_grouped_matches_core_per_group(spark) -> None:
    df, table = _frame(spark, seed=2)
    got = {(r.k, r.column): r for r in nanstats.spark.summary(df, by="k").collect()}
    keys = table.column("k").to_numpy()
    for k in np.unique(keys):
        part = table.filter(pa.compute.equal(table.column("k"), k))
        for name in ("x", "y"):
            s = nanstats.summary(part.column(name))
            r = got[(int(k), name)]
            assert (r.num_values, r.null_count, r.nan_count, r.neg_nan_count) == (
                s.num_values, s.null_count, s.nan_count, s.neg_nan_count)
            if s.min_bits is None:
                assert r.min is None and r.min_bits is None
            else:
                assert r.min_bits % (1 << 64) == s.min_bits
                assert r.max_bits % (1 << 64) == s.max_bits
    assert got[(3, "x")].nan_count == got[(3, "x")].num_values - got[(3, "x")].null_count
    assert got[(4, "y")].min is None


def test_signs_and_zeros_survive_spark(spark) -> None:
    df = spark.createDataFrame([(-0.0,), (0.0,), (float("-nan"),)], "x double")
    r = nanstats.spark.summary(df).collect()[0]
    assert (r.neg_nan_count, r.pos_nan_count, r.min_bits % (1 << 64)) == (1, 0, 1 << 63)


def test_bad_columns(spark) -> None:
    df = spark.createDataFrame([(1, "a")], "n long, s string")
    with pytest.raises(ValueError, match="no float or double column"):
        nanstats.spark.summary(df)
    with pytest.raises(TypeError, match="'s' is string"):
        nanstats.spark.summary(df, columns=["s"])
    with pytest.raises(ValueError, match="no column 'z'"):
        nanstats.spark.summary(df, columns=["z"])


def test_pandas_flavours_give_the_same_numbers(spark) -> None:
    df, _ = _frame(spark, n=3000, seed=4)
    fields = ["num_values", "null_count", "nan_count", "pos_nan_count", "neg_nan_count",
              "min_bits", "max_bits"]
    exact = {(r.k, r.column): tuple(getattr(r, f) for f in fields)
             for r in nanstats.spark.summary(df, by="k").collect()}
    applied = {(r.k, r.column): tuple(getattr(r, f) for f in fields)
               for r in nanstats.spark.summary_in_pandas(df, by="k").collect()}
    assert applied == exact
    aggs = df.groupBy("k").agg(*nanstats.spark.summary_columns("x", fields)).collect()
    for r in aggs:
        assert tuple(r[f"x_{f}"] for f in fields) == exact[(r.k, "x")]
    with pytest.raises(ValueError, match="unknown field"):
        nanstats.spark.summary_columns("x", ["median"])
    from pyspark.sql import functions as F

    neg = nanstats.spark.summary_udf("neg_nan_count")
    for r in df.groupBy("k").agg(neg("x", F.col("x").isNull()).alias("neg")).collect():
        assert r.neg == exact[(r.k, "x")][fields.index("neg_nan_count")]
    with pytest.raises(ValueError, match="unknown field"):
        nanstats.spark.summary_udf("median")


def test_file_path_equals_row_path(spark, tmp_path) -> None:
    import pyarrow.parquet as papq

    from nanstats.spark.summary import plain_parquet_files

    _, table = _frame(spark, n=4000, seed=8)
    for i in range(3):
        papq.write_table(table.slice(i * 1000, 1500), tmp_path / f"p{i}.parquet")
    df = spark.read.parquet(str(tmp_path))
    assert plain_parquet_files(df) is not None
    assert plain_parquet_files(df.select("x")) is not None
    assert plain_parquet_files(df.where("k > 1")) is None
    assert plain_parquet_files(df.selectExpr("x * 2 AS x")) is None
    fields = ["column", "num_values", "null_count", "pos_nan_count", "neg_nan_count",
              "min_bits", "max_bits"]
    fast = sorted(tuple(r[f] for f in fields) for r in nanstats.spark.summary(df).collect())
    slow = sorted(tuple(r[f] for f in fields)
                  for r in nanstats.spark.summary(df, read_files=False).collect())
    assert fast == slow
    assert sum(r[1] for r in fast if r[0] == "x") == 4500


def test_group_keys_keep_their_type(spark) -> None:
    # Keys travel as the Arrow arrays Spark sent (an int key stays int, not long).
    df = spark.createDataFrame([(1, 2.0), (1, float("nan")), (2, -0.0)], "k int, x double")
    out = nanstats.spark.summary(df, by="k")
    assert out.schema["k"].dataType.simpleString() == "int"
    assert sorted((r.k, r.nan_count) for r in out.collect()) == [(1, 1), (2, 0)]
