"""The upgrade's new file: unnamed while written (O_TMPFILE), or named and cleaned up after a
crash (issue 17 item 11).

A subprocess upgrading a file is killed with SIGKILL in the middle; the
folder must then hold no partial destination and, with an unnamed file,
nothing at all; with a named temporary file (the portable calls), the next
upgrade into the folder removes it and says so.
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

from nanstats.parquet.upgrading import upgrade
from nanstats.parquet.upgrading import writer as writer_module
from nanstats.parquet.upgrading.io_calls import PORTABLE_IO_ENV, io_calls
from nanstats.parquet.upgrading.writer import (
    STALE_AFTER_SECONDS,
    TEMPORARY_SUFFIX,
    new_file,
    remove_stale_temporaries,
)

CHILD = textwrap.dedent("""
    import sys, time
    from nanstats.parquet.upgrading import upgrade

    src, dst, ready = sys.argv[1:4]

    def progress(done, total):
        open(ready, "w").close()
        time.sleep(600)  # until killed

    upgrade(src, dst, progress=progress)
""")


def write_source(tmp_path) -> str:
    path = str(tmp_path / "src.parquet")
    rng = np.random.default_rng(0)
    papq.write_table(pa.table({"x": rng.normal(size=20_000)}), path, row_group_size=5_000)
    return path


def temporaries(folder) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.endswith(TEMPORARY_SUFFIX))


def upgrade_then_kill(tmp_path, src: str, portable: bool) -> tuple[int, list[str]]:
    """Start an upgrade in a subprocess, SIGKILL it mid-run; (its pid, the temporary
    files seen while it ran)."""
    ready = str(tmp_path / "ready")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path),
           PORTABLE_IO_ENV: "1" if portable else "0"}
    child = subprocess.Popen([sys.executable, "-c", CHILD, src, str(tmp_path / "dst.parquet"),
                              ready], env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(ready):
            assert child.poll() is None, child.communicate()[1]
            assert time.monotonic() < deadline, "the child never reported progress"
            time.sleep(0.01)
        seen = temporaries(tmp_path)
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate()
    assert child.returncode == -signal.SIGKILL
    os.unlink(ready)
    return child.pid, seen


def test_killed_upgrade_with_an_unnamed_file_leaves_nothing(tmp_path):
    if not io_calls(portable=False).unnamed_file:  # pragma: no cover - not Linux
        pytest.skip("O_TMPFILE is Linux's")
    src = write_source(tmp_path)
    _, seen = upgrade_then_kill(tmp_path, src, portable=False)
    assert seen == []  # written, but under no name
    assert sorted(os.listdir(tmp_path)) == ["src.parquet"]
    report = upgrade(src, tmp_path / "dst.parquet")  # the retry
    assert report.notes == ()
    assert sorted(os.listdir(tmp_path)) == ["dst.parquet", "src.parquet"]


def test_killed_upgrade_with_a_named_file_is_cleaned_by_the_next(tmp_path):
    src = write_source(tmp_path)
    pid, seen = upgrade_then_kill(tmp_path, src, portable=True)
    assert len(seen) == 1 and seen[0].startswith(".dst.parquet.") and f".{pid}." in seen[0]
    assert sorted(os.listdir(tmp_path)) == [seen[0], "src.parquet"]  # no partial dst
    report = upgrade(src, tmp_path / "dst.parquet")  # the retry, into the same folder
    assert report.notes == (f"removed a stale temporary file: {tmp_path / seen[0]} (left by "
                            f"process {pid}, which no longer runs)",)
    assert sorted(os.listdir(tmp_path)) == ["dst.parquet", "src.parquet"]
    assert papq.read_table(tmp_path / "dst.parquet").equals(papq.read_table(src))


def test_only_provably_stale_temporaries_are_removed(tmp_path):
    host = writer_module._host_tag()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(dead.stdout)
    names = {
        "dead": f".a.parquet.{host}.{dead_pid}.0123abcd{TEMPORARY_SUFFIX}",
        "alive": f".b.parquet.{host}.{os.getpid()}.0123abcd{TEMPORARY_SUFFIX}",
        "elsewhere": f".c.parquet.another-host.{dead_pid}.0123abcd{TEMPORARY_SUFFIX}",
        "old_style": f".d.parquet.0123abcd{TEMPORARY_SUFFIX}",
        "not_ours": "e.parquet.nanstats-tmp",  # no leading dot: not a name we make
        "data": "f.parquet",
    }
    for name in names.values():
        (tmp_path / name).write_bytes(b"x")
    (tmp_path / f".g.{host}.{dead_pid}.0123abcd{TEMPORARY_SUFFIX}").mkdir()  # not a file
    notes = remove_stale_temporaries(str(tmp_path), force=True)
    assert [n.split(" (")[1] for n in notes] == [f"left by process {dead_pid}, which no "
                                                 "longer runs)"]
    left = set(os.listdir(tmp_path))
    assert names["dead"] not in left
    assert {names[k] for k in ("alive", "elsewhere", "old_style", "not_ours", "data")} <= left
    # A day later, whoever wrote them: stale (this process's own ones included).
    later = time.time() + STALE_AFTER_SECONDS + 3600
    notes = remove_stale_temporaries(str(tmp_path), now=later, force=True)
    assert sorted(n.split(": ")[1].split(" (")[0] for n in notes) == sorted(
        str(tmp_path / names[k]) for k in ("alive", "elsewhere", "old_style"))
    assert all("untouched for 25 hours" in n for n in notes)
    assert sorted(os.listdir(tmp_path)) == sorted(
        [names["not_ours"], names["data"], f".g.{host}.{dead_pid}.0123abcd{TEMPORARY_SUFFIX}"])


def test_a_folder_is_looked_at_once_in_a_while(tmp_path):
    host = writer_module._host_tag()
    stale = tmp_path / f".a.parquet.{host}.999999999.0123abcd{TEMPORARY_SUFFIX}"
    stale.write_bytes(b"x")
    assert len(remove_stale_temporaries(str(tmp_path))) == 1
    stale.write_bytes(b"x")
    assert remove_stale_temporaries(str(tmp_path)) == []  # looked at a moment ago
    assert len(remove_stale_temporaries(str(tmp_path), force=True)) == 1


@pytest.mark.parametrize("portable", [False, True])
def test_new_file_names_the_file_only_when_complete(tmp_path, portable):
    calls = io_calls(portable=portable)
    dst = tmp_path / "dst"
    with new_file(str(dst), calls, 0o640) as fd:
        os.write(fd, b"data")
        named = temporaries(tmp_path)
        assert len(named) == (0 if calls.unnamed_file else 1)
        assert not dst.exists()
    assert dst.read_bytes() == b"data" and temporaries(tmp_path) == []
    assert oct(os.stat(dst).st_mode & 0o777) == "0o640"
    with pytest.raises(RuntimeError), new_file(str(dst), calls) as fd:
        os.write(fd, b"other")
        raise RuntimeError("stop")
    assert dst.read_bytes() == b"data" and sorted(os.listdir(tmp_path)) == ["dst"]
