"""The per-profile tightness report on a small lake: counts add up, plans are checked."""

from __future__ import annotations

import os

import lake_tightness
import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

from nanstats.prune.results import RowSelection

QUERIES = ("t > 27", "is_nan(t)")


def small_lake(root: str) -> None:
    rng = np.random.default_rng(5)
    for day in range(2):
        t = rng.normal(20, 5, 4000)
        t[1000:1600] = np.nan  # whole pages of NaN, left out of pyarrow's bounds
        folder = os.path.join(root, f"day={day}")
        os.makedirs(folder)
        papq.write_table(pa.table({"t": t}), os.path.join(folder, "part-0.parquet"),
                         row_group_size=2000, data_page_size=1, write_batch_size=200,
                         write_page_index=True)


def test_counts_add_up_and_upgrade_skips_more(tmp_path) -> None:
    small_lake(str(tmp_path / "lake"))
    result = lake_tightness.measure(str(tmp_path / "lake"), str(tmp_path / "up"), QUERIES,
                                    ("spark", "numpy"))
    for tally in result.values():
        assert 0 <= tally.pages_skipped <= tally.pages == 40  # 2 files x 20 pages of t
        assert 0 <= tally.rows_skipped <= tally.rows == 8000
    # pyarrow's bounds leave NaN out and it writes no nan_count: nothing can be
    # skipped for is_nan; the upgraded files count NaN per page.
    assert result["is_nan(t)", "spark", "legacy"].pages_skipped == 0
    assert result["is_nan(t)", "spark", "nanstats"].pages_skipped == 34
    text = lake_tightness.render(result, QUERIES, ("spark", "numpy"))
    assert "0% / 85%" in text


def test_an_unsound_plan_stops_the_report(tmp_path, monkeypatch) -> None:
    small_lake(str(tmp_path / "lake"))
    monkeypatch.setattr(lake_tightness, "plan_pages",
                        lambda path, pred, semantics: RowSelection({}, 4000))
    with pytest.raises(AssertionError, match="UNSOUND"):
        lake_tightness.measure(str(tmp_path / "lake"), str(tmp_path / "up"), QUERIES, ("spark",))
