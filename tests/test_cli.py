"""The command line: outputs, exit statuses, one-line errors, the JSON document."""

from __future__ import annotations

import copy
import json
import os
import struct
import subprocess
import sys

import jsonschema
import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

from nanstats.cli import main, parser
from nanstats.cli_output import safe_text, schema
from nanstats.metadata.footer import read_footer
from nanstats.metadata.thrift import encode
from nanstats.parquet.verification import RULES, SEVERITIES


def _write(path, n=100):
    x = np.linspace(-1, 1, n)
    x[::7] = np.nan
    papq.write_table(pa.table({"x": x}), path, write_page_index=True)


def _json(capsys) -> dict:
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, schema())
    return doc


def _excluding_bound(src, dst) -> None:
    """dst = src with a chunk max below the largest value (an error finding)."""
    footer = read_footer(src)
    meta = copy.deepcopy(footer.metadata)
    with open(src, "rb") as f:
        buf = bytearray(f.read(footer.metadata_offset))
    meta.row_groups[0].columns[0].meta_data.statistics.max_value = struct.pack("<d", 0.5)
    raw = encode(meta)
    buf += raw + struct.pack("<I", len(raw)) + b"PAR1"
    with open(dst, "wb") as f:
        f.write(buf)


@pytest.fixture
def lake(tmp_path):
    """A small lake written by pyarrow, polars and DuckDB."""
    import duckdb
    import polars as pl

    root = tmp_path / "lake"
    for name in ("pyarrow", "polars", "duckdb"):
        (root / name).mkdir(parents=True)
    x = np.r_[np.linspace(-1, 1, 500), [np.nan] * 20]
    t = pa.table({"x": x})
    papq.write_table(t, root / "pyarrow" / "a.parquet", write_page_index=True)
    pl.from_arrow(t).write_parquet(root / "polars" / "a.parquet")
    duckdb.from_arrow(t).write_parquet(str(root / "duckdb" / "a.parquet"))
    return root


# --------------------------------------------------------------------------- verify


def test_verify_summary_verdict_and_fail_on(lake, capsys) -> None:
    assert main(["verify", str(lake)]) == 0  # warnings and info only
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "missing_nan_count" in lines[2] and lines[2].split()[0] == "warning"
    assert str(lake / "polars" / "a.parquet") in out  # the example, with its full path
    assert "DuckDB 2.0" in out  # NaN rows it skips when nan_count is missing
    assert lines[-1].startswith("3 file(s) checked, 2 with findings: 0 errors")
    assert "OK: nothing at or above error" in lines[-1]
    assert len(lines) < 20
    assert main(["verify", str(lake), "--fail-on", "warning"]) == 1
    assert "FAIL" in capsys.readouterr().out
    assert main(["verify", str(lake), "--fail-on", "warning", "--ignore",
                 "missing_nan_count"]) == 0
    assert main(["verify", str(lake), "--fail-on", "info", "--ignore",
                 "missing_nan_count"]) == 1
    capsys.readouterr()
    assert main(["verify", str(lake), "--details", "--select", "missing_nan_counts"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("info    polars/a.parquet: column 'x', row group 0: "
                      "column_index.nan_counts absent, expected [20] [missing_nan_counts]")
    assert all("[missing_nan_counts]" in line for line in out[:-1])
    assert main(["verify", str(lake), "--select", "no_such_kind"]) == 2
    assert "unknown kind no_such_kind" in capsys.readouterr().err


def test_verify_error_finding_exits_1(lake, tmp_path, capsys) -> None:
    _excluding_bound(lake / "pyarrow" / "a.parquet", tmp_path / "bad.parquet")
    assert main(["verify", str(tmp_path / "bad.parquet")]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[2].split()[:2] == ["error", "bound_excludes_value"]
    assert main(["verify", str(tmp_path / "bad.parquet"), "--json"]) == 1
    doc = _json(capsys)
    [bad] = [f for f in doc["files"][0]["results"]["findings"]
             if f["kind"] == "bound_excludes_value"]
    assert bad["severity"] == "error"
    assert bad["location"] == {"column": "x", "row_group": 0, "page": None,
                               "field": "statistics.max_value"}
    assert bad["found"] == {"bits": "0x3fe0000000000000", "value": 0.5, "text": "0.5"}
    assert bad["expected"]["value"] == 1.0 and bad["expected"]["relation"] == ">="
    assert doc["summary"]["failed"] is True


def test_verify_nothing_to_check_is_status_2(tmp_path, capsys) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["verify", str(tmp_path / "empty")]) == 2
    captured = capsys.readouterr()
    assert "nothing to check" in captured.err and str(tmp_path / "empty") in captured.err
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("x")
    assert main(["verify", str(tmp_path / "other")]) == 2
    assert main(["verify", str(tmp_path / "missing")]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("missing") == 1 and "no such file or folder" in captured.err
    assert main(["inspect", str(tmp_path / "empty")]) == 2
    assert "nothing to check" in capsys.readouterr().err


def test_verify_unreadable_input_is_status_2(tmp_path, capsys) -> None:
    from nanstats.parquet.writing import write_table

    write_table(pa.table({"x": [1.0]}), tmp_path / "good.parquet")
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 broken")
    assert main(["verify", str(tmp_path / "good.parquet"), str(tmp_path / "nope.parquet")]) == 2
    captured = capsys.readouterr()
    assert "nope.parquet" in captured.err and "Traceback" not in captured.err
    assert main(["verify", str(tmp_path), "--json"]) == 2
    doc = _json(capsys)
    assert [e["path"] for e in doc["errors"]] == [str(tmp_path / "bad.parquet")]
    assert {f["path"]: f["status"] for f in doc["files"]} == {
        str(tmp_path / "bad.parquet"): "error", str(tmp_path / "good.parquet"): "ok"}


def test_clean_file(tmp_path, capsys) -> None:
    from nanstats.parquet.writing import write_table

    write_table(pa.table({"x": [1.0, np.nan]}), tmp_path / "clean.parquet")
    assert main(["verify", str(tmp_path / "clean.parquet")]) == 0
    assert capsys.readouterr().out == "1 file(s) checked: no findings. OK: nothing at or " \
        "above error.\n"


# --------------------------------------------------------------------------- JSON


def test_json_schema_matches_the_rules() -> None:
    finding = schema()["$defs"]["finding"]["properties"]
    assert finding["kind"]["enum"] == list(RULES)
    assert finding["severity"]["enum"] == list(SEVERITIES)
    jsonschema.Draft202012Validator.check_schema(schema())


@pytest.mark.parametrize("many", [False, True])
def test_every_command_prints_one_document_shape(lake, tmp_path, capsys, many) -> None:
    one = str(lake / "pyarrow" / "a.parquet")
    paths = [str(lake)] if many else [one]
    for argv in (["inspect", *paths], ["verify", *paths],
                 ["prune", *paths, "--where", "x > 0.5"],
                 ["upgrade", paths[0], str(tmp_path / ("out" if many else "out.parquet"))]):
        assert main([*argv, "--json"]) == 0, argv
        doc = _json(capsys)
        assert doc["schema_version"] == 1 and doc["command"] == argv[0]
        assert doc["errors"] == [] and len(doc["files"]) == (3 if many else 1)
        assert all(os.path.isabs(f["path"]) and f["status"] == "ok" for f in doc["files"])
    assert doc["arguments"]["order"] == "ieee754"


def test_inspect_json_numbers_and_bits(tmp_path, capsys) -> None:
    _write(tmp_path / "a.parquet")
    assert main(["inspect", str(tmp_path / "a.parquet"), "--json"]) == 0
    [f] = _json(capsys)["files"]
    st = f["results"]["columns"][0]["row_groups"][0]["statistics"]
    assert (st["min"], st["max"], st["max_bits"]) == (-97 / 99, 1.0, "0x3ff0000000000000")
    assert st["nan_count"] is None


def test_json_errors_are_listed(tmp_path, capsys) -> None:
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 broken")
    for command in ("inspect", "verify"):
        assert main([command, str(tmp_path / "bad.parquet"), str(tmp_path / "none"),
                     "--json"]) == 2
        doc = _json(capsys)
        assert [e["path"] for e in doc["errors"]] == [str(tmp_path / "none"),
                                                      str(tmp_path / "bad.parquet")]


# --------------------------------------------------------------------------- upgrade


def test_upgrade_file_and_folder(tmp_path, capsys) -> None:
    src = tmp_path / "src"
    (src / "d=1").mkdir(parents=True)
    _write(src / "d=1" / "a.parquet")
    _write(src / "b.parquet")
    assert main(["upgrade", str(src / "b.parquet"), str(tmp_path / "one.parquet")]) == 0
    assert "upgraded x" in capsys.readouterr().out
    assert read_footer(tmp_path / "one.parquet").column_order(0) == "ieee754"
    assert main(["upgrade", str(src), str(tmp_path / "dst"), "--order", "type_order"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # no progress: stderr is not a terminal
    assert captured.out.startswith("2 of 2 file(s) upgraded to ")
    assert "3.2 kB read" in captured.out or "read" in captured.out
    out = read_footer(tmp_path / "dst" / "d=1" / "a.parquet")
    assert out.chunk(0, 0).meta_data.statistics.nan_count == 15
    # --no-memory-map reads with pread: the same bytes.
    assert main(["upgrade", str(src / "b.parquet"), str(tmp_path / "two.parquet"),
                 "--no-memory-map"]) == 0
    capsys.readouterr()
    assert (tmp_path / "two.parquet").read_bytes() == (tmp_path / "one.parquet").read_bytes()


def test_upgrade_prints_its_notes_as_text_and_in_json(tmp_path, capsys) -> None:
    from nanstats.parquet.upgrading import writer

    _write(tmp_path / "a.parquet")
    out = tmp_path / "out"
    out.mkdir()

    def stale(name):  # a temporary of a killed upgrade, its name holding markup
        path = out / f".{name}.{writer._host_tag()}.999999999.0123abcd.nanstats-tmp"
        path.write_bytes(b"x")
        return path

    left = stale("[bold red]b[x].parquet")
    assert main(["upgrade", str(tmp_path / "a.parquet"), str(out / "b.parquet")]) == 0
    text = capsys.readouterr().out
    assert f"removed a stale temporary file: {left}" in text  # as text, markup and all
    assert not left.exists()
    left = stale("c.parquet")
    writer._cleaned.clear()  # the folder is looked at again (once per ten minutes otherwise)
    assert main(["upgrade", str(tmp_path / "a.parquet"), str(out / "c.parquet"), "--json"]) == 0
    (result,) = [f["results"] for f in _json(capsys)["files"]]
    assert result["notes"] == [f"removed a stale temporary file: {left} (left by process "
                               "999999999, which no longer runs)"]


def test_upgrade_into_a_folder_and_overwrite(tmp_path, capsys) -> None:
    _write(tmp_path / "a.parquet")
    (tmp_path / "out").mkdir()
    assert main(["upgrade", str(tmp_path / "a.parquet"), str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "a.parquet").exists()
    assert main(["upgrade", str(tmp_path / "a.parquet"), str(tmp_path / "new") + "/"]) == 0
    assert (tmp_path / "new" / "a.parquet").exists()
    capsys.readouterr()
    before = (tmp_path / "out" / "a.parquet").stat().st_mtime_ns
    assert main(["upgrade", str(tmp_path / "a.parquet"), str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "exists" in err and "--overwrite" in err and err.count("\n") == 1
    assert err.count(str(tmp_path / "out" / "a.parquet")) == 1
    assert (tmp_path / "out" / "a.parquet").stat().st_mtime_ns == before
    assert main(["upgrade", str(tmp_path / "a.parquet"), str(tmp_path / "out"),
                 "--overwrite"]) == 0


# --------------------------------------------------------------------------- errors, text


def test_errors_are_one_line_with_status(tmp_path, capsys) -> None:
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not a parquet file PAR1")
    assert main(["inspect", str(tmp_path / "bad.parquet")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.count("bad.parquet") == 1 and "Traceback" not in err
    assert main(["upgrade", str(tmp_path / "missing.parquet"), str(tmp_path / "o.parquet")]) == 2
    src = tmp_path / "mixed"
    src.mkdir()
    _write(src / "good.parquet")
    (src / "bad.parquet").write_bytes(b"PAR1 broken")
    assert main(["upgrade", str(src), str(tmp_path / "out")]) == 1
    assert "bad.parquet" in capsys.readouterr().err
    assert main(["no-such-command"]) == 2


def test_prune_folders_and_bad_predicates(lake, capsys) -> None:
    assert main(["prune", str(lake), "--where", "x > 0.5"]) == 0
    out = capsys.readouterr().out
    assert "polars/a.parquet: (x > 0.5)" in out and out.endswith("3 of 3 file(s) pruned\n")
    assert main(["prune", str(lake / "duckdb" / "a.parquet"), "--where", "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a predicate" in err and "Traceback" not in err


def test_names_print_as_text_never_markup(tmp_path, capsys) -> None:
    path = tmp_path / "m.parquet"
    papq.write_table(pa.table({"[/]": [1.0], "[bold red]x[/bold red]": [2.0],
                               "e\x1b[31m": [np.nan]}), path, write_page_index=True)
    for command in (["verify", "--details"], ["inspect"]):
        assert main([command[0], str(path), *command[1:]]) == 0
        out = capsys.readouterr().out
        assert "[bold red]x[/bold red]" in out and "'[/]'" in out or "[/]" in out
        assert "\x1b" not in out and "e\\x1b[31m" in out
    assert safe_text("a\x07\u2028b") == "a\\x07\\u2028b"


def test_closed_pipe_is_quiet(lake) -> None:
    script = (f"import sys; from nanstats.cli import main; "
              f"sys.exit(main(['inspect', {str(lake)!r}, {str(lake)!r}, {str(lake)!r}]))")
    done = subprocess.run(f"{sys.executable} -c \"{script}\" | head -c 1 > /dev/null",
                          shell=True, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.stderr == ""


def test_version_and_help_for_every_option(capsys) -> None:
    from nanstats import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"nanstats {__version__}\n"
    p = parser()
    subs = next(a for a in p._actions if a.dest == "command").choices
    for name, sub in subs.items():
        for action in sub._actions:
            assert action.help, (name, action.dest)


def test_python_dash_m(tmp_path) -> None:
    done = subprocess.run([sys.executable, "-m", "nanstats", "--help"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and "inspect" in done.stdout and "upgrade" in done.stdout


def test_inspect_folder(tmp_path, capsys) -> None:
    _write(tmp_path / "a.parquet")
    _write(tmp_path / "b.parquet")
    assert main(["inspect", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "a.parquet" in out and "b.parquet" in out and out.endswith("2 of 2 file(s) inspected\n")
    (tmp_path / "c.parquet").write_bytes(b"PAR1 broken")
    assert main(["inspect", str(tmp_path / "a.parquet"), str(tmp_path / "c.parquet")]) == 1
    assert "c.parquet" in capsys.readouterr().err


# -- Delta Lake and Iceberg tables ------------------------------------------------------


def _delta(folder: str) -> str:
    from deltalake import write_deltalake

    table = pa.table({"k": [1, 2, 1, 2], "x": [1.5, np.nan, -0.0, None]})
    write_deltalake(folder, table, partition_by=["k"])
    write_deltalake(folder, table, partition_by=["k"], mode="overwrite")  # dead files stay
    return folder


def test_table_folders_stand_for_their_live_files(tmp_path, capsys) -> None:
    from nanstats.lake.tables import open_table

    folder = _delta(str(tmp_path / "events"))
    live = open_table(folder).paths
    assert main(["verify", folder, "--json"]) == 0
    doc = _json(capsys)
    assert sorted(f["path"] for f in doc["files"]) == sorted(live)
    assert main(["prune", folder, "--where", "x > 0", "--json"]) == 0
    assert sorted(f["path"] for f in _json(capsys)["files"]) == sorted(live)
    assert main(["inspect", folder]) == 0
    assert capsys.readouterr().out.count("rows,") == len(live)


def test_upgrade_of_a_table_is_in_place_and_never_a_copy(tmp_path, capsys) -> None:
    from deltalake import DeltaTable

    folder = _delta(str(tmp_path / "events"))
    out = str(tmp_path / "out")
    assert main(["upgrade", folder, out]) == 2
    err = capsys.readouterr().err
    assert "without the table's log" in err and f"nanstats upgrade {folder}" in err
    assert main(["upgrade", os.path.join(folder, "k=1"), out]) == 2
    assert "is inside a Delta Lake table" in capsys.readouterr().err
    assert not os.path.exists(out) and DeltaTable(folder).version() == 1
    assert main(["upgrade", folder, "--json"]) == 0
    doc = _json(capsys)
    assert doc["summary"]["version_before"] == 1 and doc["summary"]["version_after"] == 2
    assert doc["summary"]["upgraded"] == 2 and all(f["results"] for f in doc["files"])
    assert main(["verify", folder, "--select", "missing_nan_count,missing_nan_counts"]) == 0
    assert "no findings" in capsys.readouterr().out
    assert main(["upgrade", "/no/such/file.parquet"]) == 2
    assert "DST is needed" in capsys.readouterr().err


def test_upgrade_of_an_iceberg_table(tmp_path, capsys) -> None:
    from pyiceberg.catalog.sql import SqlCatalog

    catalog = SqlCatalog("lakes", uri=f"sqlite:///{tmp_path}/c.db",
                         warehouse=f"file://{tmp_path}/w")
    catalog.create_namespace("ns")
    data = pa.table({"x": [1.5, np.nan, -0.0, None]})
    table = catalog.create_table("ns.t", schema=data.schema)
    table.append(data)
    folder = table.location().removeprefix("file://")
    assert main(["verify", folder]) == 0
    assert "1 file(s) checked" in capsys.readouterr().out
    assert main(["upgrade", folder]) == 2
    assert "--catalog NAME" in capsys.readouterr().err
    # pyiceberg reads its catalog configuration once, when imported: a fresh process
    env = dict(os.environ, PYICEBERG_CATALOG__LAKES__TYPE="sql",
               PYICEBERG_CATALOG__LAKES__URI=f"sqlite:///{tmp_path}/c.db",
               PYICEBERG_CATALOG__LAKES__WAREHOUSE=f"file://{tmp_path}/w",
               PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-m", "nanstats", "upgrade", "ns.t", "--catalog",
                           "lakes"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Iceberg table" in done.stdout and "-> " in done.stdout
    after = catalog.load_table("ns.t")
    assert after.current_snapshot().snapshot_id != table.current_snapshot().snapshot_id
    assert [repr(v) for v in after.scan().to_arrow()["x"].to_pylist()] == [
        "1.5", "nan", "-0.0", "None"]
