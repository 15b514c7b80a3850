"""Every upgrade these tests make is made twice: native system calls and portable stand-ins.

macOS and Windows lack calls the upgrade uses on Linux (``pread``, ``writev``,
``fdatasync``, ``copy_file_range``, the memory map) and run stand-ins instead
(:mod:`nanstats.parquet.upgrading.io_calls`).  So that the stand-ins are
tested by every upgrade test here, each upgrade that succeeds is repeated
with the calls that were not chosen (the portable ones; the native ones when
``NANSTATS_PORTABLE_IO=1`` forced the portable calls) into a folder of its
own, and both must write the same bytes and the same report.  A failing
upgrade is not repeated: tests that make one fail count their calls.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nanstats.parquet.upgrading import run
from nanstats.parquet.upgrading.io_calls import io_calls

#: A folder in memory where there is one: fsync costs nothing there (the repetition
#: would otherwise double the suite's time spent waiting for the disk).
_MEMORY_FOLDER = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) \
    else None

#: The sources of the upgrades repeated with the other calls (test_io_calls.py reads it).
crosschecked: list[str] = []


@pytest.fixture(autouse=True)
def upgrade_with_both_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    real = run._upgrade_with

    def both(src: str, dst: str, settings: Any, progress: Any, memory_map: bool,
             calls: Any) -> Any:
        report = real(src, dst, settings, progress, memory_map, calls)
        portable = io_calls(portable=True)
        other = io_calls(portable=False) if calls == portable else portable
        with tempfile.TemporaryDirectory(dir=_MEMORY_FOLDER) as folder:
            again = os.path.join(folder, os.path.basename(dst))
            other_report = real(src, again, settings, None, memory_map, other)
            assert Path(again).read_bytes() == Path(dst).read_bytes(), \
                f"{src}: {other} wrote other bytes than {calls}"
            assert dataclasses.replace(other_report, dst=dst) == report
        crosschecked.append(src)
        return report

    monkeypatch.setattr(run, "_upgrade_with", both)
    yield
