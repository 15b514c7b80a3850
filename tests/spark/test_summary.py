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


def _expected_by_key(keys: list, values: pa.Array) -> dict:
    """Core statistics per key, keys equal as Spark groups them (NaN one key, -0.0 == 0.0)."""
    def norm(k):
        if isinstance(k, float):
            return "nan" if k != k else k + 0.0
        return k

    out = {}
    for k in {norm(k) for k in keys}:
        rows = [i for i, key in enumerate(keys) if norm(key) == k]
        out[k] = nanstats.summary(values.take(pa.array(rows, pa.int64())))
    return out


@pytest.mark.parametrize("ddl", ["int", "smallint", "tinyint", "bigint", "string", "float",
                                 "double", "boolean"])
def test_group_keys_of_every_kind(spark, ddl) -> None:
    # int/short/byte keys once failed in Spark's Arrow vectors; float keys with
    # DUPLICATED_FIELD_NAME_IN_ARROW_STRUCT (the key was also described).
    rng = np.random.default_rng(11)
    n = 3000
    raw = rng.integers(-3, 4, n)
    key_values: list = {
        "string": [f"s{k}" for k in raw], "boolean": [bool(k > 0) for k in raw],
        "float": [float(k) / 2 for k in raw], "double": [float(k) / 2 for k in raw],
    }.get(ddl, [int(k) for k in raw])
    if ddl in ("float", "double"):
        key_values[:30] = [float("nan")] * 10 + [-0.0] * 10 + [0.0] * 10
    key_values[-7:] = [None] * 7
    x = rng.normal(size=n)
    x[rng.random(n) < 0.1] = np.nan
    arrow_type = {"int": pa.int32(), "smallint": pa.int16(), "tinyint": pa.int8(),
                  "bigint": pa.int64(), "string": pa.string(), "float": pa.float32(),
                  "double": pa.float64(), "boolean": pa.bool_()}[ddl]
    table = pa.table({"k": pa.array(key_values, arrow_type), "x": pa.array(x, mask=x > 1.5)})
    df = spark.createDataFrame(table)
    out = nanstats.spark.summary(df, by="k")
    assert out.schema["k"].dataType.simpleString() == ddl
    got = out.collect()
    assert {r.column for r in got} == {"x"}  # a float key is a key, not described
    keys = table.column("k").to_pylist()
    if ddl == "float":  # the keys Spark compares are the float32 values
        keys = [None if k is None else float(np.float32(k)) for k in keys]
    expected = _expected_by_key(keys, table.column("x"))
    assert len(got) == len(expected)
    for r in got:
        k = r.k if not isinstance(r.k, float) else ("nan" if r.k != r.k else r.k + 0.0)
        s = expected[k]
        assert (r.num_values, r.null_count, r.nan_count, r.min_bits % (1 << 64),
                r.max_bits % (1 << 64)) == (s.num_values, s.null_count, s.nan_count,
                                            s.min_bits, s.max_bits)


def test_a_float_key_can_also_be_described(spark) -> None:
    df = spark.createDataFrame([(1.0, 2.0), (1.0, float("nan")), (2.0, -0.0)], "k double, x double")
    rows = nanstats.spark.summary(df, ["k", "x"], by="k").collect()
    got = sorted((r.k, r.column, r.num_values, r.nan_count) for r in rows)
    assert got == [(1.0, "k", 2, 0), (1.0, "x", 2, 1), (2.0, "k", 1, 0), (2.0, "x", 1, 0)]
    with pytest.raises(ValueError, match="no group column 'z'"):
        nanstats.spark.summary(df, by="z")
    with pytest.raises(ValueError, match="besides its group columns"):
        nanstats.spark.summary(df.select("k"), by="k")


def test_partition_keys_and_a_folder_with_a_space(spark, tmp_path) -> None:
    # Spark infers day=0 as an int partition column; inputFiles() gives
    # percent-escaped URIs (odd%20lake), which the file path decodes.
    import pyarrow.parquet as papq

    lake = tmp_path / "odd lake"
    rng = np.random.default_rng(5)
    tables = {}
    for day in range(3):
        (lake / f"day={day}").mkdir(parents=True)
        x = rng.normal(size=500)
        x[rng.random(500) < 0.2] = -np.nan
        tables[day] = pa.table({"x": x})
        papq.write_table(tables[day], lake / f"day={day}" / "part-0.parquet")
    df = spark.read.parquet(str(lake))
    assert any("%20" in f for f in df.inputFiles())
    from nanstats.spark.summary import file_keys, plain_parquet_files

    files = plain_parquet_files(df)
    assert file_keys(df, ["day"], ["x"], files[0]).from_folders == (True,)  # the file path
    assert file_keys(df.withColumnRenamed("x", "y"), ["day"], ["y"], files[0]) is None
    by_day = {r.day: r for r in nanstats.spark.summary(df, by="day").collect()}
    assert df.schema["day"].dataType.simpleString() == "int"
    for day, table in tables.items():
        s = nanstats.summary(table.column("x"))
        assert (by_day[day].neg_nan_count, by_day[day].min_bits % (1 << 64)) == (
            s.neg_nan_count, s.min_bits)
    whole = nanstats.spark.summary(df).collect()[0]
    assert whole == nanstats.spark.summary(df, read_files=False).collect()[0]
    assert whole.num_values == 1500


def test_a_big_file_is_read_by_several_tasks(spark, tmp_path) -> None:
    import pyarrow.parquet as papq

    from nanstats.spark.splits import file_splits, split_row_groups

    _, table = _frame(spark, n=20_000, seed=12)
    path = tmp_path / "big.parquet"
    papq.write_table(table, path, row_group_size=1000)
    size = path.stat().st_size
    splits = file_splits([str(path)], size // 5).num_rows
    groups = [split_row_groups(papq.ParquetFile(path).metadata, i, splits, size)
              for i in range(splits)]
    assert sorted(sum(groups, [])) == list(range(20))  # every row group once
    assert sum(1 for g in groups if g) >= 4
    df = spark.read.parquet(str(path))
    fields = ["column", "num_values", "null_count", "pos_nan_count", "neg_nan_count",
              "min_bits", "max_bits"]
    whole = sorted(tuple(r[f] for f in fields) for r in nanstats.spark.summary(df).collect())
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(size // 5))
    try:
        split = sorted(tuple(r[f] for f in fields) for r in nanstats.spark.summary(df).collect())
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
    assert split == whole
    assert sum(r[1] for r in split if r[0] == "x") == 20_000
