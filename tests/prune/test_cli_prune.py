"""``nanstats prune``: summary, --explain, --json, errors."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa

from nanstats.cli import main
from nanstats.parquet.writing import write_table


def _file(tmp_path):
    x = np.r_[np.arange(1000.0), np.full(24, np.nan)]
    path = str(tmp_path / "p.parquet")
    write_table(pa.table({"x": x}), path, row_group_size=256, data_page_size=256,
                write_batch_size=32)
    return path


def test_prune_summary_and_semantics(tmp_path, capsys) -> None:
    path = _file(tmp_path)
    assert main(["prune", path, "--where", "x > 900", "--semantics", "ieee"]) == 0
    out = capsys.readouterr().out
    assert "row groups to read: 1 of 4 (3)" in out
    assert main(["prune", path, "--where", "x > 900"]) == 0  # NaN is above 900 for Spark
    out = capsys.readouterr().out
    assert "rows to read: 128 of 1,024" in out  # whole pages of 32 rows


def test_prune_explain_and_json(tmp_path, capsys) -> None:
    path = _file(tmp_path)
    assert main(["prune", path, "--where", "x between 10 and 20", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "row group 1 (256 rows): skip" in out and "binary search" in out
    assert main(["prune", path, "--where", "is_nan(x)", "--json"]) == 0
    [file] = json.loads(capsys.readouterr().out)["files"]
    result = file["results"]
    assert result["selection"]["num_rows"] == 32  # the last page: 8 numbers, 24 NaN
    assert [g["kept"] for g in result["row_groups"]] == [False, False, False, True]


def test_prune_errors(tmp_path, capsys) -> None:
    path = _file(tmp_path)
    assert main(["prune", path, "--where", "y > 1"]) == 2
    assert "no column 'y'" in capsys.readouterr().err
    assert main(["prune", path, "--where", "x >>"]) == 2
    assert "cannot parse" in capsys.readouterr().err
    assert main(["prune", str(tmp_path / "missing.parquet"), "--where", "x > 1"]) == 2


def test_prune_engine_option_types_float32_literals(tmp_path: object, capsys: object) -> None:
    path = f"{tmp_path}/b.parquet"
    write_table(pa.table({"b": np.array([1.1, 2.0], dtype=np.float32)}), path)
    assert main(["prune", path, "--where", "b = 1.1", "--engine", "duckdb", "--json"]) == 0
    duck = json.loads(capsys.readouterr().out)["files"][0]["results"]  # type: ignore[attr-defined]
    assert main(["prune", path, "--where", "b = 1.1", "--engine", "spark", "--json"]) == 0
    spark = json.loads(capsys.readouterr().out)["files"][0]["results"]  # type: ignore[attr-defined]
    assert duck["semantics"] == "duckdb" and duck["row_groups"][0]["kept"]
    assert spark["semantics"] == "spark" and not spark["row_groups"][0]["kept"]
