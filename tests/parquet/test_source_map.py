"""source_map: the memory-mapped source of upgrade, populated range by range."""

from __future__ import annotations

import ctypes
import errno
import os
import platform

import pytest

from nanstats.errors import ParquetFormatError
from nanstats.parquet import source_map
from nanstats.parquet.source_map import map_source


def _kernel_has_populate_read() -> bool:
    """Linux 5.14+ knows MADV_POPULATE_READ."""
    if not platform.system() == "Linux":
        return False
    major, minor = (int(p) for p in platform.release().split(".")[:2])
    return (major, minor) >= (5, 14)


def _file(tmp_path, data: bytes) -> str:
    path = str(tmp_path / "f.bin")
    with open(path, "wb") as f:
        f.write(data)
    return path


def test_maps_where_the_kernel_can_populate(tmp_path):
    path = _file(tmp_path, os.urandom(3 * 4096 + 123))
    source = map_source(path)
    assert (source is not None) == _kernel_has_populate_read()
    if source is not None:
        source.close()


@pytest.mark.skipif(not _kernel_has_populate_read(), reason="needs MADV_POPULATE_READ")
def test_view_populate_release(tmp_path):
    data = os.urandom(5 * 4096 + 77)
    source = map_source(_file(tmp_path, data))
    assert source is not None
    try:
        assert source.size == len(data)
        for start, length in [(0, 1), (4095, 2), (100, 9000), (len(data) - 5, 5), (7, 0)]:
            source.populate(start, length)
            assert source.view[start:start + length].tobytes() == data[start:start + length]
            source.release(start, length)  # whole pages inside only; bytes stay readable
            assert source.view[start:start + length].tobytes() == data[start:start + length]
        source.release(0, source.size)
        assert source.view.tobytes() == data
        with pytest.raises(ParquetFormatError, match="past the end of the file") as err:
            source.populate(len(data) - 3, 4)
        assert err.value.offset == len(data) - 3
        with pytest.raises(ParquetFormatError, match="past the end"):
            source.populate(-1, 2)
    finally:
        source.close()


@pytest.mark.skipif(not _kernel_has_populate_read(), reason="needs MADV_POPULATE_READ")
def test_truncated_meanwhile_is_an_error_not_a_crash(tmp_path):
    path = _file(tmp_path, os.urandom(8 * 4096))
    source = map_source(path)
    assert source is not None
    try:
        os.truncate(path, 2 * 4096)
        source.populate(0, 4096)  # still there
        with pytest.raises(ParquetFormatError, match="truncated while being upgraded") as err:
            source.populate(4 * 4096, 4096)
        assert err.value.offset == 4 * 4096
    finally:
        source.close()


def test_no_mapping_for_empty_missing_or_unsupported(tmp_path, monkeypatch):
    assert map_source(_file(tmp_path, b"")) is None
    assert map_source(str(tmp_path / "missing.parquet")) is None
    path = _file(tmp_path, b"PAR1" * 1000)

    def refuse(address, length, advice):  # an older kernel: EINVAL
        return -1

    monkeypatch.setattr(source_map, "_madvise", refuse)
    assert map_source(path) is None
    monkeypatch.setattr(source_map, "_madvise", None)
    assert map_source(path) is None


@pytest.mark.skipif(not _kernel_has_populate_read(), reason="needs MADV_POPULATE_READ")
def test_other_kernel_refusals_are_os_errors(tmp_path, monkeypatch):
    source = map_source(_file(tmp_path, os.urandom(4 * 4096)))
    assert source is not None

    def no_memory(address, length, advice):
        ctypes.set_errno(errno.ENOMEM)
        return -1

    try:
        monkeypatch.setattr(source_map, "_madvise", no_memory)
        with pytest.raises(OSError) as err:
            source.populate(0, 4096)
        assert err.value.errno == errno.ENOMEM and not isinstance(err.value, ParquetFormatError)
    finally:
        monkeypatch.undo()
        source.close()
