"""recompute: chunk and page statistics from the decoded values, one kernel pass."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanstats
from nanstats.core.stats import page_table
from nanstats.errors import ParquetFormatError, UnsupportedParquetError
from nanstats.metadata.footer import read_footer
from nanstats.metadata.page_index import read_page_index
from nanstats.metadata.pages import read_pages
from nanstats.parquet.recompute import (
    chunk_array,
    chunk_stats_of,
    leaf_arrays,
    page_row_starts,
    recompute,
    stats_for_array,
)
from tests.parquet.test_upgrading import patch_offset_index


def write(tmp_path, table, name="t.parquet", **options) -> str:
    path = str(tmp_path / name)
    papq.write_table(table, path, **options)
    return path


def run(path, g=0, leaf=0):
    footer = read_footer(path)
    with open(path, "rb") as f:
        return recompute(papq.ParquetFile(path), footer, f, g, leaf)


def values_with_nans(n: int, seed: int = 0, dtype=np.float64) -> pa.Array:
    rng = np.random.default_rng(seed)
    v = rng.normal(size=n).astype(dtype)
    v[rng.random(n) < 0.2] = np.nan
    bits = v.view(f"u{np.dtype(dtype).itemsize}")
    bits[rng.random(n) < 0.1] |= np.array(1 << (8 * np.dtype(dtype).itemsize - 1),
                                          dtype=bits.dtype)  # some negative values and -NaN
    return pa.array(v, mask=rng.random(n) < 0.15)


@pytest.mark.parametrize("page_index", [True, False])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_matches_page_stats(tmp_path, page_index, version):
    x = values_with_nans(300)
    path = write(tmp_path, pa.table({"x": x}), max_rows_per_page=37, row_group_size=200,
                 write_page_index=page_index, data_page_version=version)
    for g, (lo, hi) in enumerate([(0, 200), (200, 300)]):
        cs = run(path, g)
        part = x.slice(lo, hi - lo)
        want_starts = np.arange(0, hi - lo, 37)
        assert cs.page_starts.tolist() == want_starts.tolist()
        assert cs.chunk == nanstats.summary(part)
        assert [cs.page(i) for i in range(len(cs.pages))] == \
            nanstats.page_stats(part, page_starts=want_starts)
        assert (cs.offset_index is not None) == page_index
        assert sum(p.is_data for p in cs.pages_list) == len(want_starts)


def test_float16_float32(tmp_path):
    t = pa.table({"h": values_with_nans(50, 1, np.float16),
                  "f": values_with_nans(50, 2, np.float32)})
    path = write(tmp_path, t, max_rows_per_page=9)
    for leaf, name in enumerate(["h", "f"]):
        cs = run(path, 0, leaf)
        assert cs.chunk == nanstats.summary(t[name])
        assert cs.pages.float_type.physical_type == ("FLOAT16", "FLOAT")[leaf]


def test_struct_leaf_has_ancestor_nulls(tmp_path):
    inner = pa.array([1.0, None, float("nan"), 4.0, 5.0, -1.0])
    s = pa.StructArray.from_arrays([inner], ["a"], mask=pa.array([False, False, False, True,
                                                                   False, True]))
    outer = pa.StructArray.from_arrays([s], ["s"], mask=pa.array([False] * 4 + [True, False]))
    path = write(tmp_path, pa.table({"o": outer}), max_rows_per_page=2)
    footer = read_footer(path)
    assert footer.columns[0].name == "o.s.a"
    arr = chunk_array(papq.ParquetFile(path), footer, 0, 0)
    assert arr.is_null().to_pylist() == [False, True, False, True, True, True]
    cs = run(path)
    assert cs.chunk.null_count == 4 and cs.chunk.nan_count == 1
    assert cs.page_starts.tolist() == [0, 2, 4]
    assert cs.pages.null_count.tolist() == [1, 1, 2]


def test_leaf_arrays_many_leaves_in_one_struct(tmp_path):
    s = pa.StructArray.from_arrays([pa.array([1.0, 2.0]), pa.array([3.0, 4.0], pa.float32())],
                                   ["a", "b"], mask=pa.array([True, False]))
    path = write(tmp_path, pa.table({"s": s, "z": [5.0, 6.0]}))
    footer = read_footer(path)
    arrays = leaf_arrays(papq.ParquetFile(path), footer, 0, [0, 1, 2])
    assert [arrays[i].to_pylist() for i in range(3)] == [[None, 2.0], [None, 4.0], [5.0, 6.0]]


def test_repeated_and_non_float_refused(tmp_path):
    path = write(tmp_path, pa.table({"l": pa.array([[1.0], [2.0, 3.0]]), "i": [1, 2]}))
    with pytest.raises(UnsupportedParquetError, match="'l.list.element' is repeated"):
        run(path, 0, 0)
    footer = read_footer(path)
    with pytest.raises(UnsupportedParquetError, match="not a float column"):
        chunk_array(papq.ParquetFile(path), footer, 0, 1)


def test_page_row_starts():
    assert page_row_starts(None).tolist() == [0]
    assert page_row_starts([]).tolist() == [0]


def test_page_row_starts_from_headers_counts_nulls(tmp_path):
    x = pa.array([None, None, 1.0, None, 2.0, 3.0, None])
    path = write(tmp_path, pa.table({"x": x}), max_rows_per_page=3)
    footer = read_footer(path)
    with open(path, "rb") as f:
        pages = read_pages(f, footer, 0, 0)
        _, oi = read_page_index(f, footer, 0, 0)
    assert oi is None
    assert page_row_starts(pages).tolist() == [0, 3, 6]


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_headers_win_and_a_contradicting_offset_index_is_refused(tmp_path, version):
    """Page boundaries come from the headers; an OffsetIndex that says otherwise is an error."""
    path = write(tmp_path, pa.table({"x": np.arange(10.0)}), max_rows_per_page=4,
                 write_page_index=True, data_page_version=version)
    footer = read_footer(path)
    with open(path, "rb") as f:
        pages = read_pages(f, footer, 0, 0)
        _, oi = read_page_index(f, footer, 0, 0)
    assert page_row_starts(pages).tolist() == [0, 4, 8]
    oi.page_locations[1].first_row_index = 5
    cs = stats_for_array(pa.array(np.arange(10.0)), pages, oi, path=path, where="here")
    assert cs.page_starts.tolist() == [0, 4, 8]  # not the OffsetIndex's 5
    assert cs.page(1) == nanstats.summary(np.arange(4.0, 8.0))

    bad = str(tmp_path / "bad.parquet")
    patch_offset_index(path, bad, 0, 0, lambda oi: setattr(oi.page_locations[1],
                                                            "first_row_index", 5))
    # v2: the span of page 0 contradicts its num_rows first.
    message = (r"data page 1 .* starts at row 4 .* OffsetIndex says row 5" if version == "1.0"
               else r"OffsetIndex page 0 spans rows 0..5, but its DATA_PAGE_V2 header says 4")
    with pytest.raises(ParquetFormatError, match=r"row group 0, column 'x': " + message):
        run(bad)


def test_bad_page_boundaries(tmp_path):
    path = write(tmp_path, pa.table({"x": np.arange(10.0)}), max_rows_per_page=4,
                 write_page_index=True)
    footer = read_footer(path)
    with open(path, "rb") as f:
        pages = read_pages(f, footer, 0, 0)
        _, oi = read_page_index(f, footer, 0, 0)
    arr = pa.array(np.arange(10.0))
    with pytest.raises(ParquetFormatError, match="page boundaries"):
        stats_for_array(arr.slice(0, 5), pages, None, path=path, where="here")
    oi.page_locations.pop()
    with pytest.raises(ParquetFormatError, match="lists 2 pages"):
        stats_for_array(arr, pages, oi, path=path, where="here")


def test_chunk_stats_of_is_the_merge():
    v = np.array([3.0, np.nan, -np.nan, 1.0, -0.0, 0.0])
    t = page_table(v, page_rows=2)
    assert chunk_stats_of(t) == nanstats.summary(v)


@settings(max_examples=15, deadline=None)
@given(data=st.lists(st.one_of(st.none(), st.floats(allow_nan=True, width=32)), min_size=1,
                     max_size=60),
       rows=st.integers(1, 20), dictionary=st.booleans())
def test_hypothesis(tmp_path_factory, data, rows, dictionary):
    tmp_path = tmp_path_factory.mktemp("r")
    x = pa.array(data, pa.float32())
    path = write(tmp_path, pa.table({"x": x}), max_rows_per_page=rows, use_dictionary=dictionary)
    cs = run(path)
    starts = np.arange(0, len(data), rows)
    assert cs.chunk == nanstats.summary(x)
    assert [cs.page(i) for i in range(len(cs.pages))] == nanstats.page_stats(x, page_starts=starts)
