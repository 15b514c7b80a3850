"""collection_paused: the cyclic collector off during upgrades, restored after."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

from nanstats.parquet.upgrading import gc_pause, upgrade
from nanstats.parquet.upgrading.gc_pause import collection_paused


def test_restores_the_state_it_found():
    assert gc.isenabled()
    with collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # it was off before: left off
    finally:
        gc.enable()


def test_restored_after_an_error():
    with pytest.raises(RuntimeError), collection_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_overlapping_blocks_in_threads_enable_it_once_the_last_ends():
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with collection_paused():
            first_in.set()
            second_in.wait(10)
        first_out.set()

    def second():
        first_in.wait(10)
        with collection_paused():
            second_in.set()
            first_out.wait(10)
            seen["inside after the first ended"] = gc.isenabled()
        seen["after both"] = gc.isenabled()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == {"inside after the first ended": False, "after both": True}
    assert gc_pause._holders == 0


def test_upgrade_pauses_the_collector_and_restores_it(tmp_path, monkeypatch):
    src, dst = str(tmp_path / "s.parquet"), str(tmp_path / "d.parquet")
    papq.write_table(pa.table({"x": np.arange(5.0)}), src)
    seen = []
    from nanstats.parquet.upgrading import layout

    real = layout.write_chunk

    def spy(w, ch):
        seen.append(gc.isenabled())
        return real(w, ch)

    monkeypatch.setattr(layout, "write_chunk", spy)
    upgrade(src, dst)
    assert seen and not any(seen)  # paused while every chunk was written
    assert gc.isenabled()
