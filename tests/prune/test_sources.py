"""Sources of statistics: exact ColumnStats, layers, a Parquet file; the protocol they share."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pytest

from nanstats.core.abstraction import ColumnAbstract
from nanstats.core.floats import float_key
from nanstats.core.rules import boundary_order
from nanstats.parquet.writing import write_table
from nanstats.prune.parquet_source import FileSource
from nanstats.prune.source import StatisticsSource
from nanstats.prune.sources import LayeredSource, StatsSource


@pytest.fixture
def file_source(tmp_path) -> FileSource:
    path = os.path.join(tmp_path, "t.parquet")
    write_table(pa.table({"x": np.arange(20.0), "z": np.arange(20.0)}), path,
                row_group_size=10, data_page_size=64, write_batch_size=5)
    return FileSource(path)


def test_every_source_satisfies_the_protocol(file_source) -> None:
    stats = StatsSource.from_arrays({"x": np.arange(4.0)}, row_group_rows=2, page_rows=1)
    for src in (stats, LayeredSource([stats]), LayeredSource([LayeredSource([stats])]),
                file_source):
        assert isinstance(src, StatisticsSource), src
    # has_column is declared: LayeredSource calls it on its layers.
    assert "has_column" in dir(StatisticsSource)


def test_stats_source_cuts_row_groups_and_pages() -> None:
    x = np.r_[np.arange(5.0), np.nan, -np.nan]
    src = StatsSource.from_arrays({"x": x}, row_group_rows=4, page_rows=2)
    assert src.num_row_groups == 2 and [src.num_rows(g) for g in (0, 1)] == [4, 3]
    assert src.chunk_env(1, ["x"])["x"] == ColumnAbstract("float", 4.0, 4.0, True, False,
                                                          True, True)
    ps = src.page_stats(1, "x")
    assert ps is not None and ps.starts == [0, 2]
    assert ps.abstracts[0] == ColumnAbstract("float", 4.0, 4.0, True, False, True, False)
    assert ps.abstracts[1] == ColumnAbstract.only_nan(pos=False)  # the page of -nan alone
    with pytest.raises(KeyError, match="no statistics for column 'y'"):
        src.chunk_env(0, ["y"])


@pytest.mark.parametrize(("values", "order"), [
    (np.arange(8.0), "ASCENDING"),
    (-np.arange(8.0), "DESCENDING"),
    (np.array([3.0, 4.0, 0.0, 1.0, 5.0, 6.0, 7.0, 8.0]), "UNORDERED"),
    (np.array([1.0, 1.0, 1.0, 1.0]), "ASCENDING"),
])
def test_stats_source_boundary_order_is_the_core_rule(values, order) -> None:
    src = StatsSource.from_arrays({"x": values}, row_group_rows=len(values), page_rows=2)
    ps = src.page_stats(0, "x")
    assert ps is not None and ps.boundary_order == order
    keys = [k for k in ps.keys if k is not None]
    assert boundary_order(np.array([k[0] for k in keys]), np.array([k[1] for k in keys])) == order
    assert keys[0] == (float_key(float(values[:2].min())), float_key(float(values[:2].max())))


def test_boundary_order_of_python_keys_bytes_and_big_ints() -> None:
    assert boundary_order([], []) == "ASCENDING"
    assert boundary_order([b"a", b"a\x00", b"b"], [b"a", b"a\x00", b"c"]) == "ASCENDING"
    assert boundary_order([b"a\x00", b"a"], [b"b", b"b"]) == "DESCENDING"  # zero byte kept
    assert boundary_order([2**64 - 1, 0], [2**64 - 1, 2**64]) == "UNORDERED"
    assert boundary_order([2**64 - 1, 0], [2**64 + 1, 2**64]) == "DESCENDING"
    assert boundary_order([-(2**63), 2**63], [0, 2**64]) == "ASCENDING"


def test_layered_source_takes_each_column_from_the_first_layer_that_has_it(
        file_source) -> None:
    exact = StatsSource.from_arrays({"x": np.arange(20.0) + 100}, row_group_rows=10,
                                    page_rows=10)
    layered = LayeredSource([exact, file_source])
    assert layered.num_row_groups == 2 and layered.num_rows(1) == 10
    env = layered.chunk_env(0, ["x", "z", "w"])
    assert env["x"] == ColumnAbstract.of_range(100.0, 109.0)  # from the exact statistics
    assert (env["z"].lo, env["z"].hi) == (0.0, 9.0)  # from the file
    assert env["w"] == ColumnAbstract.anything()  # no layer has it
    assert layered.page_stats(0, "w") is None
    assert len(layered.page_stats(0, "z").starts) == len(file_source.page_stats(0, "z").starts)
    assert layered.has_column(0, "z") and not layered.has_column(0, "w")
    assert LayeredSource([layered]).chunk_env(0, ["x"])["x"] == env["x"]


def test_file_source_names_missing_columns(file_source) -> None:
    with pytest.raises(KeyError, match="no column 'q'"):
        FileSource(file_source.path, {"q"})
    with pytest.raises(KeyError, match="no column 'q'"):
        file_source.chunk_env(0, ["q"])
