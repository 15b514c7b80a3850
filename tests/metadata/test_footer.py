"""metadata.footer and the Thrift decoding under it: bounded on hostile footers."""

from __future__ import annotations

import struct
import time
import tracemalloc

import pytest

from nanstats.errors import ParquetFormatError
from nanstats.metadata.footer import read_footer
from nanstats.metadata.thrift import RegionDecoder, decode, encode, pq

N = 1_000_000  # empty structures: one byte each on the wire


def _schema() -> list[pq.SchemaElement]:
    return [pq.SchemaElement(name=b"schema", num_children=1),
            pq.SchemaElement(name=b"x", type=pq.TYPE_DOUBLE, repetition_type=1)]


def _chunk(**meta: object) -> pq.ColumnChunk:
    return pq.ColumnChunk(file_offset=4, meta_data=pq.ColumnMetaData(
        type=pq.TYPE_DOUBLE, encodings=[0], path_in_schema=[b"x"], codec=0, num_values=0,
        total_uncompressed_size=0, total_compressed_size=0, data_page_offset=4, **meta))


def _hostile(kind: str) -> pq.FileMetaData:
    meta = pq.FileMetaData(version=1, schema=_schema(), num_rows=0, row_groups=[])
    if kind == "row_groups":
        meta.row_groups = [pq.RowGroup()] * N
    elif kind == "schema":
        meta.schema = _schema() + [pq.SchemaElement()] * N
    elif kind == "key_value_metadata":
        meta.key_value_metadata = [pq.KeyValue()] * N
    elif kind == "column_orders":
        meta.column_orders = [pq.ColumnOrder()] * N
    elif kind == "column_orders (TYPE_ORDER)":  # 3 bytes for 2 structures
        meta.column_orders = [pq.ColumnOrder(TYPE_ORDER=pq.TypeDefinedOrder())] * N
    elif kind == "columns":
        meta.row_groups = [pq.RowGroup(columns=[pq.ColumnChunk()] * N, total_byte_size=0,
                                       num_rows=0)]
    elif kind == "encoding_stats":
        meta.row_groups = [pq.RowGroup(columns=[_chunk(encoding_stats=[pq.PageEncodingStats()] * N)],
                                       total_byte_size=0, num_rows=0)]
    return meta


def _write(path, meta: pq.FileMetaData) -> None:
    raw = encode(meta)
    path.write_bytes(b"PAR1" + raw + struct.pack("<I", len(raw)) + b"PAR1")


def _bounded(run, *, seconds: float = 1.0, megabytes: float = 32) -> ParquetFormatError:
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(ParquetFormatError) as caught:
            run()
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert elapsed < seconds and peak < megabytes * 2**20, (elapsed, peak / 2**20)
    return caught.value


@pytest.mark.parametrize("kind", ["row_groups", "schema", "key_value_metadata", "column_orders",
                                  "column_orders (TYPE_ORDER)", "columns", "encoding_stats"])
def test_a_list_of_a_million_empty_structures_is_refused_early(tmp_path, kind) -> None:
    # Decoding such a list built hundreds of MB of objects over seconds
    # before any check saw it (issue 17, item 5).
    path = tmp_path / "hostile.parquet"
    _write(path, _hostile(kind))
    exc = _bounded(lambda: read_footer(str(path)))
    assert "structures" in exc.reason and exc.offset is not None
    assert exc.offset < 100_000  # refused near the start, not after the list


def test_page_index_lists_are_bounded_too() -> None:
    raw = encode(pq.OffsetIndex(page_locations=[pq.PageLocation()] * N))
    _bounded(lambda: decode(pq.OffsetIndex, raw))
    region = RegionDecoder(b"\0" * 16 + raw, base=100)
    exc = _bounded(lambda: region.decode_at(pq.OffsetIndex, 16, len(raw)))
    assert exc.offset is not None and exc.offset > 116


def test_large_valid_metadata_is_within_the_budget() -> None:
    # Many small valid structures: one leaf per column order, empty names.
    n = 200_000
    schema = [pq.SchemaElement(name=b"", num_children=n)] + \
        [pq.SchemaElement(name=b"", type=pq.TYPE_DOUBLE)] * n
    meta = pq.FileMetaData(version=1, schema=schema, num_rows=0, row_groups=[],
                           column_orders=[pq.ColumnOrder(TYPE_ORDER=pq.TypeDefinedOrder())] * n)
    decoded, used = decode(pq.FileMetaData, encode(meta))
    assert decoded == meta and used == len(encode(meta))
    index = pq.OffsetIndex(page_locations=[
        pq.PageLocation(offset=4, compressed_page_size=1, first_row_index=0)] * n)
    assert decode(pq.OffsetIndex, encode(index))[0] == index
