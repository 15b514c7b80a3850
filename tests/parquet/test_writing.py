"""write_table: pyarrow writes, nanstats fixes the float statistics, one atomic call."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

from nanstats.metadata.footer import read_footer
from nanstats.metadata.page_index import read_page_index
from nanstats.metadata.pages import read_pages
from nanstats.parquet.upgrading import layout as layout_module
from nanstats.parquet.writing import write_table
from tests.parquet.test_upgrading import check_upgraded, sample_table, table_bits


@pytest.mark.parametrize("order", ["ieee754", "type_order"])
def test_write_table(tmp_path, order):
    t = sample_table()
    path = tmp_path / "t.parquet"
    report = write_table(t, path, order, max_rows_per_page=20, data_page_version="2.0",
                         compression="zstd")
    assert sorted(os.listdir(tmp_path)) == ["t.parquet"]  # no temporary file left
    assert table_bits(papq.read_table(path)).equals(table_bits(t))
    footer = read_footer(path)
    assert footer.column_order(0) == footer.column_order(1) == order
    assert report.upgraded == ("x", "y") and report.dst == str(path)
    with open(path, "rb") as f:
        pages = read_pages(f, footer, 0, 0)
        _, oi = read_page_index(f, footer, 0, 0)
        _, oi_int = read_page_index(f, footer, 0, 2)
    assert {p.type_name for p in pages if p.is_data} == {"DATA_PAGE_V2"}
    assert footer.chunk(0, 0).meta_data.codec == 6  # ZSTD: options reach pyarrow
    assert len(oi.page_locations) == 6
    assert oi_int is not None  # write_page_index=True by default: non-float columns too
    # Same statistics as pyarrow-then-upgrade.
    ref = tmp_path / "ref.parquet"
    papq.write_table(t, ref, max_rows_per_page=20, data_page_version="2.0", compression="zstd",
                     write_page_index=True)
    check_upgraded(str(ref), str(path), order)


def test_page_index_can_be_turned_off_for_non_float(tmp_path):
    path = tmp_path / "t.parquet"
    write_table(sample_table(), path, write_page_index=False)
    footer = read_footer(path)
    with open(path, "rb") as f:
        ci_x, oi_x = read_page_index(f, footer, 0, 0)
        ci_i, oi_i = read_page_index(f, footer, 0, 2)
    assert ci_x is not None and oi_x is not None  # float columns always get one
    assert ci_i is None and oi_i is None


def test_bad_input_leaves_nothing(tmp_path, monkeypatch):
    with pytest.raises(TypeError, match="pyarrow.Table"):
        write_table({"x": [1.0]}, tmp_path / "t.parquet")
    with pytest.raises(ValueError, match="order"):
        write_table(sample_table(), tmp_path / "t.parquet", "nan_first")
    with pytest.raises(TypeError):
        write_table(sample_table(), tmp_path / "t.parquet", no_such_option=1)
    assert os.listdir(tmp_path) == []

    def boom(*args, **kwargs):
        raise RuntimeError("stop")

    monkeypatch.setattr(layout_module, "write_chunk", boom)
    with pytest.raises(RuntimeError, match="stop"):
        write_table(sample_table(), tmp_path / "t.parquet")
    assert os.listdir(tmp_path) == []


def test_float16(tmp_path):
    h = np.array([1.0, 0.0, np.nan, -2.5], dtype=np.float16)
    t = pa.table({"h": pa.array(h, mask=np.array([False, True, False, False]))})
    path = tmp_path / "h.parquet"
    write_table(t, path)
    st = read_footer(path).chunk(0, 0).meta_data.statistics
    assert st.nan_count == 1 and st.null_count == 1
    assert np.frombuffer(st.min_value, np.float16)[0] == -2.5
    assert table_bits(papq.read_table(path)).equals(table_bits(t))
