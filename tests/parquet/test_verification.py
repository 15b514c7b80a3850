"""verify(): each rule of SPEC.md sections 3-5 caught on a file that breaks it, nothing
reported on files that follow the rules (or only break nanstats' stricter policy).

Files that break a rule are made from clean ones by editing the footer, the page
index or a page header's statistics; the data pages stay as they were.
"""

from __future__ import annotations

import copy
import os
import struct
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

from nanstats.errors import ParquetFormatError
from nanstats.metadata.footer import read_footer
from nanstats.metadata.page_index import read_page_index
from nanstats.metadata.pages import read_pages
from nanstats.metadata.thrift import decode, encode, pq
from nanstats.parquet.verification import RULES, Violation, verify, verify_files
from nanstats.parquet.writing import write_table

NEG_NAN = np.array([0xFFF8000000000001], dtype=np.uint64).view(np.float64)[0]


def doubles(values: list[Any]) -> pa.Array:
    """A float64 array, None for null; NaN payloads kept."""
    mask = np.array([v is None for v in values])
    arr = np.array([0.0 if v is None else v for v in values], dtype=np.float64)
    return pa.array(arr, mask=mask)


def kinds(violations: list[Violation]) -> set[str]:
    return {v.kind for v in violations}


def rewrite(src: str, dst: str, edit: Callable[[Any, bytearray], None]) -> str:
    """dst = src with its FileMetaData edited; ``edit`` may append structs to the data."""
    footer = read_footer(src)
    meta = copy.deepcopy(footer.metadata)
    with open(src, "rb") as f:
        buf = bytearray(f.read(footer.metadata_offset))
    edit(meta, buf)
    raw = encode(meta)
    buf += raw + struct.pack("<I", len(raw)) + b"PAR1"
    with open(dst, "wb") as f:
        f.write(buf)
    return dst


def column_index(path: str, g: int = 0, leaf: int = 0) -> Any:
    footer = read_footer(path)
    with open(path, "rb") as f:
        return read_page_index(f, footer, g, leaf)[0]


def set_column_index(meta: Any, buf: bytearray, ci: Any, g: int = 0, leaf: int = 0) -> None:
    raw = encode(ci)
    chunk = meta.row_groups[g].columns[leaf]
    chunk.column_index_offset, chunk.column_index_length = len(buf), len(raw)
    buf += raw


def stats(meta: Any, g: int = 0, leaf: int = 0) -> Any:
    return meta.row_groups[g].columns[leaf].meta_data.statistics


def plain(value: float) -> bytes:
    return struct.pack("<d", value)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("verify"))


@pytest.fixture(scope="module")
def ieee(folder) -> str:
    """IEEE order, page index, 4 pages: values, NaN+values, all-NaN, all-null."""
    x = doubles([3.0, -1.0, 2.0, np.nan, np.nan, NEG_NAN, None, None])
    path = os.path.join(folder, "ieee.parquet")
    write_table(pa.table({"x": x}), path, data_page_size=1, write_batch_size=2)
    return path


@pytest.fixture(scope="module")
def typed(folder) -> str:
    """TYPE_ORDER (format minimum policy), zeros at both ends, a NaN beside values."""
    x = doubles([0.0, 1.0, 2.0, np.nan, -0.0, 5.0])
    path = os.path.join(folder, "typed.parquet")
    write_table(pa.table({"x": x}), path, "type_order", policy="format_minimum",
                data_page_size=1, write_batch_size=2)
    return path


# --------------------------------------------------------------------------- clean files


@pytest.mark.parametrize("order", ["ieee754", "type_order"])
@pytest.mark.parametrize("policy", ["safe", "format_minimum"])
def test_written_files_are_clean(tmp_path, order, policy) -> None:
    rng = np.random.default_rng(1)
    v = rng.normal(size=400)
    v[rng.random(400) < 0.1] = np.nan
    v[100:140] = np.nan  # all-NaN pages
    v[200:210] = -0.0
    v[210] = 0.0  # with -0.0 alone a dictionary misleads Spark (a finding of its own)
    v[300:302] = NEG_NAN
    mask = rng.random(400) < 0.1
    mask[150:190] = True  # all-null pages
    t = pa.table({"x": pa.array(v, mask=mask),
                  "f": pa.array(v.astype(np.float32), mask=mask),
                  "h": pa.array(v.astype(np.float16), mask=mask),
                  "s": pa.array([str(i) for i in range(400)])})
    for page_index in (True, False):
        path = str(tmp_path / f"{page_index}.parquet")
        write_table(t, path, order, policy=policy, data_page_size=256, write_batch_size=16,
                    row_group_size=150, write_page_index=page_index)
        assert verify(path) == []


def test_a_file_without_float_columns_is_clean(tmp_path) -> None:
    papq.write_table(pa.table({"s": ["a"], "i": [1]}), tmp_path / "t.parquet")
    assert verify(tmp_path / "t.parquet") == []


def test_repeated_float_columns_are_not_checked(tmp_path) -> None:
    t = pa.table({"l": pa.array([[1.0, np.nan], None], pa.list_(pa.float64())),
                  "x": [1.0, 2.0]})
    papq.write_table(t, tmp_path / "t.parquet")
    found = verify(tmp_path / "t.parquet")
    assert {v.column for v in found} == {"x"} and kinds(found) == {"missing_nan_count"}


# --------------------------------------------------------------------------- legacy writers


def test_pyarrow_legacy_file(tmp_path) -> None:
    path = str(tmp_path / "t.parquet")
    papq.write_table(pa.table({"x": [1.0, np.nan, None, -0.0]}), path, write_page_index=True,
                     data_page_size=1, write_batch_size=2)
    found = verify(path)
    # -0.0 without +0.0 in a dictionary-encoded chunk: Spark's dictionary filter drops it
    assert kinds(found) == {"missing_nan_count", "missing_nan_counts",
                            "dictionary_negative_zero"}
    fields = {(v.field, v.page, v.severity) for v in found}
    assert ("statistics.nan_count", None, "warning") in fields
    assert ("column_index.nan_counts", None, "info") in fields
    chunk = next(v for v in found if v.field == "statistics.nan_count")
    assert (chunk.found, chunk.expected, chunk.row_group) == ("absent", "1", 0)
    assert "DuckDB" in chunk.engines[0]  # NaN in the chunk, bounds without nan_count
    [zero] = [v for v in found if v.kind == "dictionary_negative_zero"]
    assert zero.severity == "warning" and "Spark" in zero.engines[0]


def test_pyarrow_page_header_statistics_without_page_index(tmp_path) -> None:
    path = str(tmp_path / "t.parquet")
    papq.write_table(pa.table({"x": [1.0, np.nan, None, -0.0]}), path, data_page_size=1,
                     write_batch_size=2)
    pages = {(v.field, v.page, v.expected) for v in verify(path)}
    assert ("page_header.statistics.nan_count", 0, "1") in pages
    assert ("page_header.statistics.nan_count", 1, "0") in pages


# --------------------------------------------------------------------------- chunk Statistics


@pytest.mark.parametrize("edit, kind, found, expected", [
    (lambda s: setattr(s, "nan_count", 4), "wrong_nan_count", "4", "3"),
    (lambda s: setattr(s, "nan_count", None), "missing_nan_count", "absent", "3"),
    (lambda s: setattr(s, "null_count", 0), "wrong_null_count", "0", "2"),
    (lambda s: setattr(s, "min_value", plain(-2.0)), "inexact_bound", "-2.0", "-1.0"),
    (lambda s: setattr(s, "max_value", plain(2.5)), "bound_excludes_value", "2.5", "3.0"),
    (lambda s: setattr(s, "min_value", plain(np.nan)), "bound_excludes_value",
     "+nan(0x7ff8000000000000)", "-1.0"),
    (lambda s: setattr(s, "max_value", b"\0" * 4), "malformed_bound", "4 bytes",
     "8 bytes (DOUBLE)"),
    (lambda s: setattr(s, "min", plain(0.0)), "bound_excludes_value", "0.0", "<= -1.0"),
])
def test_chunk_statistics_ieee(ieee, tmp_path, edit, kind, found, expected) -> None:
    dst = rewrite(ieee, str(tmp_path / "bad.parquet"), lambda m, b: edit(stats(m)))
    [v] = verify(dst)
    assert (v.kind, v.found, v.expected, v.page, v.row_group) == (kind, found, expected, None, 0)
    assert v.rule == RULES[kind].text
    assert v.field.startswith("statistics.")


def test_a_nan_in_the_deprecated_fields_is_allowed(ieee, tmp_path) -> None:
    dst = rewrite(ieee, str(tmp_path / "bad.parquet"),
                  lambda m, b: setattr(stats(m), "max", plain(np.nan)))
    assert verify(dst) == []


def test_bounds_for_an_all_null_chunk(tmp_path) -> None:
    src = str(tmp_path / "nulls.parquet")
    write_table(pa.table({"x": doubles([None, None])}), src)

    def edit(m, b):
        stats(m).min_value = stats(m).max_value = plain(1.0)

    found = verify(rewrite(src, str(tmp_path / "bad.parquet"), edit))
    assert [(v.kind, v.field) for v in found] == [
        ("bounds_for_null_scope", "statistics.min_value"),
        ("bounds_for_null_scope", "statistics.max_value")]


def test_ieee_all_nan_chunk_needs_the_nan_extremes(tmp_path) -> None:
    src = str(tmp_path / "nan.parquet")
    write_table(pa.table({"x": doubles([np.nan, NEG_NAN])}), src, write_page_index=False)
    assert verify(src) == []
    found = verify(rewrite(src, str(tmp_path / "bad.parquet"),
                           lambda m, b: setattr(stats(m), "min_value", plain(np.nan))))
    [v] = found
    assert (v.kind, v.found, v.expected) == ("bound_excludes_value", "+nan(0x7ff8000000000000)",
                                             "-nan(0xfff8000000000001)")


def test_type_order_rules(typed, tmp_path) -> None:
    assert verify(typed) == []  # non-NaN bounds beside a NaN: the format allows them
    cases = [
        (lambda s: setattr(s, "min_value", plain(0.0)), "zero_rule", "0.0", "-0.0"),
        (lambda s: setattr(s, "max_value", plain(np.nan)), "nan_in_bounds",
         "+nan(0x7ff8000000000000)", "a non-NaN value"),
        (lambda s: setattr(s, "min_value", plain(0.5)), "bound_excludes_value", "0.5",
         "<= -0.0"),
        (lambda s: setattr(s, "max_value", plain(-0.0)), "bound_excludes_value", "-0.0",
         ">= 5.0"),
    ]
    for edit, kind, found, expected in cases:
        dst = rewrite(typed, str(tmp_path / "bad.parquet"),
                      lambda m, b, edit=edit: edit(stats(m)))
        [v] = verify(dst)
        assert (v.kind, v.found, v.expected) == (kind, found, expected)
    # Wider bounds are allowed under TYPE_ORDER.
    def widen(m, b):
        stats(m).min_value, stats(m).max_value = plain(-10.0), plain(10.0)

    assert verify(rewrite(typed, str(tmp_path / "wide.parquet"), widen)) == []


def test_type_order_zero_rule_for_the_max(tmp_path) -> None:
    src = str(tmp_path / "z.parquet")
    write_table(pa.table({"x": doubles([-3.0, 0.0])}), src, "type_order", write_page_index=False)
    found = verify(rewrite(src, str(tmp_path / "bad.parquet"),
                           lambda m, b: setattr(stats(m), "max_value", plain(-0.0))))
    assert [(v.kind, v.found, v.expected) for v in found] == [("zero_rule", "-0.0", "0.0")]


def test_type_order_all_nan_scope_gets_no_bounds(tmp_path) -> None:
    src = str(tmp_path / "n.parquet")
    write_table(pa.table({"x": doubles([np.nan, None])}), src, "type_order",
                write_page_index=False)
    assert verify(src) == []

    def edit(m, b):
        stats(m).min_value = stats(m).max_value = plain(1.0)

    found = verify(rewrite(src, str(tmp_path / "bad.parquet"), edit))
    assert kinds(found) == {"bounds_for_nan_scope"} and len(found) == 2


def test_bounds_without_column_orders(typed, tmp_path) -> None:
    dst = rewrite(typed, str(tmp_path / "bad.parquet"),
                  lambda m, b: setattr(m, "column_orders", None))
    [v] = verify(dst)
    assert (v.kind, v.field, v.found) == ("undefined_column_order", "column_orders", "absent")


# --------------------------------------------------------------------------- page index


def test_column_index_counts_and_null_pages(ieee, tmp_path) -> None:
    ci = column_index(ieee)
    assert ci.nan_counts == [0, 1, 2, 0] and ci.null_pages == [False, False, False, True]
    cases = [
        ("nan_counts", None, "missing_nan_counts", None, "absent"),
        ("nan_counts", [0, 2, 2, 0], "wrong_nan_count", 1, "2"),
        ("null_counts", [0, 0, 0, 1], "wrong_null_count", 3, "1"),
        ("null_pages", [False, False, False, False], "wrong_null_pages", 3, "False"),
    ]
    for name, value, kind, page, found in cases:
        bad = copy.deepcopy(ci)
        setattr(bad, name, value)
        [v] = verify(rewrite(ieee, str(tmp_path / "bad.parquet"),
                             lambda m, b, bad=bad: set_column_index(m, b, bad)))
        assert (v.kind, v.page, v.found) == (kind, page, found), name


def test_column_index_bounds_ieee(ieee, tmp_path) -> None:
    ci = column_index(ieee)
    bad = copy.deepcopy(ci)
    bad.min_values[2] = plain(np.nan)  # all-NaN page: the smallest NaN is NEG_NAN
    bad.min_values[0] = plain(-1.0)  # page 0 is [3.0, -1.0]: exact
    bad.min_values[1] = plain(-0.5)  # page 1 is [2.0, nan]: inexact
    found = verify(rewrite(ieee, str(tmp_path / "bad.parquet"),
                           lambda m, b: set_column_index(m, b, bad)))
    got = {(v.kind, v.page, v.field) for v in found}
    assert got == {("inexact_bound", 1, "column_index.min_values"),
                   ("bound_excludes_value", 2, "column_index.min_values")}


def test_column_index_bounds_type_order(typed, tmp_path) -> None:
    ci = column_index(typed)  # pages [0.0, 1.0], [2.0, nan], [-0.0, 5.0]
    assert [struct.unpack("<d", v)[0] for v in ci.min_values] == [0.0, 2.0, 0.0]
    bad = copy.deepcopy(ci)
    bad.min_values[0] = plain(0.0)  # a zero minimum must be written -0.0
    bad.max_values[1] = plain(np.nan)  # never NaN in TYPE_ORDER bounds
    bad.min_values[2] = plain(0.5)  # excludes -0.0
    bad.max_values[2] = plain(7.0)  # wider than 5.0: allowed
    found = verify(rewrite(typed, str(tmp_path / "bad.parquet"),
                           lambda m, b: set_column_index(m, b, bad)))
    got = {(v.kind, v.page, v.field) for v in found}
    assert got == {("zero_rule", 0, "column_index.min_values"),
                   ("nan_in_bounds", 1, "column_index.max_values"),
                   ("bound_excludes_value", 2, "column_index.min_values")}


def test_boundary_order_claims(tmp_path) -> None:
    src = str(tmp_path / "asc.parquet")
    write_table(pa.table({"x": doubles([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])}), src,
                data_page_size=1, write_batch_size=2)
    ci = column_index(src)
    assert ci.boundary_order == pq.BOUNDARY_ASCENDING and verify(src) == []
    bad = copy.deepcopy(ci)
    bad.boundary_order = pq.BOUNDARY_DESCENDING
    [v] = verify(rewrite(src, str(tmp_path / "bad.parquet"),
                         lambda m, b: set_column_index(m, b, bad)))
    assert (v.kind, v.found, v.expected) == ("wrong_boundary_order", "DESCENDING", "ASCENDING")
    # UNORDERED is always allowed.
    bad.boundary_order = pq.BOUNDARY_UNORDERED
    assert verify(rewrite(src, str(tmp_path / "ok.parquet"),
                          lambda m, b: set_column_index(m, b, bad))) == []


def test_ascending_claim_on_unsorted_lists(tmp_path) -> None:
    src = str(tmp_path / "u.parquet")
    write_table(pa.table({"x": doubles([5.0, 6.0, 1.0, 2.0])}), src, data_page_size=1,
                write_batch_size=2)
    ci = column_index(src)
    ci.boundary_order = pq.BOUNDARY_ASCENDING
    [v] = verify(rewrite(src, str(tmp_path / "bad.parquet"),
                         lambda m, b: set_column_index(m, b, ci)))
    assert (v.kind, v.found, v.expected) == ("wrong_boundary_order", "ASCENDING", "DESCENDING")


def test_type_order_column_index_with_an_all_nan_page(ieee, tmp_path) -> None:
    def to_type_order(m, b):
        m.column_orders = [pq.ColumnOrder(TYPE_ORDER=pq.TypeDefinedOrder())]
        st = stats(m)
        st.min_value = st.max_value = None  # the chunk holds NaN: no bounds is fine

    found = verify(rewrite(ieee, str(tmp_path / "bad.parquet"), to_type_order))
    # The all-NaN page's header keeps its (IEEE) NaN bounds: also wrong now.
    assert [(v.kind, v.page, v.field) for v in found] == [
        ("bounds_for_nan_scope", 2, "page_header.statistics.min_value"),
        ("bounds_for_nan_scope", 2, "page_header.statistics.max_value"),
        ("forbidden_column_index", 2, "column_index")]


def test_offset_index_rows_against_the_headers(tmp_path) -> None:
    src = str(tmp_path / "o.parquet")
    x = doubles([1.0, 2.0, np.nan, 4.0, 5.0, 6.0])
    write_table(pa.table({"x": x}), src, data_page_size=1, write_batch_size=2,
                data_page_version="1.0")
    footer = read_footer(src)
    with open(src, "rb") as f:
        _, oi = read_page_index(f, footer, 0, 0)
    oi.page_locations[1].first_row_index = 3

    def edit(m, b):
        raw = encode(oi)
        chunk = m.row_groups[0].columns[0]
        chunk.offset_index_offset, chunk.offset_index_length = len(b), len(raw)
        b += raw

    found = verify(rewrite(src, str(tmp_path / "bad.parquet"), edit))
    # Reported once; the pages are then checked by their headers' counts.
    assert [(v.kind, v.page, v.found, v.expected) for v in found] == [
        ("wrong_first_row_index", 1, "3", "2")]


def test_page_header_statistics(ieee, tmp_path) -> None:
    """A page header's nan_count edited in place (same encoded length)."""
    footer = read_footer(ieee)
    with open(ieee, "rb") as f:
        page = [p for p in read_pages(f, footer, 0, 0) if p.is_data][1]
        f.seek(0)
        data = bytearray(f.read())
    header = copy.deepcopy(page.header)
    sub = header.data_page_header or header.data_page_header_v2
    assert sub.statistics.nan_count == 1
    sub.statistics.nan_count = 2
    raw = encode(header)
    assert len(raw) == page.header_length
    data[page.offset:page.offset + len(raw)] = raw
    assert decode(pq.PageHeader, bytes(data[page.offset:]))[0] == header
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(data)
    [v] = verify(bad)
    assert (v.kind, v.page, v.field, v.found, v.expected) == (
        "wrong_nan_count", 1, "page_header.statistics.nan_count", "2", "1")


# --------------------------------------------------------------------------- the result


def test_violation_text_and_dict() -> None:
    v = Violation("/a/f.parquet", "s.x", 1, None, "statistics.min_value", "1.0", "-0.0",
                  "zero_rule", RULES["zero_rule"].text)
    assert str(v) == ("f.parquet: column 's.x', row group 1: statistics.min_value is 1.0, "
                      "expected -0.0 (TYPE_ORDER: a zero min is written -0.0, a zero max +0.0)")
    assert v.to_dict() == {"file": "/a/f.parquet", "column": "s.x", "row_group": 1,
                           "page": None, "field": "statistics.min_value", "found": "1.0",
                           "expected": "-0.0", "kind": "zero_rule", "rule": RULES["zero_rule"].text,
                           "severity": "info", "engines": []}
    with pytest.raises(AttributeError):
        v.page = 3  # type: ignore[misc]


def test_unreadable_input(tmp_path) -> None:
    with pytest.raises(FileNotFoundError):
        verify(tmp_path / "missing.parquet")
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not parquet at all PAR1")
    with pytest.raises(ParquetFormatError):
        verify(tmp_path / "bad.parquet")
    results = list(verify_files([str(tmp_path / "bad.parquet")]))
    assert results[0][1] is None and isinstance(results[0][2], ParquetFormatError)


def test_column_index_with_more_entries_than_pages(ieee, tmp_path) -> None:
    ci = column_index(ieee)
    for name in ("null_pages", "min_values", "max_values", "null_counts", "nan_counts"):
        getattr(ci, name).append(getattr(ci, name)[0])

    def edit(m, b):
        set_column_index(m, b, ci)
        chunk = m.row_groups[0].columns[0]
        chunk.offset_index_offset = chunk.offset_index_length = None  # nothing to match

    [v] = verify(rewrite(ieee, str(tmp_path / "bad.parquet"), edit))
    assert (v.kind, v.found, v.expected) == ("column_index_page_count", "5 entries",
                                             "4 (the data pages)")


def test_pages_pyarrow_cannot_decode(tmp_path) -> None:
    """A corrupt page payload: pyarrow's error becomes a ParquetFormatError."""
    src = tmp_path / "t.parquet"
    papq.write_table(pa.table({"x": np.linspace(0, 1, 2000)}), src, compression="snappy",
                     use_dictionary=False)
    footer = read_footer(src)
    with open(src, "rb") as f:
        page = [p for p in read_pages(f, footer, 0, 0) if p.is_data][0]
    data = bytearray(src.read_bytes())
    data[page.data_offset:page.data_offset + 64] = b"\xff" * 64
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(data)
    with pytest.raises(ParquetFormatError, match="pyarrow cannot decode"):
        verify(bad)
