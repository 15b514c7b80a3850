"""The page-search study (benchmarks/page_search_study.py) on a few datasets."""

from __future__ import annotations

import doctest
import importlib.util
import math
import os
import sys

import pytest

PATH = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "page_search_study.py")


@pytest.fixture(scope="module")
def study():
    spec = importlib.util.spec_from_file_location("page_search_study", PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


@pytest.fixture(scope="module")
def rows(study):
    # run_study raises AssertionError if loose missed a page strict found, if
    # the two differ on exact bounds, or if any search missed the probe's pages.
    return study.run_study(50, seed=7)


def test_every_dataset_keeps_the_invariants(study, rows) -> None:
    assert len(rows) == 50
    for r in rows:
        assert 10 <= r.elemcount <= 10_000 and r.pagesize in study.PAGE_SIZES
        assert r.pagecount == math.ceil(r.elemcount / r.pagesize)
        strict, full, *truncated = r.matches
        assert strict == full  # exact bounds of sorted data: loose finds what strict finds
        assert full <= truncated[0] <= truncated[1] <= truncated[2]  # shorter, looser
        bound = 2 * math.ceil(math.log2(r.pagecount + 1))
        assert all(1 <= s <= bound for s in r.steps)


def test_averages_are_in_the_seeds_band(study, rows) -> None:
    s = study.summarize(rows)
    strict, full, t10, t5, t2 = s.steps
    assert 3 < strict <= full < 11
    assert full <= t10 <= t5 <= t2 < 14
    m_strict, m_full, m10, m5, m2 = s.matches
    assert 0.5 < m_strict == m_full < 1.2
    assert m_full <= m10 < 3 and m10 <= m5 < 8 and m5 <= m2 < 40


def test_a_miss_is_reported(study, monkeypatch) -> None:
    # The check is live: a search that drops the last candidate page is caught.
    real = study.search_pages

    def lossy(*args, **kwargs):
        r = real(*args, **kwargs)
        return type(r)(r.algorithm, r.pages[:-1], r.steps, r.page_count)

    monkeypatch.setattr(study, "search_pages", lossy)
    with pytest.raises(AssertionError, match="missed a page"):
        study.run_study(20, seed=7)


def test_table_and_doctests(study, rows) -> None:
    table = study.format_table(rows, shown=3)
    lines = table.splitlines()
    assert lines[0].split()[1:] == ["steps"] * 5 + ["matches"] * 5
    assert "[47 executions omitted]" in table
    assert lines[-1].split()[0] == "average" and len(lines[-1].split()) == 12
    assert doctest.testmod(study).failed == 0
