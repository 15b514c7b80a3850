"""core.records: the one layout of statistics records, and their numpy columns."""

from __future__ import annotations

import ast
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nanstats
from nanstats.core import records
from nanstats.core.records import (
    BITS_FIELDS,
    INDEX_FIELDS,
    STATS_FIELDS,
    select,
    stats_columns,
)
from nanstats.core.stats import page_table
from tests.strategies import Column, columns


def _f64_bits(x: float) -> int:
    return int.from_bytes(struct.pack("<d", x), "little")


def test_the_layout() -> None:
    # Every face shows these columns in this order; tests of the faces compare them.
    assert [f.name for f in STATS_FIELDS] == [
        "physical_type", "num_values", "null_count", "nan_count", "pos_nan_count",
        "neg_nan_count", "min", "max", "min_bits", "max_bits"]
    assert [f.name for f in INDEX_FIELDS] == [
        "path", "row_group", "page", "column", "physical_type", "first_row", "num_values",
        "null_count", "nan_count", "pos_nan_count", "neg_nan_count", "min", "max",
        "min_bits", "max_bits"]
    assert [f.kind for f in STATS_FIELDS] == [
        "physical_type", *["count"] * 5, "value", "value", "bits", "bits"]
    assert [str(f.dtype) for f in INDEX_FIELDS[:6]] == [
        "object", "int32", "int32", "object", "object", "int64"]
    assert [f.name for f in select("bits", "physical_type")] == [
        "physical_type", "min_bits", "max_bits"]
    assert [f.bounded for f in STATS_FIELDS].count(True) == 4


def test_the_core_module_imports_no_face() -> None:
    tree = ast.parse(Path(records.__file__).read_text())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                for a in n.names}
    imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree)
                 if isinstance(n, ast.ImportFrom)}
    assert not imported & {"pyarrow", "pandas", "pyspark"}


@given(columns())
def test_columns_equal_the_column_stats(col: Column) -> None:
    table = page_table(col.values(), col.mask(), page_starts=col.page_starts)
    pages = nanstats.page_stats(col.values(), col.mask(), page_starts=col.page_starts)
    for cols in (stats_columns(table), stats_columns(pages)):
        assert len(cols) == len(pages)
        assert list(cols.columns) == [f.name for f in STATS_FIELDS]
        for f in STATS_FIELDS:
            assert cols[f.name].dtype == f.dtype
        assert cols.has_bounds.tolist() == [p.min_bits is not None for p in pages]
        lists = cols.to_pylists()
        for f in STATS_FIELDS:
            if f.kind == "value":  # NaN != NaN: compare the float64 bits
                got = [None if v is None else _f64_bits(v) for v in lists[f.name]]
                want = [None if getattr(p, f.name) is None else _f64_bits(getattr(p, f.name))
                        for p in pages]
            else:
                got, want = lists[f.name], [getattr(p, f.name) for p in pages]
            assert got == want, f.name


@given(st.lists(columns(max_size=20), min_size=0, max_size=6))
def test_mixed_types_keep_their_rows(cols: list[Column]) -> None:
    stats = [nanstats.summary(c.values(), c.mask()) for c in cols]
    got = stats_columns(stats).to_pylists(BITS_FIELDS, signed_bits=True)
    def signed(b: int | None) -> int | None:  # two's complement of a uint64
        return None if b is None else b - (1 << 64) if b >= 1 << 63 else b
    assert got["min_bits"] == [signed(s.min_bits) for s in stats]
    assert got["max_bits"] == [signed(s.max_bits) for s in stats]
    assert stats_columns(stats)["physical_type"].tolist() == [s.physical_type for s in stats]


def test_signed_bits_and_labels() -> None:
    v = np.array([-0.0, -np.nan])
    cols = stats_columns([nanstats.summary(v), nanstats.summary(np.ma.masked_all(2))])
    assert cols.to_pylists(BITS_FIELDS) == {"min_bits": [1 << 63, None],
                                            "max_bits": [1 << 63, None]}
    assert cols.to_pylists(BITS_FIELDS, signed_bits=True)["min_bits"] == [-(1 << 63), None]
    more = cols.with_columns(column=["a", "b"])
    assert more["column"].tolist() == ["a", "b"] and "column" not in cols.columns
    with pytest.raises(ValueError, match="column 'column' has shape"):
        cols.with_columns(column=["a"])
