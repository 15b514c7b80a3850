"""The command line: outputs, exit statuses, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq

from nanstats.cli import main
from nanstats.metadata.footer import read_footer


def _write(path, n=100):
    x = np.linspace(-1, 1, n)
    x[::7] = np.nan
    papq.write_table(pa.table({"x": x}), path, write_page_index=True)


def test_inspect_text_and_json(tmp_path, capsys) -> None:
    _write(tmp_path / "a.parquet")
    assert main(["inspect", str(tmp_path / "a.parquet")]) == 0
    assert "nan_count=absent" in capsys.readouterr().out
    assert main(["inspect", str(tmp_path / "a.parquet"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["columns"][0]["name"] == "x"


def test_upgrade_file_and_folder(tmp_path, capsys) -> None:
    src = tmp_path / "src"
    (src / "d=1").mkdir(parents=True)
    _write(src / "d=1" / "a.parquet")
    _write(src / "b.parquet")
    assert main(["upgrade", str(src / "b.parquet"), str(tmp_path / "one.parquet")]) == 0
    assert "upgraded x" in capsys.readouterr().out
    assert read_footer(tmp_path / "one.parquet").column_order(0) == "ieee754"
    assert main(["upgrade", str(src), str(tmp_path / "dst"), "--order", "type_order",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["upgraded"]) == 2 and doc["failed"] == []
    out = read_footer(tmp_path / "dst" / "d=1" / "a.parquet")
    assert out.chunk(0, 0).meta_data.statistics.nan_count == 15
    # --no-memory-map reads with pread: the same bytes.
    assert main(["upgrade", str(src / "b.parquet"), str(tmp_path / "two.parquet"),
                 "--no-memory-map"]) == 0
    capsys.readouterr()
    assert (tmp_path / "two.parquet").read_bytes() == (tmp_path / "one.parquet").read_bytes()


def test_errors_are_one_line_with_status(tmp_path, capsys) -> None:
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not a parquet file PAR1")
    assert main(["inspect", str(tmp_path / "bad.parquet")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.parquet" in err and "Traceback" not in err
    assert main(["upgrade", str(tmp_path / "missing.parquet"), str(tmp_path / "o.parquet")]) == 2
    src = tmp_path / "mixed"
    src.mkdir()
    _write(src / "good.parquet")
    (src / "bad.parquet").write_bytes(b"PAR1 broken")
    assert main(["upgrade", str(src), str(tmp_path / "out")]) == 1
    assert "bad.parquet" in capsys.readouterr().err
    assert main(["no-such-command"]) == 2


def test_python_dash_m(tmp_path) -> None:
    done = subprocess.run([sys.executable, "-m", "nanstats", "--help"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and "inspect" in done.stdout and "upgrade" in done.stdout


def test_verify_files_and_folders(tmp_path, capsys) -> None:
    from nanstats.parquet.writing import write_table

    lake = tmp_path / "lake"
    (lake / "d=1").mkdir(parents=True)
    _write(lake / "d=1" / "legacy.parquet")
    write_table(pa.table({"x": [1.0, np.nan]}), lake / "clean.parquet")
    assert main(["verify", str(lake / "clean.parquet")]) == 0
    assert "no violations" in capsys.readouterr().out
    assert main(["verify", str(lake)]) == 1
    out = capsys.readouterr().out
    assert "legacy.parquet" in out and "statistics.nan_count" in out
    assert "2 file(s) checked: 2 violation(s) in 1 file(s)" in out
    assert main(["verify", str(lake), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["violations"] == 2 and doc["failed"] == []
    by_path = {f["path"]: f for f in doc["files"]}
    assert by_path[str(lake / "clean.parquet")]["violations"] == []
    kinds = {v["kind"] for v in by_path[str(lake / "d=1" / "legacy.parquet")]["violations"]}
    assert kinds == {"missing_nan_count"}


def test_verify_unreadable_input_is_status_2(tmp_path, capsys) -> None:
    from nanstats.parquet.writing import write_table

    write_table(pa.table({"x": [1.0]}), tmp_path / "good.parquet")
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 broken")
    assert main(["verify", str(tmp_path / "good.parquet"), str(tmp_path / "nope.parquet")]) == 2
    captured = capsys.readouterr()
    assert "nope.parquet" in captured.err and "Traceback" not in captured.err
    assert main(["verify", str(tmp_path), "--json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert [f["path"] for f in doc["failed"]] == [str(tmp_path / "bad.parquet")]


def test_inspect_folder(tmp_path, capsys) -> None:
    _write(tmp_path / "a.parquet")
    _write(tmp_path / "b.parquet")
    assert main(["inspect", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "a.parquet" in out and "b.parquet" in out
    assert main(["inspect", str(tmp_path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [f["columns"][0]["name"] for f in doc["files"]] == ["x", "x"]
    (tmp_path / "c.parquet").write_bytes(b"PAR1 broken")
    assert main(["inspect", str(tmp_path / "a.parquet"), str(tmp_path / "c.parquet")]) == 1
    assert "c.parquet" in capsys.readouterr().err
