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


GAP = 256 * 2**20  # sparse: costs no disk


def _with_gap_before_footer(src: str, dst: str, edit=None) -> None:
    """``src`` with GAP zero bytes between its page index and its footer.

    The footer's offsets all lie before the gap, so they stay right; ``edit``
    may change the decoded footer first.
    """
    from nanstats.metadata.thrift import encode

    footer = read_footer(src)
    with open(src, "rb") as f:
        head = f.read(footer.metadata_offset)
    if edit is not None:
        edit(footer.metadata)
    raw = encode(footer.metadata)
    with open(dst, "wb") as f:
        f.write(head)
        f.seek(GAP, 1)
        f.write(raw + len(raw).to_bytes(4, "little") + b"PAR1")


def _peak(run):
    import tracemalloc

    tracemalloc.start()
    try:
        result = run()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_page_index_far_from_the_footer_reads_only_its_bytes(path, tmp_path) -> None:
    # Item 6 of issue 17: the region ran from the lowest page-index offset to
    # the footer, so a gap there (legal) was read, and allocated, whole.
    from nanstats.parquet import inspect, verify

    far = str(tmp_path / "far.parquet")
    _with_gap_before_footer(path, far)
    report, peak = _peak(lambda: inspect(far))
    assert peak < 16 * 2**20
    assert report.columns == inspect(path).columns
    _, peak = _peak(lambda: verify(far))
    assert peak < 16 * 2**20
    footer = read_footer(far)
    with open(far, "rb") as f:
        region, peak = _peak(lambda: PageIndexRegion(f, footer))
    assert region.bytes_read < 4096 and peak < 2**20
    assert region.page_index(footer, 0, 0).null_counts.tolist() == [1, 1, 0]


def test_a_hostile_page_index_offset_costs_only_its_declared_bytes(path, tmp_path) -> None:
    from nanstats.errors import ParquetFormatError
    from nanstats.parquet import inspect

    def at_start(meta) -> None:
        meta.row_groups[0].columns[0].column_index_offset = 4

    bad = str(tmp_path / "bad.parquet")
    _with_gap_before_footer(path, bad, at_start)
    caught, peak = _peak(lambda: pytest.raises(ParquetFormatError, inspect, bad))
    assert peak < 16 * 2**20 and "ColumnIndex" in str(caught.value)
    footer = read_footer(bad)
    with open(bad, "rb") as f:
        assert PageIndexRegion(f, footer).bytes_read < 4096


def test_nearby_ranges_are_read_together_far_ones_apart(tmp_path) -> None:
    p = tmp_path / "many.parquet"
    papq.write_table(pa.table({"x": np.arange(1000.0), "y": np.arange(1000.0)}), p,
                     write_page_index=True, row_group_size=100)
    footer = read_footer(str(p))
    with open(p, "rb") as f:
        region = PageIndexRegion(f, footer)
        declared = sum(n for rg in footer.row_groups for c in rg.columns
                       for n in (c.column_index_length, c.offset_index_length))
        assert len(region._decoders) == 1 and region.bytes_read == declared
        for g in range(10):
            for leaf in range(2):
                assert region.read_page_index(footer, g, leaf) == read_page_index(f, footer, g,
                                                                                   leaf)
