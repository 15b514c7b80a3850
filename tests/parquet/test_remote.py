"""Parquet files on an object store: the S3 test server (moto), and fsspec's memory.

Issue 15's "done when" for the parquet API and the command line: inspect,
verify, prune, read_table and upgrade work on ``s3://`` URIs with only the
standard AWS variables set; what they read is counted (requests and bytes)
through a counting wrapper of the same S3 filesystem.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

import nanstats.parquet as npq
from nanstats.cli import main
from nanstats.errors import ParquetFormatError
from nanstats.lake.fs import TAIL_BYTES, resolve
from nanstats.parquet.upgrading import remote
from nanstats.parquet.writing import write_table
from nanstats.prune.files import explain, pages, row_groups
from tests.counting_fs import counting

ROWS = 200_000


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    """A file of a few MB: a float column (page index written) and a larger string column."""
    path = tmp_path_factory.mktemp("remote") / "big.parquet"
    rng = np.random.default_rng(15)
    x = np.r_[np.arange(ROWS - 10, dtype=np.float64), np.full(10, np.nan)]
    s = [f"s{v:x}" for v in rng.integers(0, 1 << 62, ROWS)]
    write_table(pa.table({"x": x, "s": s}), str(path), row_group_size=50_000)
    return path


def _legacy(path) -> bytes:
    """A small file as pyarrow writes it (no nan_count): verify finds it wanting."""
    papq.write_table(pa.table({"x": [1.0, np.nan, 0.0, 4.0], "k": [1, 2, 3, 4]}), path,
                     write_page_index=True)
    return path.read_bytes()


def _put(s3, key: str, data: bytes) -> str:
    s3.client().put_object(Bucket=s3.bucket, Key=key, Body=data)
    return f"s3://{s3.bucket}/{key}"


def _objects(s3, prefix: str = "") -> list[str]:
    """The keys of the test bucket, without the zero-byte folder markers
    (``b/``) pyarrow's S3 leaves when it deletes a key (our temporary one)."""
    keys = s3.keys(s3.bucket, prefix)
    assert not [k for k in keys if "nanstats-tmp" in k]
    return [k for k in keys if not k.endswith("/")]


def _counted(s3):
    return counting(resolve(f"s3://{s3.bucket}/").filesystem)


def test_inspect_reads_the_tail_and_the_magic_only(s3, big_file):
    uri = _put(s3, "lake/big.parquet", big_file.read_bytes())
    size = big_file.stat().st_size
    report = npq.inspect(uri)
    assert report.path == uri and report.num_rows == ROWS
    local = npq.inspect(str(big_file)).to_dict()
    assert report.to_dict() == {**local, "path": uri}
    fs, counter = _counted(s3)
    npq.inspect(f"{s3.bucket}/lake/big.parquet", filesystem=fs)
    # one open (the size), the first 4 bytes, the last 64 KiB (footer and page index)
    assert dict(counter.requests) == {"open": 1, "read": 2}
    assert counter.bytes_read == 4 + TAIL_BYTES
    assert counter.bytes_read * 50 < size


def test_pruning_reads_the_footer_and_page_index_only(s3, big_file):
    _put(s3, "lake/big.parquet", big_file.read_bytes())
    fs, counter = _counted(s3)
    key = f"{s3.bucket}/lake/big.parquet"
    assert row_groups(key, "x > 160000", filesystem=fs) == [3]
    assert counter.bytes_read == 4 + TAIL_BYTES and counter.requests["read"] == 2
    counter.reset()
    selection = pages(key, "x > 199000 and x < 199100", filesystem=fs)
    assert selection.ranges == pages(str(big_file), "x > 199000 and x < 199100").ranges
    assert selection.num_rows < 50_000
    assert counter.bytes_read == 4 + TAIL_BYTES and counter.requests["read"] == 2
    assert explain(f"s3://{key}", "x < 0").selection.num_rows == 0


def test_verify_reads_footer_page_index_and_float_chunks_only(s3, big_file, tmp_path):
    _put(s3, "lake/big.parquet", big_file.read_bytes())
    fs, counter = _counted(s3)
    assert npq.verify(f"{s3.bucket}/lake/big.parquet", filesystem=fs) == []
    meta = papq.ParquetFile(big_file).metadata
    floats = sum(meta.row_group(g).column(0).total_compressed_size
                 for g in range(meta.num_row_groups))
    strings = sum(meta.row_group(g).column(1).total_compressed_size
                  for g in range(meta.num_row_groups))
    # the string column is never read; each float chunk once (its page headers
    # parsed and its values decoded from the same bytes), one request a chunk
    assert counter.bytes_read <= floats + 4 + TAIL_BYTES < floats + strings
    assert counter.requests["read"] == 2 + meta.num_row_groups  # magic, tail, a chunk a group
    legacy = _put(s3, "lake/legacy.parquet", _legacy(tmp_path / "legacy.parquet"))
    found = npq.verify(legacy)
    assert found  # the same findings as of the local file, naming the URI
    assert [(v.kind, v.file) for v in found] == [
        (v.kind, legacy) for v in npq.verify(tmp_path / "legacy.parquet")]
    assert [p for p, _, _ in npq.verify_files([legacy])] == [legacy]


def test_read_table_with_a_predicate(s3, big_file):
    uri = _put(s3, "lake/big.parquet", big_file.read_bytes())
    got = npq.read_table(uri, "x > 199985")
    want = npq.read_table(str(big_file), "x > 199985")
    assert got.to_pandas().equals(want.to_pandas())  # NaN rows equal too
    assert got.num_rows == 4 + 10  # 199986..199989 and the NaNs
    assert npq.read_table(f"s3a://{s3.bucket}/lake/big.parquet", columns=["x"]).num_rows == ROWS


def test_read_table_reads_footer_and_page_index_once(s3, big_file):
    _put(s3, "lake/big.parquet", big_file.read_bytes())
    fs, counter = _counted(s3)
    got = npq.read_table(f"{s3.bucket}/lake/big.parquet", "x > 199985", filesystem=fs)
    assert got.num_rows == 14
    # The plan: one open, the magic, the last 64 KiB (footer and page index).  The
    # reader, given both: one open, then per column its dictionary page and one
    # run of pages (x's last pages; s's pages where the 14 rows are).
    assert dict(counter.requests) == {"open": 2, "read": 2 + 2 * 2}


def test_a_remote_reader_shared_by_threads_reads_right(s3, big_file):
    from concurrent.futures import ThreadPoolExecutor

    from nanstats.parquet.page_reader import SelectionReader
    from nanstats.prune.results import RowSelection

    uri = _put(s3, "lake/big.parquet", big_file.read_bytes())
    remote, local = SelectionReader(uri), SelectionReader(str(big_file))
    # Many small reads at once: each one a seek and a read of the shared file.
    selections = [RowSelection({g: ((a, a + 10), (a + 30_000, a + 30_010))}, ROWS)
                  for g in range(4) for a in range(0, 20_000, 1_000)] * 3
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between any two steps
    try:
        with ThreadPoolExecutor(8) as pool:
            got = list(pool.map(remote.read, selections))
    finally:
        sys.setswitchinterval(interval)
    for sel, table in zip(selections, got, strict=True):
        assert table.equals(local.read(sel))


def test_missing_keys_buckets_and_unknown_schemes_name_the_uri(s3):
    missing = f"s3://{s3.bucket}/lake/nope.parquet"
    with pytest.raises(FileNotFoundError, match="nope.parquet"):
        npq.inspect(missing)
    with pytest.raises(FileNotFoundError, match="no-such-bucket-15"):
        npq.verify("s3://no-such-bucket-15/x.parquet")
    with pytest.raises(ValueError, match="nosuch://b/x.parquet"):
        npq.read_table("nosuch://b/x.parquet", "x > 1")
    bad = _put(s3, "lake/bad.parquet", b"PAR1 not really a parquet file PAR1")
    with pytest.raises(ParquetFormatError, match=bad):
        npq.inspect(bad)


def test_an_unreachable_endpoint_fails_naming_the_uri(s3, monkeypatch, tmp_path):
    # A closed port: pyarrow's retries are bounded (an error, not a hang); the
    # subprocess' timeout makes sure of it.
    env = {**os.environ, "AWS_ENDPOINT_URL": "http://127.0.0.1:9"}
    uri = f"s3://{s3.bucket}/lake/a.parquet"
    done = subprocess.run([sys.executable, "-m", "nanstats", "inspect", uri],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 2, done.stderr
    assert uri in done.stderr and "Traceback" not in done.stderr


def test_fsspec_memory_urls_and_filesystem_keyword(tmp_path):
    import fsspec

    memory = fsspec.filesystem("memory")
    memory.pipe("/issue15/legacy.parquet", _legacy(tmp_path / "legacy.parquet"))
    uri = "memory://issue15/legacy.parquet"
    assert npq.inspect(uri).path == uri
    assert [v.kind for v in npq.verify(uri)] == \
        [v.kind for v in npq.verify(tmp_path / "legacy.parquet")]
    assert npq.inspect("/issue15/legacy.parquet", filesystem=memory).num_rows == 4
    report = npq.upgrade(uri, "memory://issue15/upgraded.parquet")
    assert report.src == uri and npq.verify("memory://issue15/upgraded.parquet") == []
    assert sorted(memory.ls("/issue15", detail=False)) == ["/issue15/legacy.parquet",
                                                           "/issue15/upgraded.parquet"]


def test_upgrade_between_object_store_and_local(s3, tmp_path):
    src = _put(s3, "a/legacy.parquet", _legacy(tmp_path / "legacy.parquet"))
    dst = f"s3://{s3.bucket}/b/legacy.parquet"
    report = npq.upgrade(src, dst)
    assert (report.src, report.dst, report.upgraded) == (src, dst, ("x",))
    assert npq.verify(dst) == []
    assert _objects(s3) == ["a/legacy.parquet", "b/legacy.parquet"]
    local = tmp_path / "down.parquet"
    npq.upgrade(src, local)  # remote to local
    assert papq.read_table(local).to_pandas().equals(
        papq.read_table(tmp_path / "legacy.parquet").to_pandas())
    npq.upgrade(local, f"s3a://{s3.bucket}/c/up.parquet")  # local to remote
    assert npq.verify(f"s3://{s3.bucket}/c/up.parquet") == []
    written = f"s3://{s3.bucket}/w/table.parquet"
    npq.write_table(pa.table({"x": [np.nan, 1.0]}), written)
    assert npq.verify(written) == [] and npq.inspect(written).num_rows == 2
    with pytest.raises(ValueError, match="same object"):
        npq.upgrade(dst, f"s3a://{s3.bucket}/b/legacy.parquet")
    with pytest.raises(FileNotFoundError, match="nope.parquet"):
        npq.upgrade(f"s3://{s3.bucket}/a/nope.parquet", tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists()


@pytest.mark.parametrize("existing", [False, True])
def test_a_failed_upload_leaves_no_object_and_no_temporary_key(s3, tmp_path, monkeypatch,
                                                               existing):
    src = _put(s3, "a/legacy.parquet", _legacy(tmp_path / "legacy.parquet"))
    dst = f"s3://{s3.bucket}/b/out.parquet"
    if existing:
        _put(s3, "b/out.parquet", b"the old object")
    real = remote._copy
    calls = []

    def failing(read, write):  # the upload fails after its first part is written
        if calls:
            write(read(10))
            raise OSError("connection reset while uploading")
        calls.append(1)
        return real(read, write)

    monkeypatch.setattr(remote, "_copy", failing)
    with pytest.raises(OSError, match="connection reset"):
        npq.upgrade(src, dst)
    expected = ["a/legacy.parquet"] + (["b/out.parquet"] if existing else [])
    assert _objects(s3) == expected  # no partial object, no temporary key
    if existing:
        body = s3.client().get_object(Bucket=s3.bucket, Key="b/out.parquet")["Body"].read()
        assert body == b"the old object"


def test_cli_verify_upgrade_inspect_prune_on_s3(s3, tmp_path, capsys):
    legacy = _legacy(tmp_path / "legacy.parquet")
    # (a _delta_log/ would make the folder a Delta table: tests/lake/test_tables.py)
    for key in ("lake/day=1/part-00000.parquet", "lake/day=2/part-00000", "lake/_SUCCESS",
                "lake/_spark_metadata/0", "lake/day=1/.part-00000.parquet.crc"):
        _put(s3, key, legacy if "part" in key and not key.endswith(".crc") else b"{}")
    lake = f"s3://{s3.bucket}/lake"
    assert main(["verify", lake, "--json", "--fail-on", "warning"]) == 1  # legacy: findings
    doc = json.loads(capsys.readouterr().out)
    assert [f["path"] for f in doc["files"]] == [f"{lake}/day=1/part-00000.parquet",
                                                  f"{lake}/day=2/part-00000"]
    assert main(["upgrade", lake, f"s3://{s3.bucket}/upgraded"]) == 0
    out = capsys.readouterr().out
    assert "2 of 2 file(s) upgraded" in out
    assert _objects(s3, "upgraded/") == ["upgraded/day=1/part-00000.parquet",
                                         "upgraded/day=2/part-00000"]
    assert main(["verify", f"s3://{s3.bucket}/upgraded"]) == 0
    assert "2 file(s) checked: no findings" in capsys.readouterr().out
    assert main(["upgrade", lake, f"s3://{s3.bucket}/upgraded"]) == 2  # both exist already
    assert "exists (--overwrite replaces it)" in capsys.readouterr().err
    assert main(["inspect", f"s3://{s3.bucket}/lake/day=*/*.parquet", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [f["path"] for f in doc["files"]] == [f"{lake}/day=1/part-00000.parquet"]
    assert main(["prune", lake, "--where", "x > 2"]) == 0
    assert "rows to read" in capsys.readouterr().out
    assert main(["inspect", f"s3://{s3.bucket}/nothing-here"]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    single = tmp_path / "single.parquet"
    assert main(["upgrade", f"{lake}/day=2/part-00000", str(single)]) == 0
    assert npq.verify(single) == []


def test_cli_upgrade_of_a_local_folder_to_s3(s3, tmp_path, capsys):
    lake = tmp_path / "lake"
    (lake / "day=1").mkdir(parents=True)
    _legacy(lake / "day=1" / "a.parquet")
    (lake / "_SUCCESS").write_bytes(b"")
    assert main(["upgrade", str(lake), f"s3://{s3.bucket}/up/"]) == 0
    assert _objects(s3) == ["up/day=1/a.parquet"]
    capsys.readouterr()
