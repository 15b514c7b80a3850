"""``make demo`` until the Spark pipeline replaces it: it runs and tells the truth."""

from __future__ import annotations

import numpy as np
import pytest

import nanstats
from nanstats import demo


def test_sample_column_holds_every_hard_case() -> None:
    values, valid = demo.sample_column(40)
    bits = values.view(np.uint64)
    nan = np.isnan(values)
    assert (nan & (bits >> 63 == 1)).any() and (nan & (bits >> 63 == 0)).any()
    assert len(set(bits[nan].tolist())) > 2  # several payloads
    assert (bits == 0x8000000000000000).any() and (bits == 0).any()
    assert np.isinf(values).any() and (~valid).any()
    assert nan[10:20].all()  # an all-NaN page under 10-row pages


@pytest.mark.parametrize("n", [0, 1, 9, 21, 40, 123])
def test_sample_column_any_length(n: int) -> None:
    values, valid = demo.sample_column(n)
    assert values.shape == valid.shape == (n,)


def test_demo_prints_the_stats_it_computes(capsys: pytest.CaptureFixture[str]) -> None:
    demo.main(["--rows", "40", "--page-rows", "10"])
    out = capsys.readouterr().out
    values, valid = demo.sample_column(40)
    stats = nanstats.summary(values, valid)
    assert repr(stats) in out
    assert f"nan_count={stats.nan_count}" in out
    # ieee754 always indexes; the all-NaN page shows its NaN extremes.
    ieee = out.split("ColumnIndex, ieee754:")[1].split("Statistics,")[0]
    assert len([ln for ln in ieee.splitlines() if ln.strip()[:1].isdigit()]) == 4
    assert "-nan(0x" in ieee
    # Both type_order policies refuse: a page is all NaN.
    assert out.count("no column index:") == 2


def test_demo_rejects_a_bad_length() -> None:
    with pytest.raises(ValueError, match="n must be >= 0"):
        demo.sample_column(-1)
