"""inspect: footer and page index only, any writer, both column orders."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq

from nanstats.metadata.footer import read_footer
from nanstats.parquet.inspection import inspect
from nanstats.parquet.upgrading import upgrade


def _file(tmp_path):
    x = np.r_[np.arange(10.0), np.full(10, np.nan), [-0.0] * 5, np.arange(5.0)]
    x[12] = -np.nan
    table = pa.table({"x": x, "s": [str(i) for i in range(len(x))]})
    path = tmp_path / "src.parquet"
    papq.write_table(table, path, data_page_size=1, write_batch_size=10, write_page_index=True,
                     use_dictionary=False)
    return path


def test_pyarrow_file(tmp_path) -> None:
    report = inspect(_file(tmp_path))
    assert [c.name for c in report.columns] == ["x"]
    chunk = report.columns[0].row_groups[0]
    assert report.columns[0].column_order == "type_order"
    assert chunk.statistics is not None and chunk.statistics.nan_count is None
    assert chunk.offset_index and [p.first_row for p in chunk.pages] == [0, 10, 20]
    json.dumps(report.to_dict())
    assert "nan_count=absent" in str(report)


def test_upgraded_file_shows_ieee_bounds_and_nan_counts(tmp_path) -> None:
    src = _file(tmp_path)
    dst = tmp_path / "dst.parquet"
    upgrade(src, dst)
    report = inspect(dst)
    col = report.columns[0]
    chunk = col.row_groups[0]
    assert col.column_order == "ieee754"
    assert chunk.statistics.nan_count == 10 and chunk.statistics.min == "-0.0"
    assert chunk.column_index and [p.nan_count for p in chunk.pages] == [0, 10, 0]
    # The all-NaN page carries its NaN extremes, signs and bits shown.
    assert chunk.pages[1].min.startswith("-nan(0x") and chunk.pages[1].max.startswith("+nan(0x")


def test_data_pages_are_never_read(tmp_path) -> None:
    src = _file(tmp_path)
    expected = inspect(src)
    footer = read_footer(src)
    raw = bytearray(src.read_bytes())
    md = footer.chunk(0, 0).meta_data
    start = md.dictionary_page_offset or md.data_page_offset
    raw[start:start + md.total_compressed_size] = b"\xff" * md.total_compressed_size
    broken = tmp_path / "garbage-pages.parquet"
    broken.write_bytes(bytes(raw))
    got = inspect(broken)
    assert got.to_dict() | {"path": ""} == expected.to_dict() | {"path": ""}


def test_a_page_index_longer_than_its_stated_length_is_refused(tmp_path) -> None:
    import pytest

    from nanstats.errors import ParquetFormatError
    from nanstats.metadata.thrift import encode

    src = _file(tmp_path)
    footer = read_footer(src)
    meta = footer.metadata
    meta.row_groups[0].columns[0].column_index_length = 3  # the real one is longer
    raw = bytearray(src.read_bytes()[:footer.metadata_offset])
    body = encode(meta)
    lying = tmp_path / "lying.parquet"
    lying.write_bytes(bytes(raw) + body + len(body).to_bytes(4, "little") + b"PAR1")
    with pytest.raises(ParquetFormatError, match="lying.parquet.*ColumnIndex"):
        inspect(lying)
