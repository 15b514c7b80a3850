"""The compositions timed against nanstats give exactly nanstats' answers."""

from __future__ import annotations

import importlib.util
import os

import numpy as np
from bench_support.compositions import COMPOSITIONS, numpy_page_stats, read_ceiling
from hypothesis import given, settings

import nanstats
from tests.strategies import Column, columns


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


def test_compare_script_runs_small(capsys) -> None:
    path = os.path.join(os.path.dirname(__file__), "..", "compare.py")
    spec = importlib.util.spec_from_file_location("compare", path)
    assert spec is not None and spec.loader is not None
    compare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compare)
    compare.main(["--size", "5000", "--repeat", "1", "--page-rows", "1000", "--plain"])
    out = capsys.readouterr().out
    for method in ("nanstats", "numpy", "pyarrow", "polars", "read ceiling",
                   "Series.nanstats", "masked Float64", "pyarrow.Array", "compute UDF"):
        assert method in out, method
    assert out.count("float64") >= 2 and "float16" in out


def test_compare_targets_runs_small(capsys) -> None:
    """The targets mode end to end on a small column, with float16's rows for
    +NaN only (the one-sign modes' case) among them."""
    path = os.path.join(os.path.dirname(__file__), "..", "compare.py")
    spec = importlib.util.spec_from_file_location("compare", path)
    assert spec is not None and spec.loader is not None
    compare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compare)
    compare.main(["--targets", "--size", "20000", "--repeat", "1", "--plain",
                  "--dtype", "float16"])
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
    # A bool mask target missed where the measured floor lies below it says so.
    floor_row = next((line for line in out.splitlines()
                      if "[floor] values and bool mask read" in line), None)
    mask_floor = None if floor_row is None else float(floor_row.split(" | ")[2])
    for line in out.splitlines():
        if "10% nulls (numpy bool mask" not in line or "[portable]" in line:
            continue
        value, met = float(line.split(" | ")[2]), line.split(" | ")[5]
        if value >= compare.BYTES_TARGET:
            assert met == "yes", line
        elif mask_floor is not None and mask_floor < compare.BYTES_TARGET:
            assert met == f"NO (floor {mask_floor:.2f})", line
        else:
            assert met == "NO", line
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
