"""``make demo``: the Spark pipeline runs end to end and tells the truth."""

from __future__ import annotations

import os

from demo import job as demo


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


def test_audit_counts_legacy_findings(tmp_path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as papq

    path = tmp_path / "a.parquet"
    papq.write_table(pa.table({"x": [1.0, float("nan")], "s": ["a", "b"]}), path)
    audit = demo.audit_legacy_statistics([str(path)])
    assert audit["float column chunks"] == 1 and audit["no nan_count"] == 1
