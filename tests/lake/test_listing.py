"""lake.listing: walks that never hang or stop at a bad entry, and say what they met."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as papq
import pytest

from nanstats.cli import main
from nanstats.lake.listing import list_lake, list_parquet_files

NOT_UTF8 = os.fsdecode(b"caf\xe9.parquet")

# FIFOs, symbolic links and undecodable names are POSIX matters.
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX file system")


def _lake(tmp_path):
    lake = tmp_path / "lake"
    (lake / "d=1").mkdir(parents=True)
    (lake / "secret").mkdir()
    for path in (lake / "a.parquet", lake / "d=1" / "b.parquet", lake / "secret" / "c.parquet"):
        papq.write_table(pa.table({"x": [1.0, 2.0]}), path)
    return lake


def _unreadable(monkeypatch, folder) -> None:
    """Listing ``folder`` fails as it does without permission (tests run as root)."""
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path) == os.fspath(folder):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_bad_entries_are_reported_per_entry_and_the_walk_goes_on(tmp_path, monkeypatch):
    lake = _lake(tmp_path)
    os.mkfifo(lake / "pipe.parquet")
    os.symlink(lake / "gone.parquet", lake / "d=1" / "dangling.parquet")
    (lake / NOT_UTF8).write_bytes((lake / "a.parquet").read_bytes())
    os.symlink(lake / "d=1", lake / "linked")  # a link to a folder: not followed
    _unreadable(monkeypatch, lake / "secret")
    listing = list_lake(str(lake))
    assert listing.files == (str(lake / "a.parquet"), str(lake / "d=1" / "b.parquet"))
    kinds = {os.path.relpath(p.path, lake): (p.kind, p.is_error) for p in listing.problems}
    assert kinds == {"pipe.parquet": ("not_a_regular_file", False),
                     os.path.join("d=1", "dangling.parquet"): ("dangling_link", True),
                     NOT_UTF8: ("name_not_utf8", True),
                     "secret": ("unreadable_folder", True)}
    assert list_parquet_files(str(lake)) == list(listing.files)


def test_a_named_fifo_is_an_error_and_a_missing_path_still_raises(tmp_path):
    os.mkfifo(tmp_path / "pipe.parquet")
    (problem,) = list_lake(str(tmp_path / "pipe.parquet")).problems
    assert problem.is_error and "FIFO" in problem.reason
    with pytest.raises(FileNotFoundError, match="nope"):
        list_lake(str(tmp_path / "nope"))


@pytest.mark.parametrize("command", ["inspect", "verify"])
def test_a_fifo_in_a_folder_does_not_hang_the_cli(tmp_path, command):
    # Issue 17 item 12: open() of a FIFO blocks until a writer comes.
    lake = _lake(tmp_path)
    os.mkfifo(lake / "pipe.parquet")
    done = subprocess.run([sys.executable, "-m", "nanstats", command, str(lake)],
                          capture_output=True, text=True, timeout=30, check=False)
    # Skipped with a note: no data file missed (pyarrow's files have no error-level
    # finding, so verify passes at its default --fail-on error).
    assert done.returncode == 0, done.stderr
    assert "note:" in done.stderr and "pipe.parquet" in done.stderr and "FIFO" in done.stderr
    named = subprocess.run([sys.executable, "-m", "nanstats", command, str(lake / "d=1"),
                            str(lake / "pipe.parquet")], capture_output=True, text=True,
                           timeout=30, check=False)
    assert named.returncode != 0 and "FIFO" in named.stderr
    assert "Traceback" not in done.stderr + named.stderr


def test_cli_reports_an_unreadable_folder(tmp_path, monkeypatch, capsys):
    lake = _lake(tmp_path)
    _unreadable(monkeypatch, lake / "secret")
    assert main(["verify", str(lake / "secret"), "--json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert [e["path"] for e in doc["errors"]] == [str(lake / "secret")]
    assert main(["verify", str(lake)]) == 2
    captured = capsys.readouterr()
    assert "2 file(s) checked" in captured.out and "secret: cannot list" in captured.err


def test_cli_folder_upgrade_goes_past_a_dangling_link(tmp_path):
    lake = _lake(tmp_path)
    os.symlink(lake / "gone.parquet", lake / "d=1" / "dangling.parquet")
    (lake / NOT_UTF8).write_bytes((lake / "a.parquet").read_bytes())
    out = tmp_path / "out"
    # A subprocess: its stderr escapes the undecodable name as a terminal's would.
    done = subprocess.run([sys.executable, "-m", "nanstats", "upgrade", str(lake), str(out)],
                          capture_output=True, text=True, timeout=120, check=False)
    err = done.stderr
    assert done.returncode == 1, err
    assert "dangling.parquet" in err and "does not exist" in err
    assert "not valid UTF-8" in err and "cannot open the file" not in err
    for name in ("a.parquet", os.path.join("d=1", "b.parquet"),
                 os.path.join("secret", "c.parquet")):
        assert (out / name).exists()


# ---------------------------------------------------------------------------
# The listing rules (issue 15 item 2), locally, on the S3 test server and on
# fsspec's memory filesystem: the same files found everywhere.

def _data() -> bytes:
    import io

    buffer = io.BytesIO()
    papq.write_table(pa.table({"x": [1.0]}), buffer)
    return buffer.getvalue()


#: Relative name -> listed?  Spark's and Hive's own names, bookkeeping at any depth.
RULES = {
    "day=1/a.parquet": True,
    "day=1/b.PARQUET": True,            # any case
    "day=2/part-00000": True,           # Spark/Hive without extension: the magic says
    "day=2/000000_0": True,
    "day=2/notes.txt": False,           # not Parquet
    "day=2/empty": False,
    "_c=1/c.parquet": True,             # a Hive partition named with '_'
    "_SUCCESS": False,
    "_delta_log/00000000000000000000.json": False,
    "_delta_log/00000000000000000010.checkpoint.parquet": False,
    "day=1/_spark_metadata/0": False,
    "day=1/_temporary/0/part-1.parquet": False,
    ".hidden/x.parquet": False,
    "day=1/.a.parquet.crc": False,
    "day=1/a.parquet.crc": False,
    "day=1/c.parquet._COPYING_": False,
}


def _bytes_for(name: str) -> bytes:
    if name.endswith(("notes.txt",)):
        return b"not parquet at all"
    if name.endswith("empty"):
        return b""
    return _data()


def _expected(prefix: str) -> list[str]:
    return sorted(prefix + name for name, listed in RULES.items() if listed)


def test_listing_rules_locally(tmp_path):
    lake = tmp_path / "lake"
    for name in RULES:
        (lake / name).parent.mkdir(parents=True, exist_ok=True)
        (lake / name).write_bytes(_bytes_for(name))
    os.mkfifo(lake / "day=2" / "part-00001")  # never opened for its magic
    assert list_parquet_files(str(lake)) == _expected(str(lake) + "/")
    assert list_parquet_files("file://" + str(lake)) == _expected(str(lake) + "/")
    assert list_parquet_files(str(lake / "day=*" / "*.parquet")) == [str(lake / "day=1/a.parquet")]
    assert list_parquet_files(str(lake / "**" / "*.parquet")) == \
        [str(lake / "_c=1/c.parquet"), str(lake / "day=1/a.parquet")]
    assert list_parquet_files(str(lake / "day=[2]")) == \
        [str(lake / "day=2/000000_0"), str(lake / "day=2/part-00000")]
    assert list_parquet_files(str(lake / "nothing*")) == []
    literal = lake / "x[1].parquet"
    literal.write_bytes(_data())
    assert list_parquet_files(str(literal)) == [str(literal)]


def test_listing_rules_on_s3_return_uris(s3):
    client = s3.client()
    for name in RULES:
        client.put_object(Bucket=s3.bucket, Key=f"lake/{name}", Body=_bytes_for(name))
    client.put_object(Bucket=s3.bucket, Key="other/z.parquet", Body=_data())
    for scheme in ("s3", "s3a"):
        root = f"{scheme}://{s3.bucket}/lake"
        assert list_parquet_files(root) == _expected(root + "/")
        assert list_parquet_files(root + "/") == _expected(root + "/")
    root = f"s3://{s3.bucket}/lake"
    assert list_parquet_files(f"{root}/day=*/*.parquet") == [f"{root}/day=1/a.parquet"]
    assert list_parquet_files(f"{root}/day=2") == [f"{root}/day=2/000000_0",
                                                   f"{root}/day=2/part-00000"]
    assert list_parquet_files(f"s3://{s3.bucket}/**/*.parquet") == [
        f"{root}/_c=1/c.parquet", f"{root}/day=1/a.parquet", f"s3://{s3.bucket}/other/z.parquet"]
    assert list_parquet_files([f"{root}/day=1/a.parquet", f"{root}/day=1"]) == \
        [f"{root}/day=1/a.parquet", f"{root}/day=1/b.PARQUET"]  # each file once
    with pytest.raises(FileNotFoundError, match=f"s3://{s3.bucket}/nope"):
        list_lake(f"s3://{s3.bucket}/nope")
    # With filesystem=: paths on that filesystem, to hand back with it.
    from nanstats.lake.fs import resolve

    fs = resolve(root).filesystem
    assert list_parquet_files(f"{s3.bucket}/lake/day=1", filesystem=fs) == \
        [f"{s3.bucket}/lake/day=1/a.parquet", f"{s3.bucket}/lake/day=1/b.PARQUET"]
    # What is listed opens: inspect every file by the name the listing gave.
    from nanstats.parquet import inspect

    assert [inspect(f).num_rows for f in list_parquet_files(root)] == [1] * len(_expected(""))


def test_listing_on_fsspec_memory():
    import fsspec

    memory = fsspec.filesystem("memory")
    for name in RULES:
        memory.pipe(f"/listing-test/{name}", _bytes_for(name))
    assert list_parquet_files("memory://listing-test") == _expected("memory://listing-test/")
    assert list_parquet_files("/listing-test/day=1", filesystem=memory) == \
        ["/listing-test/day=1/a.parquet", "/listing-test/day=1/b.PARQUET"]


def test_hive_partitions_one_rule_for_paths_and_uris() -> None:
    from nanstats.lake.listing import hive_partitions

    uri = "s3://b/x=9/lake/day=1/kind=a%2Fb/part-0"
    assert hive_partitions(uri) == [("x", "9"), ("day", "1"), ("kind", "a/b")]
    assert hive_partitions(uri, "s3://b/x=9/lake") == [("day", "1"), ("kind", "a/b")]
    assert hive_partitions(os.path.join("lake", "day=2", "a.parquet"),
                           os.path.abspath("lake")) == [("day", "2")]
    assert hive_partitions("/lake/=3/a.parquet") == []  # no name: not a key
