"""StatsTable merging: the one exact merge of partial statistics, against the oracle."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nanstats
from nanstats.core.floats import DOUBLE, FLOAT
from nanstats.core.inputs import from_numpy
from nanstats.core.stats import ColumnStats, merge_stats, page_table
from nanstats.core.table import (
    KEY_EMPTY_MAX,
    KEY_EMPTY_MIN,
    PARTIAL_COLUMNS,
    StatsTable,
    empty_table,
    merge_into,
    merge_rows,
    page_starts_for,
    scan_chunks,
)
from nanstats.testing import oracle
from tests.strategies import Column, columns


def _oracle(col: Column, rows: list[int]) -> ColumnStats:
    """The oracle's statistics of the values at ``rows`` (in that order)."""
    valid = None if col.valid is None else [col.valid[i] for i in rows]
    return ColumnStats(**oracle.scope_stats(col.ft.physical_type, [col.bits[i] for i in rows],
                                            valid))


def _pages(col: Column) -> list[list[int]]:
    ends = [*col.page_starts[1:], len(col.bits)]
    return [list(range(a, b)) for a, b in zip(col.page_starts, ends, strict=True)]


def _cuts(data: st.DataObject, n: int) -> list[int]:
    """Sorted cut points in [0, n], repeats allowed (empty parts)."""
    inner = data.draw(st.lists(st.integers(0, n), max_size=6))
    return [0, *sorted(inner), n]


@given(columns(), st.data())
def test_merge_rows_by_segment_equals_the_oracle(col: Column, data: st.DataObject) -> None:
    table = page_table(col.values(), col.mask(), page_starts=col.page_starts)
    pages = _pages(col)
    # Any assignment of pages to segments, not only runs; some segments stay empty.
    k = data.draw(st.integers(1, len(pages) + 2))
    ids = data.draw(st.lists(st.integers(0, k - 1), min_size=len(pages), max_size=len(pages)))
    merged = merge_rows(table, ids, k)
    assert len(merged) == k
    for s in range(k):
        rows = [i for p, seg in zip(pages, ids, strict=True) if seg == s for i in p]
        assert ColumnStats.from_table(merged, s) == _oracle(col, rows)


@given(columns())
def test_merge_of_all_pages_is_the_whole(col: Column) -> None:
    table = page_table(col.values(), col.mask(), page_starts=col.page_starts)
    whole = _oracle(col, list(range(len(col.bits))))
    assert ColumnStats.from_table(merge_rows(table), 0) == whole
    # The general path (segment ids) agrees with the one-segment reduction.
    both = merge_rows(table, np.zeros(len(table), dtype=np.intp))
    assert (both.counts == merge_rows(table).counts).all()
    assert ColumnStats.from_table(both, 0) == whole
    assert merge_stats(nanstats.page_stats(col.values(), col.mask(),
                                           page_starts=col.page_starts)) == whole


@given(columns(), st.data())
def test_merge_stats_of_parts_equals_the_whole(col: Column, data: st.DataObject) -> None:
    values, mask = col.values(), col.mask()
    cuts = _cuts(data, len(values))
    parts = [nanstats.summary(values[a:b], None if mask is None else mask[a:b])
             for a, b in zip(cuts, cuts[1:], strict=False)]
    whole = _oracle(col, list(range(len(values))))
    assert merge_stats(parts) == whole
    assert merge_stats(parts[::-1]) == whole  # order does not matter
    merged = parts[0]
    for p in parts[1:]:
        merged = merged.merge(p)
    assert merged == whole


@given(columns(), st.data())
def test_scan_chunks_equals_the_oracle_pages(col: Column, data: st.DataObject) -> None:
    # Chunk boundaries anywhere: a page may span several chunks, chunks may be empty.
    values, mask = col.values(), col.mask()
    cuts = _cuts(data, len(values))
    chunks = [from_numpy(values[a:b], None if mask is None else mask[a:b])
              for a, b in zip(cuts, cuts[1:], strict=False)]
    table = scan_chunks(chunks, page_starts_for(len(values), page_starts=col.page_starts))
    got = [ColumnStats.from_table(table, i) for i in range(len(table))]
    assert got == [_oracle(col, rows) for rows in _pages(col)]


def test_merge_into_takes_repeated_rows() -> None:
    target = page_table(np.array([1.0, 2.0]), page_rows=1)
    parts = page_table(np.array([-5.0, np.nan, -np.nan, 9.0]), page_rows=1)
    merge_into(target, [0, 0, 0, 1], parts)
    a, b = ColumnStats.from_table(target, 0), ColumnStats.from_table(target, 1)
    assert (a.num_values, a.min, a.max, a.pos_nan_count, a.neg_nan_count) == (4, -5.0, 1.0, 1, 1)
    assert (b.num_values, b.min, b.max) == (2, 2.0, 9.0)


def test_empty_merges() -> None:
    none = StatsTable(DOUBLE, np.zeros((0, 4), np.int64), np.zeros((0, 4), np.int64))
    one = merge_rows(none)
    assert one.counts.tolist() == [[0, 0, 0, 0]]
    assert one.keys.tolist() == [[KEY_EMPTY_MIN, KEY_EMPTY_MAX, KEY_EMPTY_MIN, KEY_EMPTY_MAX]]
    assert ColumnStats.from_table(one, 0) == nanstats.summary(np.array([]))
    assert len(merge_rows(none, [])) == 0
    assert merge_rows(none, [], 3).keys.tolist() == empty_table(DOUBLE, 3).keys.tolist()


def test_merge_refuses_bad_input() -> None:
    t = page_table(np.array([1.0, 2.0]), page_rows=1)
    with pytest.raises(ValueError, match="one segment per row"):
        merge_rows(t, [0])
    with pytest.raises(ValueError, match="cannot merge FLOAT statistics into DOUBLE"):
        merge_into(t, [0], page_table(np.zeros(1, np.float32)))
    with pytest.raises(ValueError, match="the 8 columns"):
        StatsTable.from_columns(FLOAT, t.columns()[:7])


def test_partial_columns_describe_the_table() -> None:
    t = page_table(np.array([3.0, np.nan, -1.0]))
    assert [name for name, _ in PARTIAL_COLUMNS] == [
        "num_values", "null_count", "pos_nan_count", "neg_nan_count",
        "value_min_key", "value_max_key", "nan_min_key", "nan_max_key"]
    columns = dict(zip((name for name, _ in PARTIAL_COLUMNS), t.columns(), strict=True))
    assert columns["pos_nan_count"].tolist() == [1]
    assert columns["value_min_key"].tolist() == DOUBLE.bits_to_keys([0xBFF0000000000000]).tolist()
    back = StatsTable.from_columns(DOUBLE, t.columns())
    assert back.counts.tolist() == t.counts.tolist() and back.keys.tolist() == t.keys.tolist()
