"""metadata.page_index: the page index read, checked and decoded to columnar values."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

from nanstats.errors import UnsupportedParquetError
from nanstats.metadata.footer import read_footer, refuse_encrypted
from nanstats.metadata.page_index import PageIndex, PageIndexRegion, read_page_index
from nanstats.metadata.thrift import pq


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "t.parquet"
    papq.write_table(pa.table({"x": [1.0, None, None, 4.0, 5.0, 6.0]}), p,
                     write_page_index=True, data_page_size=1, write_batch_size=2,
                     use_dictionary=False)
    return str(p)


def test_page_index_values_equal_the_thrift_lists(path) -> None:
    footer = read_footer(path)
    with open(path, "rb") as f:
        ci, oi = read_page_index(f, footer, 0, 0)
        index = PageIndexRegion(f, footer).page_index(footer, 0, 0)
    assert index.num_pages == len(oi.page_locations) == 3
    assert index.null_pages.dtype == bool and index.null_pages.tolist() == ci.null_pages
    assert index.null_counts.tolist() == ci.null_counts == [1, 1, 0]
    assert index.min_values == ci.min_values and index.max_values == ci.max_values
    assert index.first_row_index.tolist() == [loc.first_row_index for loc in oi.page_locations]
    assert index.offsets.tolist() == [loc.offset for loc in oi.page_locations]
    assert index.compressed_sizes.tolist() == [loc.compressed_page_size
                                               for loc in oi.page_locations]
    assert index.has_column_index and index.has_offset_index


def test_either_half_may_be_missing() -> None:
    oi = pq.OffsetIndex(page_locations=[
        pq.PageLocation(offset=4, compressed_page_size=10, first_row_index=0),
        pq.PageLocation(offset=14, compressed_page_size=7, first_row_index=3)])
    index = PageIndex.from_thrift(None, oi)
    assert index.num_pages == 2 and not index.has_column_index
    assert index.null_pages is None and index.boundary_order is None
    assert index.offsets.dtype == np.int64 and index.first_row_index.tolist() == [0, 3]
    empty = PageIndex.from_thrift(None, None)
    assert empty.num_pages == 0 and not empty.has_offset_index
    ci = pq.ColumnIndex(null_pages=[False], min_values=[b"a"], max_values=[b"b"],
                        boundary_order=pq.BOUNDARY_DESCENDING, nan_counts=[2])
    index = PageIndex.from_thrift(ci, None)
    assert index.boundary_order == "DESCENDING" and index.null_counts is None
    assert index.nan_counts.tolist() == [2] and not index.has_offset_index


def test_refuse_encrypted_names_path_row_group_and_column(path) -> None:
    footer = read_footer(path)
    refuse_encrypted(footer, "never")  # a plain file passes
    footer.metadata.row_groups[0].columns[0].encrypted_column_metadata = b"x"
    with pytest.raises(UnsupportedParquetError,
                       match=r"t\.parquet: row group 0, column 'x' is encrypted; never"):
        refuse_encrypted(footer, "never")
    footer.metadata.encryption_algorithm = object()
    with pytest.raises(UnsupportedParquetError, match="plaintext footer"):
        refuse_encrypted(footer, "never")
