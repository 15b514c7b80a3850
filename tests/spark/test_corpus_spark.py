"""Files written by Spark (parquet-java) in the corpus: see tests/parquet/test_corpus.py.

Spark 4.3 writes with parquet-java 1.17 (``parquet-mr version 1.17.0``), which
predates ``nan_count``.  Its chunk Statistics break two TYPE_ORDER rules
that verify reports: a chunk holding NaN gets max_value NaN (``nan_in_bounds``:
Java's ``Double.compare`` puts NaN above +inf), and a chunk whose smallest
value is +0.0 keeps min +0.0 where the rules want -0.0 (``zero_rule``).  Its
ColumnIndex is dropped for chunks with NaN, and elsewhere follows the rules
(but for ``nan_counts``).
"""

from __future__ import annotations

import glob

import pytest

from tests.parquet.corpus import check_file


@pytest.fixture(scope="module")
def spark_files(spark, tmp_path_factory) -> list[str]:
    from pyspark.sql import functions as F

    out = str(tmp_path_factory.mktemp("spark") / "lake")
    i = F.col("id")
    # NaN rows 500..999 (all-NaN pages), -0.0 rows 1500..1519, nulls 2000..2599,
    # +0.0 at row 0 (the smallest value of the first row group).
    d = (F.when(i.between(500, 999), F.lit(float("nan")))
         .when(i.between(1500, 1519), F.lit(-0.0))
         .when(i.between(2000, 2599), F.lit(None).cast("double"))
         .when(i % 17 == 3, F.lit(float("nan")))
         .otherwise(i.cast("double")))
    df = (spark.range(3000).select(
        d.alias("d"), d.cast("float").alias("f"),
        F.when(i % 13 == 0, F.lit(None)).otherwise(F.struct(d.alias("v"))).alias("s"),
        ((i - 1500) / 7.0).alias("g"),  # no NaN: gets a ColumnIndex
        i.alias("i")).coalesce(1))
    (df.write.mode("overwrite")
       .option("parquet.page.size", "1024")
       .option("parquet.page.row.count.limit", "100")
       .option("parquet.block.size", str(16 * 1024))
       .option("compression", "none")
       .parquet(out + "/plain"))
    (df.write.mode("overwrite")
       .option("parquet.enable.dictionary", "true")
       .option("parquet.writer.version", "v2")
       .option("compression", "zstd")
       .parquet(out + "/v2"))
    files = sorted(glob.glob(out + "/*/*.parquet"))
    assert len(files) == 2
    return files


def test_spark_files(spark_files, tmp_path) -> None:
    plain, v2 = spark_files
    check_file(plain, {"missing_nan_count", "missing_nan_counts", "nan_in_bounds",
                       "zero_rule"}, str(tmp_path))
    # dictionary-encoded, a row group with -0.0 and no +0.0: Spark's own dictionary filter trips
    check_file(v2, {"missing_nan_count", "missing_nan_counts", "nan_in_bounds",
                    "dictionary_negative_zero"}, str(tmp_path))


def test_spark_findings(spark_files) -> None:
    from nanstats.parquet.verification import verify

    found = verify(spark_files[0])
    nan_max = [v for v in found if v.kind == "nan_in_bounds"]
    assert {(v.column, v.field, v.found) for v in nan_max} == {
        ("d", "statistics.max_value", "+nan(0x7ff8000000000000)"),
        ("s.v", "statistics.max_value", "+nan(0x7ff8000000000000)"),
        ("f", "statistics.max_value", "+nan(0x7fc00000)")}
    index = [v for v in found if v.field.startswith("column_index")]
    assert index and {(v.column, v.kind) for v in index} == {("g", "missing_nan_counts")}
    zero = [v for v in found if v.kind == "zero_rule"]
    assert zero and all(v.row_group == 0 and v.page is None for v in zero)
    assert {(v.field, v.found, v.expected) for v in zero} == {
        ("statistics.min_value", "0.0", "-0.0")}
    assert {v.column for v in zero} == {"d", "f"}  # row 0 of s is a null struct
