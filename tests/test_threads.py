"""Scans split across threads give exactly the oracle's answer."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nanstats
from nanstats import threads
from nanstats.core.inputs import from_numpy
from nanstats.testing import oracle
from tests.strategies import Column, columns
from tests.test_kernels import as_dict


@pytest.fixture
def small_threshold(monkeypatch):
    """Split any scan of 256 rows or more across two threads."""
    monkeypatch.setattr(threads, "PARALLEL_MIN_ROWS", 256)
    before = nanstats.set_threads(2)
    yield
    nanstats.set_threads(before)


def test_parts_follow_threshold_and_setting(small_threshold) -> None:
    assert threads.parts_for(255) == 1
    assert threads.parts_for(256) == 2
    assert threads.parts_for(10**9) == 2
    nanstats.set_threads(1)
    assert threads.parts_for(10**9) == 1


def oracle_pages(col: Column) -> list[dict]:
    return oracle.page_stats(col.ft.physical_type, col.bits, col.valid, col.page_starts)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # fixture is constant
@given(col=columns(max_size=700), arrow=st.booleans(), offset=st.integers(0, 9))
def test_split_scans_match_oracle(small_threshold, col: Column, arrow: bool,
                                  offset: int) -> None:
    # Few pages (split at 64-row groups, cut pages merged) and many pages
    # (split at page starts), numpy masks and Arrow bitmaps at odd offsets.
    values = col.values()
    if arrow:
        mask = None if col.valid is None else ~np.array(col.valid, bool)
        pad = np.zeros(offset, values.dtype)
        padmask = None if mask is None else np.r_[np.ones(offset, bool), mask]
        data = pa.array(np.r_[pad, values], mask=padmask).slice(offset)
        pages = nanstats.page_stats(data, page_starts=col.page_starts)
    else:
        pages = nanstats.page_stats(values, col.mask(), page_starts=col.page_starts)
    assert [as_dict(p) for p in pages] == oracle_pages(col)


def test_many_pages_split_at_page_starts(small_threshold) -> None:
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2**32, 5_000, dtype=np.uint64).astype(np.uint32)
    values = bits.view(np.float32)
    valid = rng.random(bits.size) > 0.2
    one = nanstats.page_stats(values, valid, page_rows=37)
    nanstats.set_threads(1)
    assert nanstats.page_stats(values, valid, page_rows=37) == one
    expected = oracle.page_stats("FLOAT", bits.tolist(), valid.tolist(),
                                 list(range(0, bits.size, 37)))
    assert [as_dict(p) for p in one] == expected


def test_set_threads_checks_its_argument() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        nanstats.set_threads(0)
    with pytest.raises(TypeError, match="int or None"):
        nanstats.set_threads(2.0)  # type: ignore[arg-type]
    before = nanstats.set_threads(None)
    assert nanstats.get_threads() >= 1
    nanstats.set_threads(before)


@pytest.mark.parametrize("text,message", [("two", "not a whole number"), ("0", "at least 1")])
def test_environment_variable_is_checked(monkeypatch, text: str, message: str) -> None:
    monkeypatch.setenv("NANSTATS_THREADS", text)
    with pytest.raises(ValueError, match=message):
        threads._from_environment()
    monkeypatch.setenv("NANSTATS_THREADS", "3")
    assert threads._from_environment() == 3


def test_slice_keeps_validity_in_step() -> None:
    values = np.arange(10.0)
    valid = np.arange(10) % 3 > 0
    for inp in (from_numpy(values, valid), from_numpy(values)):
        part = inp.slice(4, 9)
        assert part.bits.tolist() == values[4:9].view(np.uint64).tolist()
        assert nanstats.core.stats.ColumnStats.from_table(
            nanstats.core.table.scan(part, np.zeros(1, np.int64)), 0
        ) == nanstats.summary(values[4:9], None if inp.validity.size == 0 else valid[4:9])
    with pytest.raises(ValueError, match="not within"):
        from_numpy(values).slice(5, 11)


def test_set_threads_never_breaks_a_running_scan(small_threshold) -> None:
    # Issue 17 item 9: set_threads shut the shared pool down under scans in
    # other threads ("cannot schedule new futures after shutdown").
    import threading

    values = np.random.default_rng(0).standard_normal(4096)
    expected = nanstats.summary(values)
    errors: list[BaseException] = []

    def scan() -> None:
        try:
            for _ in range(200):  # each scan is split into 8 or 9 parts
                assert nanstats.summary(values) == expected
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    scanners = [threading.Thread(target=scan) for _ in range(4)]
    for t in scanners:
        t.start()
    i = 0
    while any(t.is_alive() for t in scanners):
        nanstats.set_threads(8 + i % 2)
        i += 1
    for t in scanners:
        t.join()
    assert not errors, errors[0]
