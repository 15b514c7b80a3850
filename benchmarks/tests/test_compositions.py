"""The compositions timed against nanstats give exactly nanstats' answers."""

from __future__ import annotations

import importlib.util
import json
import os
from types import ModuleType

import numpy as np
import pytest
from bench_support.compositions import COMPOSITIONS, numpy_page_stats, read_ceiling
from hypothesis import given, settings

import nanstats
from tests.strategies import Column, columns


@pytest.fixture(scope="module")
def compare() -> ModuleType:
    """benchmarks/compare.py, loaded once for the tests of its verdicts and
    its two modes."""
    path = os.path.join(os.path.dirname(__file__), "..", "compare.py")
    spec = importlib.util.spec_from_file_location("compare", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@settings(max_examples=80, deadline=None)  # the first example imports polars
@given(columns(max_size=120))
def test_every_composition_equals_nanstats(col: Column) -> None:
    values, valid = np.ascontiguousarray(col.values()), col.mask()
    expected = nanstats.summary(values, valid)
    for name, fn in COMPOSITIONS.items():
        assert fn(values, valid) == expected, name
    assert numpy_page_stats(values, valid, np.array(col.page_starts)) == nanstats.page_stats(
        values, valid, page_starts=col.page_starts)
    read_ceiling(values, valid)


def test_target_verdict_names_the_floor(compare: ModuleType) -> None:
    """A missed target says so; a floor measured below it is printed beside
    it, one at or above it is not (the target was then reachable)."""
    assert compare.verdict(0.75, 0.75) == "yes"
    assert compare.verdict(0.7499, 0.75) == "NO"
    assert compare.verdict(0.62, 0.75, floor=0.5912) == "NO (floor 0.59)"
    assert compare.verdict(0.70, 0.75, floor=0.75) == "NO"
    assert compare.verdict(0.60, 0.75, floor=0.62) == "NO (floor 0.62)"
    assert compare.verdict(1.17, 1.10, higher_is_better=False) == "NO"
    assert compare.verdict(1.17, 1.10, higher_is_better=False, floor=1.0) == "NO"
    assert compare.verdict(1.05, 1.10, higher_is_better=False, floor=1.2) == "yes"
    assert compare.verdict(3.0, None, floor=0.5) == "-"


def test_compare_script_runs_small(compare: ModuleType, capsys) -> None:
    compare.main(["--size", "5000", "--repeat", "1", "--page-rows", "1000", "--plain"])
    out = capsys.readouterr().out
    for method in ("nanstats", "numpy", "pyarrow", "polars", "read ceiling",
                   "Series.nanstats", "masked Float64", "pyarrow.Array", "compute UDF"):
        assert method in out, method
    assert out.count("float64") >= 2 and "float16" in out


def test_compare_targets_runs_small(compare: ModuleType, capsys, tmp_path) -> None:
    """The targets mode end to end on a small column, with float16's rows for
    +NaN only (the one-sign modes' case) among them."""
    figures = tmp_path / "targets.json"
    compare.main(["--targets", "--size", "20000", "--repeat", "1", "--plain",
                  "--dtype", "float16", "--json", str(figures)])
    out = capsys.readouterr().out
    assert "pages of 1,000 (Arrow nulls), x one summary" in out
    # Page costs come with the spread of their blocks; where the floor probes
    # run, the bool mask's floor is measured beside the ceiling.
    assert out.splitlines()[1].split(" | ") == ["dtype", "measure", "value", "spread", "target",
                                                "met"]
    page_row = next(line for line in out.splitlines() if "pages of 1,000 (no nulls)" in line)
    low, high = map(float, page_row.split(" | ")[3].split("-"))
    assert 0 < low <= float(page_row.split(" | ")[2]) <= high
    from bench_support import floor
    assert ("[floor] values and bool mask read" in out) == floor.available()
    # Each bool mask row's verdict against the floor measured in the same
    # run (full-precision figures from --json, as the table was made).
    rows = json.loads(figures.read_text())
    mask_floor = next((row["value"] for row in rows
                       if row["measure"].startswith("[floor] values and bool mask read")), None)
    mask_rows = [row for row in rows if "10% nulls (numpy bool mask" in row["measure"]
                 and not row["measure"].startswith("[portable]")]
    assert len(mask_rows) == len(nanstats._kernels.simd_levels()) - 1
    for row in mask_rows:
        assert row["met"] == compare.verdict(row["value"], compare.BYTES_TARGET,
                                             floor=mask_floor), row
    for level in nanstats._kernels.simd_levels():
        # The page costs again on the column's first values, from cache.
        for label in ("no nulls", "Arrow nulls"):
            row = next(line for line in out.splitlines()
                       if f"[{level}] in cache ({compare.CACHE_BYTES / 1e6:g} MB): pages of 1,000 "
                       f"({label}), x one summary" in line)
            low, high = map(float, row.split(" | ")[3].split("-"))
            assert 0 < low <= float(row.split(" | ")[2]) <= high
        assert f"[{level}] +NaN only, pages of 1,000 (Arrow nulls), x one summary" in out
        assert f"[{level}] +NaN only, 10% nulls (Arrow bitmap), fraction of ceiling" in out
