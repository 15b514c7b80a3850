"""metadata.compact: fields the IDL does not know are kept, at any depth; reading is bounded.

Decoding goes through ``metadata.thrift.decode`` (the C codec, falling back
to the Python reader where something is unknown), as every caller does; the
vendor structures are encoded by thriftpy2's own compact protocol
(tests/vendor_fields.py), not by nanstats.
"""

from __future__ import annotations

import copy
import io
import struct
import tracemalloc
from typing import Any

import pyarrow as pa
import pyarrow.parquet as papq
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from thriftpy2.protocol import TCompactProtocolFactory
from thriftpy2.utils import deserialize

from nanstats.errors import ParquetFormatError
from nanstats.metadata import compact, thrift
from nanstats.metadata.compact import UNKNOWN, keep_unknown, replace, unknown_fields
from nanstats.metadata.footer import read_footer
from nanstats.metadata.page_index import read_page_index
from nanstats.metadata.pages import read_pages
from nanstats.metadata.thrift import decode, encode, pq
from tests.vendor_fields import fill, to_vendor, vendor, vendor_decode, vendor_encode

STRUCTS = sorted(name for name, value in vars(pq).items()
                 if isinstance(value, type) and hasattr(value, "thrift_spec"))
UNIONS = {"TimeUnit", "LogicalType", "BloomFilterAlgorithm", "BloomFilterHash",
          "BloomFilterCompression", "ColumnCryptoMetaData", "ColumnOrder", "EncryptionAlgorithm"}


def _vendor_instance(name: str) -> Any:
    obj = getattr(vendor, name)()
    if name in UNIONS:
        obj.VENDOR = vendor.VendorInner(a=1, b=b"member", c=[2**62])
        return obj
    return fill(obj, name)


@pytest.mark.parametrize("name", STRUCTS)
def test_every_structure_keeps_fields_it_does_not_know(name):
    raw = vendor_encode(_vendor_instance(name))
    obj, used = decode(getattr(pq, name), raw + b"\xff trailing")
    assert used == len(raw)
    ids = [fid for fid, _, _ in unknown_fields(obj)]
    if name in UNIONS:
        assert ids == [40]
    else:
        declared = max(getattr(pq, name).thrift_spec, default=0)
        retyped = [7] if name == "RowGroup" else []  # ordinal, an i64 for the vendor
        assert ids == [*retyped, declared + 1, *range(1000, 1008), 20000]
    assert encode(obj) == raw
    assert vendor_decode(name, encode(obj)) == vendor_decode(name, raw)


def test_nested_unknown_fields_are_kept_where_they_were():
    # A footer whose only unknown field is deep down: only the structures on
    # the way to it carry the attribute; every other one is as the C codec made it.
    meta = to_vendor(pq.FileMetaData(version=2, schema=[pq.SchemaElement(name=b"a")] * 3,
                                     row_groups=[pq.RowGroup(num_rows=1, columns=[
                                         pq.ColumnChunk(file_offset=4, meta_data=pq.ColumnMetaData(
                                             type=5, num_values=1))])] * 4))
    meta.row_groups[2].columns[0].meta_data.vendor_note = b"here"
    raw = vendor_encode(meta)
    obj, _ = decode(pq.FileMetaData, raw)
    marked = [UNKNOWN in vars(rg) for rg in obj.row_groups]
    assert marked == [False, False, True, False]
    assert UNKNOWN in vars(obj) and unknown_fields(obj) == ()
    assert unknown_fields(obj.row_groups[2].columns[0].meta_data) == ((1000, 8, b"\x04here"),)
    assert not any(UNKNOWN in vars(s) for s in obj.schema)
    assert encode(obj) == raw
    # copy.copy, replace and keep_unknown carry them; a structure built anew does not.
    for again in (copy.copy(obj), replace(obj, version=2), keep_unknown(pq.FileMetaData(), obj)):
        assert UNKNOWN in vars(again)
    assert UNKNOWN not in vars(pq.FileMetaData(**{k: v for k, v in vars(obj).items()
                                                  if k != UNKNOWN}))


def test_a_known_id_with_another_type_is_kept_until_the_field_is_set():
    rg = vendor.RowGroup(num_rows=5, vendor_ordinal=2**40)  # field 7: i16 in our IDL
    raw = vendor_encode(rg)
    obj, _ = decode(pq.RowGroup, raw)
    assert obj.num_rows == 5 and obj.ordinal is None
    assert [(f, w) for f, w, _ in unknown_fields(obj)] == [(7, 6)]
    assert encode(obj) == raw
    obj.ordinal = 3  # a value set replaces the one read with another type
    again = encode(obj)
    assert decode(pq.RowGroup, again)[0].ordinal == 3
    assert unknown_fields(decode(pq.RowGroup, again)[0]) == ()


def test_a_known_list_of_another_element_type_is_kept():
    # ColumnIndex.null_pages (list<bool>) written as a list of i32: the C
    # codec refuses the whole structure; it is kept as read instead.
    raw = bytes([0x19, 0x25, 0x02, 0x04, 0x35, 0x02, 0])
    obj, used = decode(pq.ColumnIndex, raw)
    assert used == len(raw) and obj.null_pages is None and obj.boundary_order == 1
    assert unknown_fields(obj) == ((1, 9, b"\x25\x02\x04"),)
    assert encode(obj) == raw


def test_bool_lists_of_either_code_and_known_fields_read_in_python_are_equal_to_the_c_codec():
    # false written as 0 in a list (some writers) is false; the rest of the
    # structure, read in Python because of an unknown field, equals the C codec's.
    ci = pq.ColumnIndex(null_pages=[True, False], min_values=[b"a", b""], max_values=[b"b", b""],
                        boundary_order=0, null_counts=[0, 2**40], nan_counts=[1, -1])
    raw = encode(ci)
    assert decode(pq.ColumnIndex, raw)[0] == ci
    spliced = raw[:-1] + bytes([0x05, 0xd0, 0x0f, 0x02, 0])  # + field 1000 (i32)
    python = decode(pq.ColumnIndex, spliced)[0]
    assert python.null_pages == ci.null_pages and vars(python) == {**vars(ci), UNKNOWN: (
        (1000, 5, b"\x02"),)}
    zero = bytearray(raw)
    zero[zero.index(bytes([0x21, 1, 2])) + 2] = 0
    assert decode(pq.ColumnIndex, bytes(zero))[0].null_pages == [True, False]


def test_round_trip_of_files_nanstats_and_pyarrow_write(tmp_path):
    path = str(tmp_path / "t.parquet")
    papq.write_table(pa.table({"x": [1.0, None, float("nan")], "s": ["a", "b", None]}), path,
                     write_page_index=True)
    footer = read_footer(path)
    data = (tmp_path / "t.parquet").read_bytes()
    raw = data[footer.metadata_offset:footer.metadata_offset + footer.metadata_length]
    assert encode(footer.metadata) == raw and UNKNOWN not in vars(footer.metadata)
    with open(path, "rb") as f:
        for leaf in range(2):
            for page in read_pages(f, footer, 0, leaf):
                assert encode(page.header) == data[page.offset:page.data_offset]
            for index in read_page_index(f, footer, 0, leaf):
                assert UNKNOWN not in vars(index)


# --- bounded on hostile input -------------------------------------------------


def _errors(raw: bytes, cls: type = pq.KeyValue) -> ParquetFormatError:
    with pytest.raises(ParquetFormatError) as caught:
        decode(cls, raw)
    return caught.value


@pytest.mark.parametrize("opener", [b"\x1c", b"\x19\x1c", b"\x1b\x01\xcc"])
def test_nesting_is_limited(opener):
    # Unknown structs in structs, lists of structs, maps of structs: 10,000 deep.
    raw = b"\x1c" * 3 + opener * 10_000 + b"\x00" * 20_000
    exc = _errors(raw)
    assert "nesting too deep" in exc.reason and exc.offset == 0
    assert compact.MAX_DEPTH == 64


def test_uuid_values_are_kept():
    raw = b"\x3d" + bytes(range(16)) + b"\x39\x2d" + bytes(32) + b"\x00"  # fields 3 and 6
    obj, used = decode(pq.KeyValue, raw)
    assert used == len(raw) and [(f, w) for f, w, _ in unknown_fields(obj)] == [(3, 13), (6, 9)]
    assert encode(obj) == raw


def test_one_level_less_than_the_limit_is_read():
    raw = b"\x1c" * 62 + b"\x00" * 63
    obj, used = decode(pq.KeyValue, raw)
    assert used == len(raw) and unknown_fields(obj)[0][:2] == (1, 12)


# Field 3 of KeyValue is unknown: header 0x30 | its wire type.
@pytest.mark.parametrize(("raw", "reason"), [
    (b"\x18\xff\xff\xff\xff\x07", "a string of length 2147483647 does not fit in the 0 bytes left"),
    (b"\x38\xff\xff\xff\xff\x0f", "a string of length 4294967295 does not fit"),
    (b"\x39\xf5\xff\xff\xff\xff\x0f", "a list of length 4294967295 does not fit"),
    (b"\x39\xc5\x00", "a list of length 12 does not fit in the 1 bytes left"),
    (b"\x3b\xff\xff\xff\xff\x0f", "a map of size 4294967295 does not fit"),
    (b"\x3b\x01\xe5\x00\x00", "a map of wire types 14 and 5"),
    (b"\x3e\x00", "a field of unknown wire type 14"),
    (b"\x0f", "a field of unknown wire type 15"),
    (b"\x39\x1e\x00", "a list of unknown wire type 14"),
    (b"\x39\x10\x00", "a list of wire type 0"),
    (b"\x36" + b"\xff" * 10 + b"\x01", "a varint longer than 10 bytes"),
    (b"\x36\xff", "the data ends inside a varint"),
    (b"\x37\x00\x00", "8 bytes needed, 2 left"),
])
def test_malformed_unknown_fields_are_format_errors(raw, reason):
    exc = _errors(raw)
    assert reason in exc.reason


def test_every_truncation_is_a_format_error():
    raw = vendor_encode(_vendor_instance("PageHeader"))
    for n in range(len(raw)):
        with pytest.raises(ParquetFormatError):
            decode(pq.PageHeader, raw[:n])


def test_many_empty_structures_in_an_unknown_field_build_nothing():
    n = 200_000  # (1,000,000 is skipped in 50 ms; tracemalloc makes it seconds)
    raw = b"\x39\xfc" + _varint(n) + b"\x00" * n + b"\x00"  # field 3: a list of structs
    tracemalloc.start()
    try:
        obj, used = decode(pq.KeyValue, raw)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert used == len(raw) and len(unknown_fields(obj)[0][2]) == n + 4
    assert peak < 3 * n + (8 << 20)  # the input, the kept value, no objects


def test_a_million_empty_known_structures_are_refused_on_the_python_path_too():
    # The schema written as a list of i32 makes the C codec give up at once;
    # an unknown field in the first row group keeps the C codec from reading
    # the list whole: the row groups are read one by one, still counted
    # against the bytes read.
    n = 1_000_000
    raw = (b"\x15\x02" + b"\x19\x15\x02"  # version 1; field 2 (schema), a list of one i32
           + b"\x29\xfc" + _varint(n + 1)  # field 4 (row_groups), n + 1 structures
           + b"\x36\x02\x05\xd0\x0f\x02\x00"  # num_rows 1, field 1000
           + b"\x00" * n + b"\x00")
    tracemalloc.start()
    try:
        exc = _errors(raw, pq.FileMetaData)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "structures" in exc.reason and exc.offset is not None and exc.offset < 100_000
    assert peak < 3 * len(raw) + (8 << 20)


def test_large_valid_metadata_with_an_unknown_field_is_within_the_budget():
    n = 200_000
    meta = pq.FileMetaData(version=1, schema=[pq.SchemaElement(name=b"")] * n,
                           column_orders=[pq.ColumnOrder(TYPE_ORDER=pq.TypeDefinedOrder())] * n)
    raw = encode(meta)
    spliced = raw[:-1] + bytes([0x05, 0xd0, 0x0f, 0x02, 0])
    obj, used = decode(pq.FileMetaData, spliced)
    assert used == len(spliced) and obj.column_orders == meta.column_orders
    assert encode(obj) == spliced


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.sampled_from(["PageHeader", "ColumnIndex", "FileMetaData"]))
@example(b"\x11\x01\x00\x00", "PageHeader")  # unknown fields 1 then 0: written 0, 1
def test_random_bytes_decode_or_raise_a_format_error(raw, name):
    cls = getattr(pq, name)
    try:
        obj, used = decode(cls, raw)
    except ParquetFormatError:
        return
    again = encode(obj)
    obj2, used2 = decode(cls, again)
    assert used2 == len(again) and encode(obj2) == again
    # The same structure; unknown fields come back in field-id order (the order
    # the writer puts them in, whatever order the bytes had them in).
    assert obj2 == _in_id_order(obj)


def _in_id_order(obj: Any) -> Any:
    """A copy of a structure whose unknown fields (at every depth) are in field-id order."""
    if isinstance(obj, list):
        return [_in_id_order(v) for v in obj]
    if not hasattr(obj, "thrift_spec"):
        return obj
    out = copy.copy(obj)
    for name, value in list(vars(obj).items()):
        if name != UNKNOWN:
            setattr(out, name, _in_id_order(value))
    held = vars(obj).get(UNKNOWN)
    if held:
        known = {fid for fid, spec in obj.thrift_spec.items()
                 if getattr(obj, spec[1], None) is not None}
        vars(out)[UNKNOWN] = tuple(sorted((f for f in held if f[0] not in known),
                                          key=lambda f: f[0]))
    return out


# --- random unknown fields at random depths round-trip -----------------------


def _varint(u: int) -> bytes:
    out = bytearray()
    while u > 0x7F:
        out.append(u & 0x7F | 0x80)
        u >>= 7
    out.append(u)
    return bytes(out)


def _zigzag(v: int, bits: int) -> bytes:
    return _varint((v << 1) ^ (v >> (bits - 1)))


def _element(wire: int) -> st.SearchStrategy[bytes]:
    """The encoding of one value of a wire type inside a container."""
    if wire in (1, 2):
        return st.sampled_from([b"\x01", b"\x02"])
    return _value(wire).map(lambda v: v[1])


def _value(wire: int) -> st.SearchStrategy[tuple[int, bytes]]:
    """(wire type, encoding) of one field value of that wire type."""
    if wire in (1, 2):
        return st.just((wire, b""))
    if wire == 3:
        return st.binary(min_size=1, max_size=1).map(lambda b: (3, b))
    if wire in (4, 5, 6):
        bits = {4: 16, 5: 32, 6: 64}[wire]
        return st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1).map(
            lambda v: (wire, _zigzag(v, bits)))
    if wire == 7:
        return st.floats(allow_nan=True).map(lambda f: (7, struct.pack("<d", f)))
    if wire == 8:
        return st.binary(max_size=20).map(lambda b: (8, _varint(len(b)) + b))
    if wire == 13:
        return st.binary(min_size=16, max_size=16).map(lambda b: (13, b))
    if wire in (9, 10):
        return st.sampled_from([1, 3, 5, 6, 8, 12]).flatmap(
            lambda elem: st.lists(_element(elem), max_size=17).map(
                lambda items: (wire, (bytes([len(items) << 4 | elem]) if len(items) < 15 else
                                      bytes([0xF0 | elem]) + _varint(len(items))) + b"".join(items))))
    if wire == 11:
        return st.lists(st.tuples(_element(8), _element(5)), max_size=4).map(
            lambda pairs: (11, _varint(len(pairs)) + (b"\x85" if pairs else b"")
                           + b"".join(k + v for k, v in pairs)))
    # A struct of a few fields (no deeper structs: the recursion stops here).
    return st.lists(st.tuples(st.integers(1, 40), st.sampled_from([1, 2, 3, 5, 8, 9, 11])),
                    max_size=4, unique_by=lambda t: t[0]).flatmap(
        lambda fields: st.tuples(*[_value(w) for _, w in sorted(fields)]).map(
            lambda values: (12, _struct_bytes(sorted(f for f, _ in fields), values))))


def _struct_bytes(fids: list[int], values: tuple[tuple[int, bytes], ...]) -> bytes:
    out, last = bytearray(), 0
    for fid, (wire, payload) in zip(fids, values, strict=True):
        out += bytes([(fid - last) << 4 | wire]) if 0 < fid - last <= 15 else \
            bytes([wire]) + _zigzag(fid, 16)
        out += payload
        last = fid
    return bytes(out + b"\x00")


# Not 13 (UUID): thriftpy2, the other decoder below, does not know it.
_raw_field = st.sampled_from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]).flatmap(_value)


def _nodes(obj: Any, ancestors: tuple[Any, ...] = ()) -> list[tuple[Any, tuple[Any, ...]]]:
    """Every structure below ``obj`` (itself included) with its ancestors."""
    out = [(obj, ancestors)]
    for entry in type(obj).thrift_spec.values():
        value = getattr(obj, entry[1])
        for item in value if isinstance(value, list) else [value]:
            if hasattr(item, "thrift_spec"):
                out.extend(_nodes(item, (*ancestors, obj)))
    return out


def _bases() -> list[Any]:
    buffer = io.BytesIO()
    papq.write_table(pa.table({"x": [1.0, float("nan"), None], "s": ["a", None, "b"],
                               "t": pa.array([1, 2, 3], pa.timestamp("ms"))}),
                     buffer, write_page_index=True)
    data = buffer.getvalue()
    footer = read_footer(io.BytesIO(data))
    f = io.BytesIO(data)
    page = read_pages(f, footer, 0, 0)[0].header
    return [footer.metadata, page, *read_page_index(f, footer, 0, 0)]


BASES = _bases()


def _may_add(node: Any, fid: int, wire: int) -> bool:
    """Whether a raw field may go in ``node``: an id it does not declare, or a
    declared one that is unset and of another wire type (kept, not decoded)."""
    known = type(node).thrift_spec
    if fid not in known:
        return True
    declared = compact._WIRE[known[fid][0]]
    return getattr(node, known[fid][1]) is None and declared != (1 if wire == 2 else wire)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_unknown_fields_at_random_depths_round_trip(data):
    base = data.draw(st.sampled_from(BASES))
    tree = copy.deepcopy(base)
    nodes = _nodes(tree)
    inserted: dict[int, list[compact.RawField]] = {}
    for _ in range(data.draw(st.integers(1, 6))):
        k = data.draw(st.integers(0, len(nodes) - 1))
        node, ancestors = nodes[k]
        wire, payload = data.draw(_raw_field)
        fid = data.draw(st.integers(-32768, 32767).filter(
            lambda f, node=node, wire=wire: _may_add(node, f, wire)))
        inserted.setdefault(k, []).append((fid, wire, payload))
        for holder in ancestors:
            vars(holder).setdefault(UNKNOWN, ())
    for k, fields in inserted.items():
        vars(nodes[k][0])[UNKNOWN] = tuple(sorted(fields, key=lambda f: f[0]))
    raw = encode(tree)

    # Another decoder (thriftpy2's, which skips what it does not know) sees the tree as it was.
    assert deserialize(type(base)(), raw, TCompactProtocolFactory()) == base
    decoded, used = decode(type(base), raw)
    assert used == len(raw)
    for k, (node, _) in enumerate(_nodes(decoded)):
        assert unknown_fields(node) == tuple(sorted(inserted.get(k, ()), key=lambda f: f[0])), k
    assert encode(decoded) == raw


def test_without_the_c_codec_the_python_codec_does_everything(monkeypatch):
    raw = vendor_encode(fill(to_vendor(BASES[0]), "footer"))
    with_c = decode(pq.FileMetaData, raw)
    monkeypatch.setattr(thrift, "_fastbinary", None)
    without = decode(pq.FileMetaData, raw)
    assert without == with_c and encode(without[0]) == raw
    region = thrift.RegionDecoder(b"\0\0" + raw, base=10)
    assert region.decode_at(pq.FileMetaData, 2, len(raw)) == with_c[0]
    assert encode(BASES[1]) == encode(decode(pq.PageHeader, encode(BASES[1]))[0])
    with pytest.raises(ParquetFormatError, match="nesting too deep"):
        decode(pq.KeyValue, b"\x1c" * 100)
