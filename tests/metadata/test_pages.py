"""read_pages: page headers of a column chunk, checked against the chunk and the file."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

from nanstats.errors import ParquetFormatError
from nanstats.metadata.footer import read_footer
from nanstats.metadata.page_index import read_page_index
from nanstats.metadata.pages import (
    Page,
    check_first_rows,
    check_offset_index_pages,
    chunk_range,
    header_row_starts,
    pages_from_bytes,
    read_pages,
)
from nanstats.metadata.thrift import decode, encode, pq
from tests.parquet.test_upgrading import rewrite_footer


def write(tmp_path, table, name="t.parquet", **options) -> str:
    path = str(tmp_path / name)
    papq.write_table(table, path, **options)
    return path


def pages_of(path, g=0, leaf=0) -> list[Page]:
    footer = read_footer(path)
    with open(path, "rb") as f:
        return read_pages(f, footer, g, leaf)


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("dictionary", [True, False])
@pytest.mark.parametrize("compression", ["none", "zstd"])
def test_pages_tile_the_chunk(tmp_path, version, dictionary, compression):
    values = pa.array([float(i % 5) if i % 7 else None for i in range(95)])
    path = write(tmp_path, pa.table({"x": values}), data_page_version=version,
                 use_dictionary=dictionary, compression=compression, max_rows_per_page=10,
                 write_page_index=True)
    footer = read_footer(path)
    pages = pages_of(path)
    start, length = chunk_range(footer, 0, 0)
    assert pages[0].offset == start and pages[-1].end == start + length
    assert all(a.end == b.offset for a, b in zip(pages, pages[1:], strict=False))
    data = [p for p in pages if p.is_data]
    assert [p.num_values for p in data] == [10] * 9 + [5]
    assert (pages[0].page_type == pq.PAGE_DICTIONARY) == dictionary
    if dictionary:
        assert pages[0].num_values == 5 and pages[0].type_name == "DICTIONARY_PAGE"
    if version == "2.0":
        assert [p.num_rows for p in data] == [10] * 9 + [5]
        assert {p.type_name for p in data} == {"DATA_PAGE_V2"}
    else:
        assert {p.num_rows for p in data} == {None}
    with open(path, "rb") as f:
        _, oi = read_page_index(f, footer, 0, 0)
        f.seek(start)
        raw = f.read(length)
    assert [loc.offset for loc in oi.page_locations] == [p.offset for p in data]
    check_offset_index_pages(pages, oi, footer, 0, 0)
    assert pages_from_bytes(raw, start, footer, 0, 0) == pages


def test_large_header_grows_the_window(tmp_path):
    # Page statistics of long strings make headers larger than the first read.
    s = pa.array(["a" * 3000 + str(i) for i in range(4)])
    path = write(tmp_path, pa.table({"s": s}), use_dictionary=False, max_rows_per_page=1)
    pages = pages_of(path)
    assert len(pages) == 4 and pages[0].header_length > 1024


def test_dictionary_offset_quirk(tmp_path):
    """dictionary_page_offset 0 or absent while the dictionary sits at data_page_offset."""
    src = write(tmp_path, pa.table({"x": [1.0, 2.0, 1.0] * 10}), max_rows_per_page=10)
    good = pages_of(src)
    assert good[0].page_type == pq.PAGE_DICTIONARY
    for quirk in (0, None):
        bad = str(tmp_path / f"quirk{quirk}.parquet")

        def move(meta, quirk=quirk):
            m = meta.row_groups[0].columns[0].meta_data
            m.data_page_offset, m.dictionary_page_offset = m.dictionary_page_offset, quirk

        rewrite_footer(src, bad, move)
        assert pages_of(bad) == good


def test_empty_row_group(tmp_path):
    # pyarrow writes data_page_offset 0 and only a dictionary page.
    path = write(tmp_path, pa.table({"x": pa.array([], pa.float64())}))
    footer = read_footer(path)
    assert footer.chunk(0, 0).meta_data.data_page_offset == 0
    pages = pages_of(path)
    assert [p.is_data for p in pages] == [False]


def patch(path: str, offset: int, data: bytes) -> None:
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def same_length_header(page: Page, **changes) -> bytes:
    header = page.header
    for name, value in changes.items():
        setattr(header, name, value)
    raw = encode(header)
    assert len(raw) == page.header_length
    return raw


def plain_file(tmp_path, name="t.parquet") -> str:
    return write(tmp_path, pa.table({"x": np.arange(40.0)}), name=name, use_dictionary=False,
                 compression="none", max_rows_per_page=10)


def test_header_lying_about_size(tmp_path):
    path = plain_file(tmp_path)
    last = pages_of(path)[-1]
    raw = same_length_header(last, compressed_page_size=last.compressed_page_size + 8)
    patch(path, last.offset, raw)
    with pytest.raises(ParquetFormatError, match=f"byte {last.offset}.*past the end"):
        pages_of(path)


def test_negative_size(tmp_path):
    path = plain_file(tmp_path)
    page = pages_of(path)[1]
    raw = encode(pq.PageHeader(type=page.header.type, uncompressed_page_size=-1,
                               compressed_page_size=page.compressed_page_size,
                               data_page_header=page.header.data_page_header))
    raw = raw + bytes(page.header_length - len(raw))  # pad: the struct ends at its stop byte
    patch(path, page.offset, raw[:page.header_length])
    with pytest.raises(ParquetFormatError, match="sizes"):
        pages_of(path)


def test_garbage_header(tmp_path):
    path = plain_file(tmp_path)
    page = pages_of(path)[2]
    patch(path, page.offset, b"\xff" * 6)
    with pytest.raises(ParquetFormatError, match=f"byte {page.offset}"):
        pages_of(path)


def test_wrong_value_count(tmp_path):
    path = plain_file(tmp_path)
    page = pages_of(path)[0]
    sub = page.header.data_page_header
    sub.num_values = 11
    patch(path, page.offset, same_length_header(page, data_page_header=sub))
    with pytest.raises(ParquetFormatError, match="hold 41 values.*says 40"):
        pages_of(path)


def test_chunk_outside_the_file(tmp_path):
    src = plain_file(tmp_path)
    bad = str(tmp_path / "bad.parquet")

    def grow(meta):
        meta.row_groups[0].columns[0].meta_data.total_compressed_size = 10**9

    rewrite_footer(src, bad, grow)
    with pytest.raises(ParquetFormatError, match="outside the data region"):
        pages_of(bad)


def test_dictionary_page_not_first(tmp_path):
    path = plain_file(tmp_path)
    footer = read_footer(path)
    first = pages_of(path)[0]
    with open(path, "rb") as f:
        f.seek(first.offset)
        page0 = f.read(first.end - first.offset)
    dictionary = encode(pq.PageHeader(
        type=pq.PAGE_DICTIONARY, uncompressed_page_size=16, compressed_page_size=16,
        dictionary_page_header=pq.DictionaryPageHeader(num_values=2, encoding=0))) + bytes(16)
    with pytest.raises(ParquetFormatError, match="dictionary page that is not the chunk's first"):
        pages_from_bytes(page0 + dictionary, first.offset, footer, 0, 0)
    # The same bytes in the right order walk fine (then fail only on the value count).
    with pytest.raises(ParquetFormatError, match="hold 10 values"):
        pages_from_bytes(dictionary + page0, first.offset, footer, 0, 0)


def test_offset_index_mismatch(tmp_path):
    path = write(tmp_path, pa.table({"x": np.arange(40.0)}), max_rows_per_page=10,
                 write_page_index=True)
    footer = read_footer(path)
    with open(path, "rb") as f:
        pages = read_pages(f, footer, 0, 0)
        _, oi = read_page_index(f, footer, 0, 0)
    check_offset_index_pages(pages, oi, footer, 0, 0)
    oi.page_locations[1].compressed_page_size -= 1
    with pytest.raises(ParquetFormatError, match="OffsetIndex page 1"):
        check_offset_index_pages(pages, oi, footer, 0, 0)
    oi.page_locations.pop()
    with pytest.raises(ParquetFormatError, match="lists 3 pages"):
        check_offset_index_pages(pages, oi, footer, 0, 0)


def test_v2_rows_disagree_with_offset_index(tmp_path):
    path = write(tmp_path, pa.table({"x": np.arange(40.0)}), max_rows_per_page=10,
                 write_page_index=True, data_page_version="2.0")
    footer = read_footer(path)
    with open(path, "rb") as f:
        pages = read_pages(f, footer, 0, 0)
        _, oi = read_page_index(f, footer, 0, 0)
    oi.page_locations[2].first_row_index = 21
    with pytest.raises(ParquetFormatError, match="says 10 rows"):
        check_offset_index_pages(pages, oi, footer, 0, 0)


def test_decode_is_what_was_encoded(tmp_path):
    path = plain_file(tmp_path)
    with open(path, "rb") as f:
        for page in pages_of(path):
            f.seek(page.offset)
            header, used = decode(pq.PageHeader, f.read(page.header_length))
            assert header == page.header and used == page.header_length


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_header_row_starts_and_check_first_rows(tmp_path, version):
    x = pa.array([float(i) if i % 3 else None for i in range(35)])
    path = write(tmp_path, pa.table({"x": x}), max_rows_per_page=10, write_page_index=True,
                 data_page_version=version, use_dictionary=False)
    footer = read_footer(path)
    with open(path, "rb") as f:
        pages = read_pages(f, footer, 0, 0)
        _, oi = read_page_index(f, footer, 0, 0)
    assert header_row_starts(pages, footer, 0, 0) == [0, 10, 20, 30]
    assert check_first_rows(pages, oi, footer, 0, 0) == [0, 10, 20, 30]
    assert check_first_rows(pages, None, footer, 0, 0) == [0, 10, 20, 30]
    oi.page_locations[3].first_row_index = 31
    with pytest.raises(ParquetFormatError, match=r"data page 3 .* starts at row 30 by the page "
                                                 r"headers, but the OffsetIndex says row 31"):
        check_first_rows(pages, oi, footer, 0, 0)


def test_header_row_starts_refuses_headers_that_contradict(tmp_path):
    path = write(tmp_path, pa.table({"x": np.arange(20.0)}), max_rows_per_page=10,
                 data_page_version="2.0", use_dictionary=False)
    footer = read_footer(path)
    pages = pages_of(path)
    pages[1].header.data_page_header_v2.num_rows = 9  # a flat column: rows == values
    lying = [*pages[:1], Page(pages[1].offset, pages[1].header, pages[1].header_length,
                              pages[1].page_type, pages[1].num_values, 9)]
    with pytest.raises(ParquetFormatError, match="data page 1 .* says 9 rows and 10 values"):
        header_row_starts(lying, footer, 0, 0)
    footer.row_groups[0].num_rows = 21
    with pytest.raises(ParquetFormatError, match="hold 20 rows, the row group 21"):
        header_row_starts(pages_of(path), footer, 0, 0)


def test_header_row_starts_of_repeated_columns(tmp_path):
    lists = pa.array([[1.0, 2.0], [], None, [3.0]] * 5)
    for version, want in (("1.0", None), ("2.0", [0, 10])):
        path = write(tmp_path, pa.table({"l": lists}), max_rows_per_page=10,
                     data_page_version=version, use_dictionary=False)
        footer = read_footer(path)
        pages = pages_of(path)
        starts = header_row_starts(pages, footer, 0, 0)
        # v1: only the repetition levels know the rows; v2 headers say them.
        assert starts is None if want is None else starts[:1] == [0], version


def test_a_large_header_after_small_pages(tmp_path):
    """Headers are decoded from windows holding many small pages; a header larger
    than the window (long page statistics) gets a window of its own."""
    src = write(tmp_path, pa.table({"x": np.arange(200.0)}), "small.parquet",
                use_dictionary=False, compression="none", data_page_size=1, write_batch_size=1,
                write_statistics=False)
    footer = read_footer(src)
    with open(src, "rb") as f:
        pages = read_pages(f, footer, 0, 0)
        f.seek(0)
        f_bytes = f.read()
    big = 150
    body = bytearray(b"PAR1")
    for i, page in enumerate(pages):
        header = decode(pq.PageHeader, f_bytes[page.offset:page.data_offset])[0]
        if i == big:
            header.data_page_header.statistics = pq.Statistics(min=b"m" * 100_000)
        body += encode(header) + f_bytes[page.data_offset:page.end]
    meta = footer.metadata
    cmeta = meta.row_groups[0].columns[0].meta_data
    grown = len(body) - 4 - (pages[-1].end - pages[0].offset)
    cmeta.total_compressed_size += grown
    cmeta.total_uncompressed_size += grown
    meta.row_groups[0].total_byte_size += grown
    meta.row_groups[0].total_compressed_size = cmeta.total_compressed_size
    footer_raw = encode(meta)
    path = str(tmp_path / "big.parquet")
    with open(path, "wb") as out:
        out.write(bytes(body) + footer_raw + len(footer_raw).to_bytes(4, "little") + b"PAR1")
    new_footer = read_footer(path)
    with open(path, "rb") as f:
        got = read_pages(f, new_footer, 0, 0)
        start, length = chunk_range(new_footer, 0, 0)
        f.seek(start)
        from_bytes = pages_from_bytes(f.read(length), start, new_footer, 0, 0)
    assert got == from_bytes
    assert [p.num_values for p in got] == [1] * 200
    assert got[big].header_length > 100_000
    assert got[big].header.data_page_header.statistics.min == b"m" * 100_000
    assert [p.header_length for i, p in enumerate(got) if i != big] == \
        [p.header_length for i, p in enumerate(pages) if i != big]
    assert papq.read_table(path)["x"].to_pylist() == list(np.arange(200.0))
