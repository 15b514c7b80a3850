"""The source of an upgrade held still (issue 17 items 2 and 14).

A source rewritten in place (same size, new values) or truncated while it is
being upgraded must fail the upgrade with a Python exception -- never a
"successful" upgrade whose statistics describe other bytes, never SIGBUS
from the memory map -- and leave no destination behind.  The tests rewrite
and truncate the source from the upgrade's progress callback (this
process) and from another process while a subprocess upgrades it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

from nanstats.errors import NanstatsError, SourceChangedError
from nanstats.metadata.footer import read_footer
from nanstats.metadata.pages import read_pages
from nanstats.parquet.upgrading import source_guard, upgrade
from nanstats.parquet.upgrading.source_guard import SourceGuard

ROW_GROUPS = 6


def write_source(tmp_path, rows: int = 60_000) -> str:
    path = str(tmp_path / "src.parquet")
    rng = np.random.default_rng(0)
    papq.write_table(pa.table({"x": rng.normal(size=rows), "y": rng.normal(size=rows)}), path,
                     row_group_size=rows // ROW_GROUPS, use_dictionary=False,
                     compression="none", write_page_index=True)
    return path


def rewrite_last_row_group(path: str) -> None:
    """Same size, new values: the last row group's float payloads negated in place."""
    footer = read_footer(path)
    g = footer.num_row_groups - 1
    with open(path, "rb") as f:
        pages = [p for leaf in range(2) for p in read_pages(f, footer, g, leaf) if p.is_data]
    before = os.path.getsize(path)
    with open(path, "r+b") as f:
        for page in pages:
            f.seek(page.data_offset)
            values = np.frombuffer(f.read(page.compressed_page_size), np.uint8).copy()
            values[7::8] ^= 0x80  # the sign bit of every little-endian double
            f.seek(page.data_offset)
            f.write(values.tobytes())
    assert os.path.getsize(path) == before


def leftovers(tmp_path) -> list[str]:
    return sorted(os.listdir(tmp_path))


def test_guard_takes_a_lease_and_sees_a_writer_waiting(tmp_path):
    path = write_source(tmp_path, rows=600)
    with open(path, "rb") as f:
        guard = SourceGuard(path, f.fileno())
        assert guard.leased  # ext4/tmpfs on Linux, our own file, nobody writing it
        guard.check()
        # A writer (here with O_NONBLOCK, so that it does not wait) breaks the lease.
        with pytest.raises(BlockingIOError):
            os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        with pytest.raises(SourceChangedError, match="opened it for writing or truncated it"):
            guard.check()
        guard.release()
    with open(path, "ab"):  # released: a writer proceeds at once
        pass


def test_no_lease_while_someone_writes(tmp_path):
    path = write_source(tmp_path, rows=600)
    with open(path, "r+b"), open(path, "rb") as f:
        assert not SourceGuard(path, f.fileno()).leased


def test_guard_sees_a_rewrite_without_a_lease(tmp_path):
    path = write_source(tmp_path, rows=600)
    with open(path, "rb") as f:
        guard = SourceGuard(path, f.fileno(), lease=False)
        assert not guard.leased
        guard.check()
        rewrite_last_row_group(path)
        with pytest.raises(SourceChangedError, match="mtime_ns"):
            guard.check()


@pytest.mark.parametrize("memory_map", [True, False])
def test_writer_waiting_for_the_lease_fails_the_upgrade(tmp_path, memory_map):
    """Leased (mapped or pread): a writer opening the source mid-run stops the upgrade."""
    src = write_source(tmp_path)
    calls = []

    def progress(done, total):
        calls.append(done)
        if len(calls) == 1:
            with pytest.raises(BlockingIOError):  # it would wait until the upgrade stops
                os.open(src, os.O_WRONLY | os.O_NONBLOCK)

    with pytest.raises(SourceChangedError, match="src.parquet: the source changed while it "
                                                 "was being upgraded"):
        upgrade(src, tmp_path / "dst.parquet", memory_map=memory_map, progress=progress)
    assert leftovers(tmp_path) == ["src.parquet"]
    assert len(calls) < 2 * ROW_GROUPS


@pytest.mark.parametrize("memory_map", [True, False])
def test_rewrite_in_place_without_a_lease_fails_the_upgrade(tmp_path, monkeypatch, memory_map):
    """No lease (another owner's file, say): a same-size rewrite is still caught."""
    monkeypatch.setattr(source_guard, "_take_lease", lambda fd: False)
    src = write_source(tmp_path)
    calls = []

    def progress(done, total):
        calls.append(done)
        if len(calls) == 1:
            rewrite_last_row_group(src)

    with pytest.raises(SourceChangedError, match="size|mtime_ns|ctime_ns"):
        upgrade(src, tmp_path / "dst.parquet", memory_map=memory_map, progress=progress)
    assert leftovers(tmp_path) == ["src.parquet"]


def test_rewrite_after_the_last_copy_is_caught_before_the_rename(tmp_path, monkeypatch):
    """The last check runs after every byte is copied, just before the rename."""
    monkeypatch.setattr(source_guard, "_take_lease", lambda fd: False)
    src = write_source(tmp_path)
    size = os.path.getsize(src)

    def progress(done, total):
        if done == total == size:  # the final call: everything written but the rename
            rewrite_last_row_group(src)

    with pytest.raises(SourceChangedError):
        upgrade(src, tmp_path / "dst.parquet", progress=progress)
    assert leftovers(tmp_path) == ["src.parquet"]


def test_unchanged_source_upgrades_leased_and_not(tmp_path, monkeypatch):
    src = write_source(tmp_path)
    upgrade(src, tmp_path / "leased.parquet")
    monkeypatch.setattr(source_guard, "_take_lease", lambda fd: False)
    upgrade(src, tmp_path / "unleased.parquet")
    with open(tmp_path / "leased.parquet", "rb") as a, open(tmp_path / "unleased.parquet",
                                                            "rb") as b:
        assert a.read() == b.read()


# --------------------------------------------------------------------------- other processes

CHILD = textwrap.dedent("""
    import os, sys, time
    from nanstats.parquet.upgrading import upgrade

    src, dst, ready, go, memory_map = sys.argv[1:6]
    inode = os.stat(src).st_ino
    calls = []

    def writer_waits():
        with open("/proc/locks") as f:
            return any("BREAKING" in line and f":{inode} " in line for line in f)

    def progress(done, total):
        calls.append(done)
        if len(calls) != 1:
            return
        open(ready, "w").close()  # the parent may now truncate or rewrite the source
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if (go == "lease" and writer_waits()) or (go != "lease" and os.path.exists(go)):
                return
            time.sleep(0.01)
        sys.exit("the parent never touched the source")

    upgrade(src, dst, memory_map=memory_map == "1", progress=progress)
    print("upgraded without noticing")
""")


def run_child(tmp_path, src: str, memory_map: bool, go: str) -> subprocess.Popen[str]:
    ready = str(tmp_path / "ready")
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, src, str(tmp_path / "dst.parquet"), ready, go,
         "1" if memory_map else "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    deadline = time.monotonic() + 60
    while not os.path.exists(ready):
        if child.poll() is not None or time.monotonic() > deadline:
            child.kill()
            out, err = child.communicate()
            pytest.fail(f"the child did not start its upgrade: {out}{err}")
        time.sleep(0.01)
    os.unlink(ready)
    return child


def finish(child: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        _, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:  # pragma: no cover - only when the test fails
            child.kill()
            child.wait()
    return child.returncode, err


@pytest.mark.parametrize("memory_map", [True, False])
@pytest.mark.parametrize("change", ["truncate", "rewrite"])
def test_other_process_truncating_or_rewriting_a_leased_source(tmp_path, memory_map, change):
    """Item 14: truncation under the memory map is an exception in the upgrading process,
    never SIGBUS; item 2: so is a same-size rewrite.  The other process's truncate or
    open waits until the upgrade has stopped, then proceeds."""
    src = write_source(tmp_path)
    child = run_child(tmp_path, src, memory_map, "lease")
    try:
        if change == "truncate":
            os.truncate(src, 1000)  # waits for the child's lease
        else:
            rewrite_last_row_group(src)  # so does its open for writing
    finally:
        code, err = finish(child)
    assert code == 1, (code, err)  # a Python exception, not a signal (-SIGBUS)
    assert "SourceChangedError" in err and "opened it for writing or truncated it" in err, err
    assert "upgraded without noticing" not in err
    assert leftovers(tmp_path) == ["src.parquet"]
    if change == "truncate":
        assert os.path.getsize(src) == 1000


def test_truncated_without_a_lease_is_an_exception_not_a_signal(tmp_path):
    """A source already open for writing gets no lease, hence no memory map (pread):
    truncating it mid-run is a Python exception in the upgrading process."""
    src = write_source(tmp_path)
    go = str(tmp_path / "go")
    with open(src, "r+b") as holder:  # open for writing: the child cannot lease the file
        child = run_child(tmp_path, src, True, go)
        try:
            holder.truncate(1000)
            open(go, "w").close()
        finally:
            code, err = finish(child)
    assert code == 1 and code != -signal.SIGBUS, (code, err)
    assert "upgraded without noticing" not in err
    assert any(name in err for name in ("SourceChangedError", "ParquetFormatError")), err
    assert leftovers(tmp_path) == ["go", "src.parquet"]


def test_errors_are_nanstats_errors():
    assert issubclass(SourceChangedError, NanstatsError)
