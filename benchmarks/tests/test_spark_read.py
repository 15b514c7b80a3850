"""benchmarks/spark_read.py runs end to end on a small lake and prints its table."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import spark_read  # noqa: E402


def test_spark_read_benchmark_on_a_small_lake(spark, tmp_path, capsys) -> None:
    work = str(tmp_path / "work")
    paths = spark_read.prepare(spark, work, rows=40_000, days=2)
    assert spark_read.prepare(spark, work, rows=40_000, days=2) == paths  # reused
    results = spark_read.run(spark, paths, ["temperature > 27", "is_nan(humidity)"], repeat=1)
    for r in results:
        assert r["nanstats_rows"] == r["arrow_rows"] == r["full_rows"] >= r["pushdown_rows"]
        assert r["full_bytes"] > 0 and 0 < r["pages_kept"] <= 1
    spark_read.report(results, 40_000, 1)
    out = capsys.readouterr().out
    assert "temperature > 27" in out and "targets:" in out
