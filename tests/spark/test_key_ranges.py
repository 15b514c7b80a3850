"""Key ranges hold every kept row; columns with nulls and unsigned columns are left out."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

from nanstats.metadata.footer import read_footer
from nanstats.prune.results import RowSelection
from nanstats.spark.key_ranges import (
    KeyRanges,
    _merge_intervals,
    file_key_ranges,
    key_columns,
    ranges_sql,
)


def _write(path, table, **kw) -> str:
    papq.write_table(table, path, row_group_size=200, data_page_size=64, write_batch_size=20,
                     write_page_index=True, **kw)
    return str(path)


@pytest.mark.parametrize("seed", range(5))
def test_every_kept_row_lies_in_a_range(tmp_path, seed) -> None:
    rng = np.random.default_rng(seed)
    n = 1000
    table = pa.table({"k": rng.integers(-1000, 1000, n).cumsum(), "s": np.sort(rng.integers(0, 9, n)),
                      "x": rng.normal(size=n)})
    path = _write(tmp_path / "a.parquet", table)
    ranges: dict[int, tuple[tuple[int, int], ...]] = {}
    for g in range(5):
        starts = sorted(rng.choice(200, 4, replace=False))
        runs = ((int(starts[0]), int(starts[1]) + 1), (int(starts[2]), int(starts[3]) + 1))
        if rng.random() < 0.7:
            ranges[g] = runs
    sel = RowSelection(ranges, n)
    for limit in (1, 2, 8):
        keys = file_key_ranges(path, sel, limit)
        if not ranges:
            continue
        assert keys is not None and len(keys.ranges) <= limit
        values = table.column(keys.column).to_numpy()
        for g, runs in ranges.items():
            for a, b in runs:
                for v in values[200 * g + a:200 * g + b]:
                    assert any(lo <= v <= hi for lo, hi in keys.ranges)
        assert 0 < keys.rows <= n


def test_columns_with_nulls_in_the_run_are_left_out(tmp_path) -> None:
    k = pa.array([None if i < 100 else i for i in range(400)], pa.int64())
    path = _write(tmp_path / "a.parquet", pa.table({"k": k, "m": np.arange(400, dtype=np.int32)}))
    assert file_key_ranges(path, RowSelection({0: ((0, 10),)}, 400)).column == "m"
    only = _write(tmp_path / "b.parquet", pa.table({"k": k}))
    assert file_key_ranges(only, RowSelection({0: ((0, 10),)}, 400)) is None
    assert file_key_ranges(only, RowSelection({1: ((0, 10),)}, 400)).ranges == ((200, 219),)


def test_only_signed_integers_are_keys(tmp_path) -> None:
    path = _write(tmp_path / "a.parquet", pa.table({
        "u": pa.array([1, 2], pa.uint64()), "d": pa.array([1, 2], pa.date32()),
        "s": ["a", "b"], "i8": pa.array([1, 2], pa.int8()), "x": [1.0, 2.0]}))
    assert [c.name for c in key_columns(read_footer(path))] == ["i8"]
    nothing = _write(tmp_path / "b.parquet", pa.table({"x": [1.0, 2.0]}))
    assert file_key_ranges(nothing, RowSelection({0: ((0, 1),)}, 2)) is None


def test_merging_closes_the_smallest_gaps() -> None:
    assert _merge_intervals([(0, 1), (10, 11), (3, 4), (100, 100)], 2) == ((0, 11), (100, 100))
    assert _merge_intervals([(0, 5), (6, 8)], 4) == ((0, 8),)


def test_sql_quotes_names_and_types_longs() -> None:
    sql = ranges_sql([KeyRanges("a`b", ((-(2**40), 3),), 0)])
    assert sql == "((`a``b` BETWEEN -1099511627776L AND 3))"


def test_a_rewritten_file_is_read_again(tmp_path) -> None:
    """Key pages are kept per file while it is unchanged: a rewrite is seen."""
    path = _write(tmp_path / "a.parquet", pa.table({"k": np.arange(1000), "x": np.zeros(1000)}))
    sel = RowSelection({0: ((0, 20),)}, 1000)
    first = file_key_ranges(path, sel)
    assert first is not None and first.ranges[0][0] == 0
    _write(tmp_path / "a.parquet", pa.table({"k": np.arange(5000, 6000, dtype=np.int64),
                                             "x": np.zeros(1000), "y": np.ones(1000)}))
    again = file_key_ranges(path, sel)
    assert again is not None and again.ranges[0][0] == 5000
