"""metadata.thrift: the C codec's set-up for structures with and without lists of structures."""

from __future__ import annotations

import pytest

from nanstats.metadata import thrift
from nanstats.metadata.compact import read_struct, unknown_fields
from nanstats.metadata.thrift import RegionDecoder, decode, encode, encode_each, pq

pytestmark = pytest.mark.skipif(thrift._fastbinary is None, reason="needs the C codec")


def test_list_free_structures_are_built_without_the_budget():
    # A PageHeader holds no list of structures: the IDL's classes themselves.
    args = thrift._plain_args(pq.PageHeader)
    assert args is not None and args[0] is pq.PageHeader
    assert thrift._fast_args(pq.PageHeader) is args
    # An OffsetIndex (a list of PageLocations), a ColumnChunk (key-value lists
    # in its metadata) and FileMetaData go through the budget.
    for cls in (pq.OffsetIndex, pq.FileMetaData, pq.ColumnChunk):
        assert thrift._plain_args(cls) is None
        assert thrift._fast_args(cls) is thrift._args(cls)


def test_region_decodes_one_header_after_another():
    headers = [pq.PageHeader(type=pq.PAGE_DATA, uncompressed_page_size=i, compressed_page_size=i,
                             data_page_header=pq.DataPageHeader(num_values=i, encoding=0,
                                                                definition_level_encoding=3,
                                                                repetition_level_encoding=3))
               for i in range(1, 40)]
    raws = encode_each(headers)
    assert raws == [encode(h) for h in headers]
    region = RegionDecoder(b"".join(raws), base=1000)
    pos, got = 0, []
    for raw in raws:
        obj, end = region.decode_from(pq.PageHeader, pos)
        assert end - pos == len(raw)
        got.append(obj)
        pos = end
    assert got == headers


def test_an_unknown_field_in_a_list_free_structure_is_kept():
    # PageHeader field 100 (an i32): the C codec would skip it; the Python
    # reader keeps it, and encoding gives back the bytes read.
    known = encode(pq.PageHeader(type=pq.PAGE_INDEX, uncompressed_page_size=0,
                                 compressed_page_size=0, index_page_header=pq.IndexPageHeader()))
    raw = known[:-1] + bytes([0x05, 0xc8, 0x01, 0x0e, 0x00])  # field 100, i32 7, stop
    obj, used = decode(pq.PageHeader, raw)
    assert used == len(raw) and unknown_fields(obj) == ((100, 5, b"\x0e"),)
    assert encode(obj) == raw == encode_each([obj])[0]
    assert read_struct(pq.PageHeader, raw)[0] == obj
