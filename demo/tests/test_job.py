"""``make demo``: the Spark pipeline runs end to end and tells the truth."""

from __future__ import annotations

import json
import os

import pytest

from demo import job as demo
from nanstats.lake.listing import list_parquet_files


def test_demo_runs_on_a_small_lake(spark, tmp_path, capsys) -> None:
    code = demo.main(["--rows", "120000", "--repeat", "1", "--output", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    assert "generated a lake of 120,000 readings" in out
    assert "bit for bit: yes" in out
    assert os.path.isdir(tmp_path / "index") and os.path.isdir(tmp_path / "upgraded")
    assert "column order ieee754" in out.split("after:")[1]
    assert "nanstats returns the rows of Spark's correct scan: yes" in out
    flat = " ".join(out.split())  # rich wraps long lines
    assert ("float16 files: 2 upgraded; nanstats.parquet.verification clean and values identical "
            "bit for bit: yes") in flat
    assert os.path.exists(tmp_path / "queries.json")
    assert spark.sparkContext._jsc is not None  # the shared session is still alive
    # What each read counted as it ran: Spark's correct scan read every file and row.
    with open(tmp_path / "queries.json") as f:
        results = json.load(f)
    lake_files = len(list_parquet_files(str(tmp_path / "lake")))
    for r in results:
        if r["method"] == demo.METHODS[1]:
            assert (r["files"], r["rows_read"]) == (lake_files, 120_000), r
            assert r["row_groups"] is None and r["mb"] > 0
        elif r["method"] == demo.METHODS[3]:
            # At this size the cost rule keeps every query on Spark's reader (the
            # pyarrow path's counts are tested in tests/spark/test_arrow_scan.py).
            assert r["path"] == "native" and r["row_groups"] is None, r
            assert 0 <= r["files"] <= lake_files and (r["rows_read"] or 0) <= 120_000, r


def test_audit_counts_legacy_findings(tmp_path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as papq

    path = tmp_path / "a.parquet"
    papq.write_table(pa.table({"x": [1.0, float("nan")], "s": ["a", "b"]}), path)
    audit = demo.audit_legacy_statistics([str(path)])
    assert audit["float column chunks"] == 1 and audit["no nan_count"] == 1


def test_demo_runs_on_an_object_store_lake(spark, s3, tmp_path, capsys) -> None:
    """--lake s3://...: Spark (through S3A) and nanstats (through pyarrow) on the S3 server."""
    env = dict(spark.sparkContext.environment)
    try:
        code = demo.main(["--rows", "60000", "--repeat", "1", "--output", str(tmp_path),
                          "--lake", f"s3://{s3.bucket}/demo"])
    finally:
        spark.sparkContext.environment.clear()
        spark.sparkContext.environment.update(env)
    out = capsys.readouterr().out
    flat = " ".join(out.split())
    assert code == 0, out
    assert f"lake in s3a://{s3.bucket}/demo" in flat
    assert "bit for bit: yes" in out
    assert "nanstats returns the rows of Spark's correct scan: yes" in out
    keys = s3.keys(s3.bucket)
    for folder in ("demo/lake/", "demo/lake-float16/", "demo/index/", "demo/upgraded/",
                   "demo/upgraded-float16/"):
        assert any(k.startswith(folder) and k.endswith(".parquet") for k in keys), folder
    assert not any("nanstats-tmp" in k for k in keys)
    assert not os.path.exists(tmp_path / "lake")  # nothing of the lake on local disk
    assert os.path.exists(tmp_path / "queries.json")


def test_demo_names_a_missing_connector(spark, tmp_path) -> None:
    from demo.object_store import connect
    from nanstats.errors import MissingDependencyError

    with pytest.raises(MissingDependencyError, match="no file system for nowhere://"):
        connect(spark, "nowhere://bucket/lake")
