"""lake.fs: every path argument's one entry (paths, URIs, filesystem=), ranged remote reads."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.fs as pafs
import pytest

from nanstats.lake.fs import (
    TAIL_BYTES,
    RemoteFile,
    join_path,
    relative_path,
    remote_errors,
    resolve,
)


def test_local_paths_and_file_uris(tmp_path):
    path = tmp_path / "odd lake" / "a.parquet"
    where = resolve(path)
    assert where.is_local and where.path == str(path) and where.uri == str(path)
    decoded = resolve("file://" + str(path).replace(" ", "%20"))
    assert decoded.path == str(path) and decoded.local_path == str(path)
    assert not where.exists()
    path.parent.mkdir()
    path.write_bytes(b"PAR1")
    assert where.exists() and not where.is_dir() and resolve(path.parent).is_dir()


def test_s3_aliases_keep_the_scheme_given_and_share_a_filesystem(s3):
    a = resolve(f"s3a://{s3.bucket}/lake/a.parquet")
    b = resolve(f"s3://{s3.bucket}/lake/b.parquet")
    n = resolve(f"s3n://{s3.bucket}/lake/")
    assert (a.path, a.uri) == (f"{s3.bucket}/lake/a.parquet", f"s3a://{s3.bucket}/lake/a.parquet")
    assert n.path == f"{s3.bucket}/lake"
    assert a.filesystem is b.filesystem is n.filesystem  # one per bucket, not per file
    assert isinstance(a.filesystem, pafs.S3FileSystem) and not a.is_local
    assert a.with_path(f"{s3.bucket}/x.parquet").uri == f"s3a://{s3.bucket}/x.parquet"
    spaced = resolve(f"s3://{s3.bucket}/odd%20lake/a b.parquet")
    assert spaced.path == f"{s3.bucket}/odd lake/a b.parquet"


def test_a_changed_environment_makes_a_new_filesystem(s3, monkeypatch):
    first = resolve(f"s3://{s3.bucket}/x").filesystem
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    assert resolve(f"s3://{s3.bucket}/x").filesystem is not first


def test_explicit_filesystems_pyarrow_and_fsspec(tmp_path):
    import fsspec

    memory = fsspec.filesystem("memory")
    memory.pipe("/fs-test/a.bin", b"0123456789")
    where = resolve("/fs-test/a.bin", filesystem=memory)
    assert where.uri == "memory://fs-test/a.bin" and where.exists()
    with where.open_reader() as f:
        f.seek(3)
        assert f.read(4) == b"3456"
    local = resolve(str(tmp_path), filesystem=pafs.LocalFileSystem())
    assert local.is_local and local.path == str(tmp_path)
    sub = resolve("a.bin", filesystem=pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem()))
    assert sub.uri == "subtree://a.bin" and not sub.is_local
    with pytest.raises(TypeError, match="filesystem= must be"):
        resolve("x", filesystem=object())
    with pytest.raises(TypeError, match="a path or URI is needed"):
        resolve(42)  # type: ignore[arg-type]


def test_unknown_schemes_name_the_uri():
    with pytest.raises(ValueError, match="nosuchscheme://b/k.*'nosuchscheme'"):
        resolve("nosuchscheme://b/k")


def test_remote_errors_name_the_uri(s3):
    missing = resolve(f"s3://{s3.bucket}/nope.parquet")
    with pytest.raises(FileNotFoundError) as info:
        missing.open_input_file()
    assert info.value.filename == missing.uri and "no such file" in str(info.value)
    with pytest.raises(OSError, match="s3://b/x: boom"), remote_errors(missing.with_path("b/x")):
        raise OSError("boom")
    local = resolve("/no/such/file")
    with pytest.raises(FileNotFoundError) as info, remote_errors(local):
        open(local.path, "rb")
    assert info.value.filename == "/no/such/file"  # local errors pass unchanged


def test_remote_file_reads_its_tail_once():
    data = bytes(range(256)) * 1024  # 256 KiB
    f = RemoteFile(pa.BufferReader(data), "mem://x")
    assert f.size() == len(data)
    f.seek(-8, os.SEEK_END)
    assert f.read(8) == data[-8:] and (f.requests, f.bytes_read) == (1, TAIL_BYTES)
    f.seek(len(data) - 1000)
    assert f.read(500) == data[-1000:-500] and f.requests == 1  # from the tail
    start = len(data) - TAIL_BYTES - 100
    f.seek(start)
    assert f.read(300) == data[start:start + 300]  # across the tail's start: 100 fetched
    assert (f.requests, f.bytes_read) == (2, TAIL_BYTES + 100)
    f.seek(10)
    assert f.read(5) == data[10:15] and f.tell() == 15 and f.requests == 3
    f.seek(len(data) + 5)
    assert f.read(10) == b""
    f.seek(-4, os.SEEK_CUR)
    assert f.tell() == len(data) + 1
    with pytest.raises(ValueError, match="negative"):
        f.seek(-1)
    small = RemoteFile(pa.BufferReader(b"PAR1xxxxPAR1"), "mem://small")
    assert small.read() == b"PAR1xxxxPAR1" and small.is_cached(0) and small.requests == 1


def test_join_and_relative_paths(tmp_path):
    assert join_path("s3://b/out", "d=1/a.parquet") == "s3://b/out/d=1/a.parquet"
    assert relative_path("s3://b/lake/d=1/a.parquet", "s3://b/lake") == "d=1/a.parquet"
    assert relative_path(str(tmp_path / "d=1" / "a.parquet"),
                         "file://" + str(tmp_path)) == "d=1/a.parquet"
    assert join_path(str(tmp_path), "d=1/a.parquet") == str(tmp_path / "d=1" / "a.parquet")


def test_file_cache_makes_again_when_the_file_changes(tmp_path) -> None:
    from nanstats.lake.fs import FileCache

    path = str(tmp_path / "a.bin")
    with open(path, "wb") as f:
        f.write(b"one")
    made = []
    cache = FileCache(lambda p: made.append(p) or len(made), limit=2)
    assert cache(path) == cache(path) == 1 and len(made) == 1
    with open(path, "ab") as f:  # grown: a new identity
        f.write(b"two")
    assert cache(path) == 2
    for i in range(3):  # past the limit the one used longest ago goes: never unbounded
        other = str(tmp_path / f"{i}.bin")
        open(other, "wb").close()
        cache(other)
        if i == 1:
            cache(str(tmp_path / "0.bin"))  # used again: kept, 1.bin goes next
    assert len(cache._kept) == 2
    before = len(made)
    cache(str(tmp_path / "0.bin"))
    assert len(made) == before  # still kept
    cache(str(tmp_path / "1.bin"))
    assert len(made) == before + 1  # dropped, made again
    with pytest.raises(FileNotFoundError):
        cache(str(tmp_path / "missing.bin"))
