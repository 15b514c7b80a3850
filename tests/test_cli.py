"""The command line: outputs, exit statuses, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq

from nanstats.cli import main
from nanstats.parquet.footer import read_footer


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
