"""Upgrade loses nothing a writer set: fields nanstats' IDL does not know, at any depth.

Issue 17, item 3.  The sources carry fields of every Thrift type at ids our
IDL does not declare (tests/vendor_fields.py) in the footer, every page
header, every ColumnIndex and OffsetIndex; unknown union members; a known
field id with another type.  After the upgrade, thriftpy2 decoding the
output with the vendor IDL finds every one of them with its value, except
those the rules replace: the float columns' statistics (chunk and page) and
column orders.
"""

from __future__ import annotations

import struct

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

from nanstats.metadata.compact import unknown_fields
from nanstats.metadata.footer import read_footer
from nanstats.metadata.thrift import decode, encode, pq
from nanstats.parquet.upgrading import upgrade
from tests.vendor_fields import (
    read_vendor,
    to_vendor,
    vendor,
    vendor_decode,
    vendor_encode,
    vendor_values,
    write_with_vendor_fields,
)


def _table(n: int = 300) -> pa.Table:
    rng = np.random.default_rng(5)
    x = rng.normal(size=n)
    x[::7] = np.nan
    return pa.table({
        "x": pa.array(x, mask=rng.random(n) < 0.1),
        "f": pa.array(rng.normal(size=n).astype(np.float32)),
        "s": pa.array([f"v{i % 13}" for i in range(n)]),
        "i": pa.array(np.arange(n)),
    })


def _same_data(a: str, b: str) -> None:
    left, right = papq.read_table(a), papq.read_table(b)
    assert left.schema.equals(right.schema)
    assert left.to_pandas().equals(right.to_pandas())


def _replaced(key: str, rewritten: set[int], num_row_groups: int) -> frozenset[str]:
    """The paths the rules replace in one of read_vendor's structures."""
    if key == "footer":
        return frozenset({f".row_groups[{g}].columns[{c}].meta_data.statistics"
                          for g in range(num_row_groups) for c in rewritten}
                         | {f".column_orders[{c}]" for c in rewritten})
    if key.startswith("page ") and int(key.split("/")[1]) in rewritten:
        return frozenset({".data_page_header.statistics", ".data_page_header_v2.statistics"})
    return frozenset()


@pytest.mark.parametrize(("version", "truncate"), [("1.0", None), ("2.0", None), ("1.0", 8)])
def test_every_field_a_writer_set_survives_the_upgrade(tmp_path, version, truncate):
    plain, src, dst = (str(tmp_path / n) for n in ("plain.parquet", "src.parquet", "dst.parquet"))
    papq.write_table(_table(), plain, write_page_index=True, data_page_size=512,
                     data_page_version=version, row_group_size=200, use_dictionary=["s"],
                     write_batch_size=50)
    written = write_with_vendor_fields(plain, src)
    _same_data(plain, src)  # pyarrow reads the vendor file as the plain one

    upgrade(src, dst, truncate=truncate)

    footer = read_footer(dst)
    rewritten = {0, 1} | ({2} if truncate else set())
    assert [footer.column_order(c) for c in range(4)] == \
        ["ieee754", "ieee754", "type_order", "type_order"]
    assert footer.num_row_groups == 2
    got = read_vendor(dst)
    assert got.keys() == written.keys()
    kept = set()
    for key, structure in written.items():
        skip = _replaced(key, rewritten, footer.num_row_groups)
        expected = vendor_values(structure, skip=skip)
        assert vendor_values(got[key], skip=skip) == expected, key
        kept |= {f"{key.split()[0]} {path}" for path in expected}
    # Every kind of structure carried some, at every depth.
    header = "data_page_header" if version == "1.0" else "data_page_header_v2"
    for path in ["footer .vendor_next", "footer .schema[3].vendor_note",
                 "footer .schema[3].logicalType.STRING.vendor_map",
                 "footer .row_groups[1].vendor_ordinal", "footer .row_groups[1].vendor_list",
                 "footer .row_groups[1].columns[0].vendor_inner",
                 "footer .row_groups[1].columns[0].meta_data.vendor_set",
                 "footer .row_groups[1].columns[3].meta_data.statistics.vendor_flag",
                 "footer .row_groups[1].columns[2].meta_data.encoding_stats[0].vendor_ratio",
                 "footer .key_value_metadata[0].vendor_byte",
                 "footer .column_orders[3].TYPE_ORDER.vendor_far",
                 "page .vendor_next", f"page .{header}.vendor_note",
                 "page .dictionary_page_header.vendor_note", "ci .vendor_note",
                 "oi .vendor_note", "oi .page_locations[1].vendor_note"]:
        assert path in kept, path
    # Only what the rules replace is gone: the float chunks' statistics are new.
    for g in range(2):
        assert vendor_values(got["footer"].row_groups[g].columns[0].meta_data.statistics) == {}
        assert vendor_values(got["footer"].row_groups[g].columns[3].meta_data.statistics) != {}
    _same_data(src, dst)


def test_a_footer_nanstats_decoded_holds_the_unknown_fields(tmp_path):
    plain, src = str(tmp_path / "plain.parquet"), str(tmp_path / "src.parquet")
    papq.write_table(_table(50), plain, write_page_index=True)
    write_with_vendor_fields(plain, src)
    meta = read_footer(src).metadata
    # Field 10 (after the last known id 9), vendor fields 1000..1007 and 20000.
    assert [f for f, _, _ in unknown_fields(meta)] == [10, *range(1000, 1008), 20000]
    chunk = meta.row_groups[0].columns[0]
    assert [f for f, _, _ in unknown_fields(chunk.meta_data)][0] == 18
    # RowGroup.ordinal (an i16) written as an i64 by the vendor: kept, not decoded.
    assert meta.row_groups[0].ordinal is None
    assert (7, 6) in {(f, w) for f, w, _ in unknown_fields(meta.row_groups[0])}


def _splice_footer(src: str, dst: str, change) -> None:
    """``dst``: ``src`` with its footer re-encoded by the vendor IDL after ``change``."""
    footer = read_footer(src)
    meta = to_vendor(footer.metadata)
    change(meta)
    raw = vendor_encode(meta)
    with open(src, "rb") as f:
        data = f.read(footer.metadata_offset)
    with open(dst, "wb") as f:
        f.write(data + raw + struct.pack("<I", len(raw)) + b"PAR1")


def test_an_unknown_logical_type_survives(tmp_path):
    # The equivalent of apache/parquet-testing data/unknown-logical-type.parquet:
    # a string column whose LogicalType holds a member no reader knows.
    plain, src, dst = (str(tmp_path / n) for n in ("plain.parquet", "src.parquet", "dst.parquet"))
    table = pa.table({"column with known type": ["a", "b", None],
                      "column with unknown type": ["c", None, "d"],
                      "x": [1.5, float("nan"), None]})
    papq.write_table(table, plain, write_page_index=True)
    member = vendor.VendorInner(a=7, b=b"future", c=[1, 2])

    def unknown_type(meta):
        meta.schema[2].logicalType = vendor.LogicalType(VENDOR=member)
        meta.schema[2].converted_type = None

    _splice_footer(plain, src, unknown_type)
    before = papq.read_table(src)
    logical = read_footer(src).schema[2].logicalType
    assert logical is not None  # with no member our IDL knows:
    assert all(getattr(logical, e[1]) is None for e in pq.LogicalType.thrift_spec.values())
    assert [f for f, _, _ in unknown_fields(logical)] == [40]

    upgrade(src, dst)

    footer = read_footer(dst)
    assert footer.column_order(2) == "ieee754"
    out = vendor_decode("FileMetaData", encode(footer.metadata))
    assert out.schema[2].logicalType == vendor.LogicalType(VENDOR=member)
    assert out.schema[1].logicalType.STRING is not None
    after = papq.read_table(dst)
    assert after.schema.equals(before.schema)
    assert after.to_pandas().equals(before.to_pandas())


def test_unknown_column_orders_survive_where_the_rules_do_not_replace_them(tmp_path):
    plain, src, dst = (str(tmp_path / n) for n in ("plain.parquet", "src.parquet", "dst.parquet"))
    papq.write_table(pa.table({"x": [1.0, 2.0], "i": [1, 2]}), plain)
    future = vendor.ColumnOrder(VENDOR=vendor.VendorInner(a=3))

    def unknown_orders(meta):
        meta.column_orders = [future, future]

    _splice_footer(plain, src, unknown_orders)
    assert [read_footer(src).column_order(c) for c in (0, 1)] == ["other", "other"]
    upgrade(src, dst)
    footer = read_footer(dst)
    assert footer.column_order(0) == "ieee754"  # the float column: the rules' order
    orders = vendor_decode("FileMetaData", encode(footer.metadata)).column_orders
    assert orders[1] == future and orders[0].VENDOR is None


def test_decode_encode_gives_back_the_vendor_bytes(tmp_path):
    plain, src = str(tmp_path / "plain.parquet"), str(tmp_path / "src.parquet")
    papq.write_table(_table(100), plain, write_page_index=True, data_page_size=256)
    written = write_with_vendor_fields(plain, src)
    names = {"footer": pq.FileMetaData, "page": pq.PageHeader, "ci": pq.ColumnIndex,
             "oi": pq.OffsetIndex}
    for key, structure in written.items():
        if structure is None:
            continue
        raw = vendor_encode(structure)
        obj, used = decode(names[key.split()[0]], raw + b"\0trailing")
        assert used == len(raw) and encode(obj) == raw, key
