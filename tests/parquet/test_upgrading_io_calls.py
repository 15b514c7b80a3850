"""nanstats.parquet.upgrading.io_calls: native calls where the platform has them, portable
stand-ins where not or when forced, the same bytes either way.

Every upgrade made in tests/parquet is also repeated with the other calls and
compared byte for byte (tests/parquet/conftest.py); these tests check the
choice of calls and each stand-in on its own.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as papq
import pytest

from nanstats.parquet.upgrading import io_calls as io_module
from nanstats.parquet.upgrading import run, upgrade
from nanstats.parquet.upgrading import writer as writer_module
from nanstats.parquet.upgrading.io_calls import PORTABLE_IO_ENV, IOCalls, io_calls
from tests.parquet import conftest
from tests.parquet.test_upgrading import sample_table

LINUX_ONLY = ("pread", "preadv", "writev", "fdatasync", "copy_file_range", "O_TMPFILE")


def _sample(tmp_path: Path) -> str:
    src = str(tmp_path / "src.parquet")
    papq.write_table(sample_table(), src, max_rows_per_page=20, row_group_size=60,
                     write_page_index=True)
    return src


def test_native_where_the_platform_has_the_call():
    calls = io_calls(portable=False)
    assert (calls.pread, calls.preadv, calls.writev, calls.fdatasync, calls.copy_file_range,
            calls.unnamed_file) == tuple(hasattr(os, name) for name in LINUX_ONLY)
    assert calls.memory_map
    if sys.platform.startswith("linux"):
        assert calls == IOCalls(True, True, True, True, True, True, True)


def test_a_missing_call_gets_its_stand_in(tmp_path, monkeypatch):
    monkeypatch.delenv(PORTABLE_IO_ENV, raising=False)
    src = _sample(tmp_path)
    upgrade(src, tmp_path / "native.parquet")
    for name in LINUX_ONLY:
        monkeypatch.delattr(os, name, raising=False)
    assert io_calls() == IOCalls(False, False, False, False, False, True, False)
    upgrade(src, tmp_path / "without.parquet")
    assert (tmp_path / "without.parquet").read_bytes() == \
        (tmp_path / "native.parquet").read_bytes()


@pytest.mark.parametrize(("value", "portable"), [("1", True), ("true", True), (" YES ", True),
                                                 ("0", False), ("", False), ("no", False)])
def test_the_environment_variable(monkeypatch, value, portable):
    monkeypatch.setenv(PORTABLE_IO_ENV, value)
    assert (io_calls() == io_calls(portable=True)) is portable
    assert io_calls(portable=False).writev == hasattr(os, "writev")  # the argument wins


def test_a_bad_environment_variable(tmp_path, monkeypatch):
    monkeypatch.setenv(PORTABLE_IO_ENV, "sometimes")
    with pytest.raises(ValueError, match="NANSTATS_PORTABLE_IO='sometimes'"):
        upgrade(_sample(tmp_path), tmp_path / "dst.parquet")
    assert sorted(os.listdir(tmp_path)) == ["src.parquet"]


def test_forced_portable_calls_make_no_linux_only_call(tmp_path, monkeypatch):
    src = _sample(tmp_path)
    upgrade(src, tmp_path / "native.parquet")
    monkeypatch.setenv(PORTABLE_IO_ENV, "1")

    def linux_only(*args, **kwargs):
        raise AssertionError("a Linux-only call on the portable path")

    for name in LINUX_ONLY:
        if hasattr(os, name):
            monkeypatch.setattr(os, name, linux_only)
    monkeypatch.setattr(run, "map_source", linux_only)
    # Not repeated with the native calls here: they are the ones refused.
    monkeypatch.setattr(run, "_upgrade_with", _REAL_UPGRADE_WITH)
    upgrade(src, tmp_path / "portable.parquet")
    assert (tmp_path / "portable.parquet").read_bytes() == \
        (tmp_path / "native.parquet").read_bytes()


#: run._upgrade_with as the package has it (the conftest repeats upgrades only inside tests).
_REAL_UPGRADE_WITH = run._upgrade_with


@pytest.mark.parametrize("portable", [False, True])
def test_small_batches_and_large_copies(tmp_path, monkeypatch, portable):
    """Batches of a few hundred bytes: many writes, and pages copied by copy_file_range or
    read and written (the large-piece path), the same bytes as one batch."""
    src = _sample(tmp_path)
    upgrade(src, tmp_path / "one-batch.parquet")
    monkeypatch.setattr(writer_module, "_BATCH", 300)
    if portable:
        monkeypatch.setenv(PORTABLE_IO_ENV, "1")
    upgrade(src, tmp_path / "small.parquet", memory_map=False)
    upgrade(src, tmp_path / "small-mapped.parquet")
    want = (tmp_path / "one-batch.parquet").read_bytes()
    assert (tmp_path / "small.parquet").read_bytes() == want
    assert (tmp_path / "small-mapped.parquet").read_bytes() == want


def test_upgrades_here_are_repeated_with_the_other_calls(tmp_path):
    before = len(conftest.crosschecked)
    upgrade(_sample(tmp_path), tmp_path / "dst.parquet")
    assert len(conftest.crosschecked) == before + 1


@pytest.mark.parametrize("portable", [False, True])
def test_write_all_resumes_after_partial_writes(tmp_path, monkeypatch, portable):
    real_write, real_writev = os.write, getattr(os, "writev", None)
    monkeypatch.setattr(os, "write", lambda fd, b: real_write(fd, bytes(b)[:3]))
    if real_writev is not None:
        monkeypatch.setattr(os, "writev",
                            lambda fd, bufs: real_write(fd, b"".join(map(bytes, bufs))[:5]))
    path = tmp_path / "out"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | io_module.O_BINARY, 0o666)
    try:
        pieces = [b"abcdefg", b"", memoryview(b"hij"), bytearray(b"klmnopqrstu"), b"v"]
        io_calls(portable=portable).write_all(fd, pieces)
    finally:
        os.close(fd)
    assert path.read_bytes() == b"abcdefghijklmnopqrstuv"


def test_the_portable_reader_leaves_the_shared_position_alone(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(bytes(range(200)))
    with open(path, "rb") as f:
        f.seek(17)
        reader = io_calls(portable=True).open_reader(str(path), f.fileno())
        try:
            buffer = memoryview(bytearray(10))
            assert reader.read_into(buffer, 100) == 10 and bytes(buffer) == bytes(range(100, 110))
            assert reader.read(50, 180) == bytes(range(180, 200))  # short at the end
            assert reader.read(5, 300) == b""
            assert reader.fd == f.fileno()
        finally:
            reader.close()
        assert f.tell() == 17 and os.lseek(f.fileno(), 0, os.SEEK_CUR) == 17
        assert f.read(3) == bytes([17, 18, 19])


@pytest.mark.parametrize("portable", [False, True])
def test_syncs(tmp_path, monkeypatch, portable):
    done = []
    monkeypatch.setattr(os, "fsync", lambda fd: done.append("fsync"))
    monkeypatch.setattr(os, "fdatasync", lambda fd: done.append("fdatasync"), raising=False)
    calls = io_calls(portable=portable)
    calls.sync_data(0)
    calls.sync_file(0)
    want = "fsync" if portable or not hasattr(os, "fdatasync") else "fdatasync"
    if io_module._F_FULLFSYNC is None:
        assert done == [want, "fsync"]


def test_full_fsync_where_the_platform_has_it(monkeypatch):
    """macOS: F_FULLFSYNC makes the file durable, fsync when the file system refuses it."""
    fcntl = pytest.importorskip("fcntl")
    done = []

    def full_fsync(fd, op):
        done.append(("F_FULLFSYNC", op))
        if fd == 1:
            raise OSError("not supported here")

    monkeypatch.setattr(io_module, "_F_FULLFSYNC", 51)
    monkeypatch.setattr(fcntl, "fcntl", full_fsync)
    monkeypatch.setattr(os, "fsync", lambda fd: done.append(("fsync", fd)))
    io_calls().sync_file(0)
    assert done == [("F_FULLFSYNC", 51)]
    io_calls().sync_file(1)
    assert done[1:] == [("F_FULLFSYNC", 51), ("fsync", 1)]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
@pytest.mark.parametrize("source_mode", [0o600, 0o640, 0o644])
def test_the_output_keeps_the_sources_permissions(tmp_path, umask, source_mode):
    # Issue 17 item 10: a private source must not become world-readable.
    src = _sample(tmp_path)
    os.chmod(src, source_mode)
    old = os.umask(umask)
    try:
        upgrade(src, tmp_path / "dst.parquet")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "dst.parquet").st_mode) == source_mode


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_a_replaced_destination_keeps_its_stricter_permissions(tmp_path):
    src = _sample(tmp_path)
    os.chmod(src, 0o644)
    dst = tmp_path / "dst.parquet"
    dst.write_bytes(b"old")
    os.chmod(dst, 0o600)
    upgrade(src, dst)
    assert stat.S_IMODE(os.stat(dst).st_mode) == 0o600


def test_truncate_through_portable_calls(tmp_path, monkeypatch):
    src = str(tmp_path / "s.parquet")
    papq.write_table(pa.table({"s": [f"value {i:04d}" * 3 for i in range(500)]}), src,
                     data_page_size=512, write_page_index=True)
    upgrade(src, tmp_path / "native.parquet", truncate=8)
    monkeypatch.setenv(PORTABLE_IO_ENV, "1")
    upgrade(src, tmp_path / "portable.parquet", truncate=8)
    assert (tmp_path / "portable.parquet").read_bytes() == \
        (tmp_path / "native.parquet").read_bytes()


def test_write_all_is_linear_in_pieces(tmp_path, monkeypatch):
    """Issue 17 item 7: the pieces of a flush are walked by index; ``list.pop(0)``, which
    moves every remaining piece each time, made a flush quadratic in its pieces.  Counted,
    not timed: with a writev that takes one piece per call, no list is popped and the
    pieces handed over stay a bounded batch per call."""
    handed = []
    real = os.writev

    def one_at_a_time(fd, buffers):
        handed.append(len(buffers))
        return real(fd, buffers[:1])

    monkeypatch.setattr(io_module.os, "writev", one_at_a_time)
    calls = io_calls(portable=False)
    pops = []

    def watch(frame, event, arg):
        if event == "c_call" and getattr(arg, "__qualname__", "") == "list.pop":
            pops.append(1)

    for n in (10, 3000):
        handed.clear()
        path = tmp_path / f"{n}.bin"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT)
        pieces = [bytes([i % 251]) * 3 for i in range(n)]
        sys.setprofile(watch)
        try:
            calls.write_all(fd, pieces)
        finally:
            sys.setprofile(None)
            os.close(fd)
        assert path.read_bytes() == b"".join(pieces)
        assert len(handed) == n and max(handed) <= io_module._IOV_MAX
    assert pops == []


def test_upgrade_work_per_page_is_constant(tmp_path, monkeypatch):
    """Issue 17 item 7, counted: no Thrift structure decoded or encoded per page (the
    compiled walker reads the headers, statistics and page locations are encoded
    as columns), a handful of buffers per run of pages, the same per page at 100
    and at 2000 pages."""
    from nanstats.metadata import thrift
    from nanstats.metadata.thrift import RegionDecoder

    counts = {"decode": 0, "encode": 0, "writev_pieces": 0}
    real_decode, real_encode, real_writev = RegionDecoder.decode_from, thrift.encode_each, \
        os.writev

    def decode(self, *args, **kwargs):
        counts["decode"] += 1
        return real_decode(self, *args, **kwargs)

    def encode(objs):
        counts["encode"] += len(objs)
        return real_encode(objs)

    def writev(fd, buffers):
        counts["writev_pieces"] += len(buffers)
        return real_writev(fd, buffers)

    monkeypatch.setattr(RegionDecoder, "decode_from", decode)
    monkeypatch.setattr(thrift, "encode_each", encode)
    monkeypatch.setattr(io_module.os, "writev", writev)
    per_page = []
    for n in (100, 2000):
        src = str(tmp_path / f"{n}.parquet")
        papq.write_table(pa.table({"x": [float(i) for i in range(n)]}), src, data_page_size=1,
                         write_batch_size=1, use_dictionary=False, write_page_index=True)
        for key in counts:
            counts[key] = 0
        run._upgrade_with(src, str(tmp_path / f"{n}-dst.parquet"),
                          run._Settings("ieee754", "safe", None), None, True,
                          io_calls(portable=False))
        per_page.append({k: v / n for k, v in counts.items()})
    small, large = per_page
    assert large["decode"] == 0 and large["encode"] == 0, large
    assert large["writev_pieces"] < 0.01, large  # one buffer per run of small pages
    for key in counts:  # nothing grows with the number of pages
        assert large[key] <= small[key] + 0.05, (key, small, large)
