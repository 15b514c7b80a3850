"""walk_pages and the compiled walker: the same pages as the Python decoder, headers
rewritten with every other byte kept, hostile bytes bounded."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nanstats import _pagewalk
from nanstats.errors import ParquetFormatError
from nanstats.metadata.compact import UNKNOWN, unknown_fields, write_struct
from nanstats.metadata.footer import read_footer
from nanstats.metadata.page_walk import ABSENT, STATISTICS_FIELD, walk_pages
from nanstats.metadata.pages import chunk_range, read_pages
from nanstats.metadata.thrift import decode, pq


def _python_pages(path, g, leaf):
    """Each page header of a chunk decoded by the Python decoder, with its offset."""
    footer = read_footer(path)
    start, length = chunk_range(footer, g, leaf)
    with open(path, "rb") as f:
        data = f.read()
    pos, out = start, []
    while pos < start + length:
        header, used = decode(pq.PageHeader, data[pos:start + length])
        out.append((pos, used, header))
        pos += used + header.compressed_page_size
    return out


def _opt(v):
    return None if v is None else v


FILES = [
    dict(version="1.0", data_page_version="1.0", use_dictionary=True, compression="none"),
    dict(version="2.6", data_page_version="2.0", use_dictionary=False, compression="zstd"),
    dict(version="2.6", data_page_version="2.0", use_dictionary=True, compression="snappy"),
    dict(version="2.6", data_page_version="1.0", use_dictionary=False, compression="none",
         write_page_index=True, data_page_size=64, write_batch_size=7),
]


@pytest.mark.parametrize("options", FILES)
def test_the_walk_matches_the_python_decoder_on_every_chunk(tmp_path, options):
    x = np.linspace(-3, 3, 300)
    x[::7] = np.nan
    t = pa.table({"x": pa.array(x, mask=np.arange(300) % 5 == 0),
                  "s": pa.array([str(i % 11) * (i % 3) for i in range(300)]),
                  "st": pa.StructArray.from_arrays([pa.array(x[::-1])], ["v"])})
    path = str(tmp_path / "t.parquet")
    papq.write_table(t, path, row_group_size=120, **options)
    footer = read_footer(path)
    with open(path, "rb") as f:
        raw = f.read()
    for g in range(footer.num_row_groups):
        for leaf in range(len(footer.columns)):
            start, length = chunk_range(footer, g, leaf)
            with open(path, "rb") as f:
                f.seek(start)
                table = walk_pages(f.read(length), start, footer, g, leaf)
            expected = _python_pages(path, g, leaf)
            assert len(table) == len(expected)
            for i, (offset, used, h) in enumerate(expected):
                sub = h.data_page_header or h.data_page_header_v2 or h.dictionary_page_header
                assert table.offset[i] == offset and table.header_length[i] == used
                assert table.page_type[i] == h.type
                assert table.compressed_page_size[i] == h.compressed_page_size
                assert table.uncompressed_page_size[i] == h.uncompressed_page_size
                assert table.num_values[i] == sub.num_values
                assert table.encoding[i] == sub.encoding
                v2 = h.data_page_header_v2
                assert _opt(None if table.num_rows[i] == ABSENT else table.num_rows[i]) == \
                    (v2.num_rows if v2 else None)
                assert table.header_bytes(i) == raw[offset:offset + used]
            with open(path, "rb") as f:  # read_pages: the same walk, with the headers decoded
                pages = read_pages(f, footer, g, leaf)
            assert [p.header for p in pages] == [h for _, _, h in expected]


# ------------------------------------------------------------ generated headers

_RAW = st.sampled_from([(5, b"\x02"), (8, b"\x02hi"), (12, b"\x15\x04\x00"), (1, b""),
                        (6, b"\x80\x01"), (9, b"\x25\x02\x04"), (13, bytes(16))])


def _unknown(ids):
    return st.lists(st.tuples(st.sampled_from(ids), _RAW), max_size=3,
                    unique_by=lambda t: t[0]).map(
        lambda fs: tuple(sorted((fid, wire, raw) for fid, (wire, raw) in fs)))


def _with_unknown(obj, fields):
    if fields:
        vars(obj)[UNKNOWN] = fields
    return obj


_I32 = st.integers(0, 2**31 - 1)
_STATS = st.one_of(st.none(), st.builds(pq.Statistics, null_count=st.integers(0, 99),
                                        max_value=st.binary(max_size=9)))


@st.composite
def headers(draw):
    kind = draw(st.sampled_from([0, 2, 3]))
    n = draw(st.integers(0, 1000))
    if kind == 0:
        sub = pq.DataPageHeader(num_values=n, encoding=draw(st.integers(0, 9)),
                                definition_level_encoding=3, repetition_level_encoding=3,
                                statistics=draw(_STATS))
        sub = _with_unknown(sub, draw(_unknown([6, 7, 20, 100])))
        h = pq.PageHeader(type=0, data_page_header=sub)
    elif kind == 3:
        sub = pq.DataPageHeaderV2(num_values=n, num_nulls=draw(st.integers(0, n)), num_rows=n,
                                  encoding=0, definition_levels_byte_length=0,
                                  repetition_levels_byte_length=0,
                                  is_compressed=draw(st.booleans()), statistics=draw(_STATS))
        sub = _with_unknown(sub, draw(_unknown([9, 10, 30, 200])))
        h = pq.PageHeader(type=3, data_page_header_v2=sub)
    else:
        sub = _with_unknown(pq.DictionaryPageHeader(num_values=n, encoding=0),
                            draw(_unknown([4, 5, 40])))
        h = pq.PageHeader(type=2, dictionary_page_header=sub)
    size = draw(st.integers(0, 40))
    h.uncompressed_page_size = h.compressed_page_size = size
    h.crc = draw(st.one_of(st.none(), _I32))
    return _with_unknown(h, draw(_unknown([9, 10, 17, 300])))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(headers(), min_size=1, max_size=4), st.binary(min_size=1, max_size=12))
def test_generated_headers_walk_as_decoded_and_rewrite_keeping_every_other_byte(hs, stats):
    hs = [h for i, h in enumerate(hs) if h.type != 2 or i == 0]  # a dictionary page first only
    chunk = b"".join(write_struct(h) + bytes(h.compressed_page_size) for h in hs)
    walk = _pagewalk.Walk()
    assert walk.walk(chunk, 0, 0, len(chunk))[:2] == (_pagewalk.WALKED, len(chunk))
    cols = walk.columns()
    new_stats = pq.Statistics(null_count=len(stats), min_value=stats, max_value=stats)
    encoded = write_struct(new_stats)
    fid = np.array([STATISTICS_FIELD.get(h.type, 0) for h in hs], dtype=np.int64)
    at = np.arange(int((fid > 0).sum()) + 1, dtype=np.int64) * len(encoded)
    new, new_at = _pagewalk.rewrite_headers(
        walk.headers(), cols["header_at"], cols["header_length"], cols["stats_lo"],
        cols["stats_hi"], cols["stats_prev"], cols["next_byte"], fid,
        encoded * int((fid > 0).sum()), at)
    for i, h in enumerate(hs):
        raw = write_struct(h)
        assert cols["header_length"][i] == len(raw)
        decoded, used = decode(pq.PageHeader, raw)
        assert used == len(raw)
        sub = decoded.data_page_header or decoded.data_page_header_v2 or \
            decoded.dictionary_page_header
        assert cols["type"][i] == decoded.type and cols["num_values"][i] == sub.num_values
        rewritten, used = decode(pq.PageHeader, new[new_at[i]:new_at[i + 1]])
        assert used == new_at[i + 1] - new_at[i]
        if not fid[i]:
            assert new[new_at[i]:new_at[i + 1]] == raw
            continue
        new_sub = rewritten.data_page_header or rewritten.data_page_header_v2
        assert new_sub.statistics == new_stats
        new_sub.statistics = sub.statistics = None
        assert rewritten == decoded  # every other field as it was, unknown ones too
        assert unknown_fields(rewritten) == unknown_fields(decoded)
        assert unknown_fields(new_sub) == unknown_fields(sub)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(headers(), st.data())
def test_hostile_bytes_end_in_an_outcome_never_a_crash(h, data):
    raw = bytearray(write_struct(h) + bytes(h.compressed_page_size))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(1, len(raw)))
    walk = _pagewalk.Walk()
    outcome, pos, reason, at = walk.walk(bytes(raw[:cut]), 100, 100, 100 + cut)
    assert 0 <= outcome <= _pagewalk.REPEATED_FIELD
    assert walk.count <= cut  # at most one page per byte: bounded by the input
    if outcome == _pagewalk.DECODE_ERROR:
        assert reason and pos <= at <= 100 + cut
        if pos == 100:  # the first header: the Python decoder refuses it too
            with pytest.raises(ParquetFormatError):
                decode(pq.PageHeader, bytes(raw[:cut]))


def test_a_repeated_statistics_field_is_refused_not_half_replaced():
    sub = bytes([0x15, 0x02, 0x4c, 0x16, 0x02, 0x00, 0x0c, 0x0a, 0x00, 0x00])  # statistics twice
    raw = bytes([0x15, 0x00, 0x15, 0x00, 0x15, 0x00, 0x2c]) + sub + b"\x00"
    outcome, _, reason, _ = _pagewalk.Walk().walk(raw, 0, 0, len(raw))
    assert outcome == _pagewalk.REPEATED_FIELD and "field 5 of data_page_header" in reason


@pytest.mark.parametrize("cut", [0, 1, 7, 20])
def test_a_file_ending_inside_the_chunk_is_an_error_never_a_loop(tmp_path, cut):
    """Windows read from a file truncated meanwhile come back short (or empty): the
    walk stops with ParquetFormatError instead of asking for the same window forever."""
    path = tmp_path / "t.parquet"
    papq.write_table(pa.table({"x": np.arange(5000.0)}), path, data_page_size=256)
    footer = read_footer(str(path))
    start, length = chunk_range(footer, 0, 0)
    data = path.read_bytes()[:start + cut]  # what is left of the file

    def window(offset: int, size: int) -> bytes:
        return data[offset:offset + size]

    with pytest.raises(ParquetFormatError, match="the file ends at byte"):
        walk_pages(window, start, footer, 0, 0, length)
