"""upgrade(): same data, payloads byte for byte, float statistics rewritten per the rules.

Every upgraded file is re-read with our footer and page-index readers and held
against statistics computed independently from the decoded values with
``nanstats.summary`` / ``page_stats`` / ``column_index``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as papq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanstats
from nanstats.errors import ParquetFormatError, UnsupportedParquetError
from nanstats.metadata.footer import read_footer
from nanstats.metadata.page_index import read_page_index
from nanstats.metadata.pages import chunk_range, read_pages
from nanstats.metadata.thrift import decode, encode, pq
from nanstats.parquet.upgrading import UpgradeReport, upgrade
from nanstats.parquet.upgrading import layout as layout_module
from nanstats.parquet.upgrading import writer as writer_module
from tests.parquet.corpus import bits_view

# --------------------------------------------------------------------------- helpers


def sha256(path: str | os.PathLike[str]) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def table_bits(table: pa.Table) -> pa.Table:
    table = table.combine_chunks()
    return pa.table({name: bits_view(table.column(name).chunk(0)) if table.num_rows else
                     table.column(name) for name in table.column_names})


def assert_same_data(src: str, dst: str) -> None:
    """pyarrow, DuckDB and polars read the same values (float bits included)."""
    a, b = papq.read_table(src), papq.read_table(dst)
    assert a.schema.equals(b.schema, check_metadata=True)
    assert table_bits(a).equals(table_bits(b))
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    da = con.sql(f"select * from read_parquet('{src}')").to_arrow_table()
    db = con.sql(f"select * from read_parquet('{dst}')").to_arrow_table()
    assert table_bits(da).equals(table_bits(db))
    pl = pytest.importorskip("polars")
    assert table_bits(pl.read_parquet(src).to_arrow()).equals(
        table_bits(pl.read_parquet(dst).to_arrow()))


def leaf_values(path: str, footer, g: int, leaf) -> pa.Array:
    """A leaf's values in one row group, read with pyarrow, ancestors' nulls applied."""
    t = papq.ParquetFile(path).read_row_group(g, columns=[leaf.name])
    arr = t.column(leaf.path[0]).combine_chunks()
    for name in leaf.path[1:]:
        arr = pc.struct_field(arr, [arr.type.get_field_index(name)])
    return arr


def expected_statistics(s: nanstats.ColumnStats, order: str, policy: str) -> bytes:
    enc = s.statistics(order, policy=policy)
    st_ = pq.Statistics(null_count=enc.null_count, nan_count=enc.nan_count)
    if enc.min_value is not None:
        st_.min_value, st_.max_value = enc.min_value, enc.max_value
        st_.is_min_value_exact = st_.is_max_value_exact = True
    return encode(st_)


def page_payloads(path: str, footer, g: int, leaf: int) -> list[tuple[int, int | None, bytes]]:
    with open(path, "rb") as f:
        out = []
        for p in read_pages(f, footer, g, leaf):
            f.seek(p.data_offset)
            out.append((p.page_type, p.header.crc, f.read(p.compressed_page_size)))
        return out


def check_upgraded(src: str, dst: str, order: str = "ieee754", policy: str = "safe") -> None:
    """Everything the issue asks of an upgraded file, checked from the bytes."""
    fs, fd = read_footer(src), read_footer(dst)
    assert fd.num_row_groups == fs.num_row_groups
    assert [c.path for c in fd.columns] == [c.path for c in fs.columns]
    assert fd.metadata.schema == fs.metadata.schema
    assert fd.metadata.key_value_metadata == fs.metadata.key_value_metadata
    with open(src, "rb") as f_src, open(dst, "rb") as f_dst:
        for g in range(fs.num_row_groups):
            assert fd.metadata.row_groups[g].num_rows == fs.metadata.row_groups[g].num_rows
            first = fd.chunk(g, 0).meta_data
            start = chunk_range(fd, g, 0)[0]
            assert fd.metadata.row_groups[g].file_offset in (None, start, first.data_page_offset)
            for leaf in fs.columns:
                i = leaf.index
                # Payloads and CRCs byte for byte, same page types.
                assert page_payloads(dst, fd, g, i) == page_payloads(src, fs, g, i)
                old, new = fs.chunk(g, i).meta_data, fd.chunk(g, i).meta_data
                assert new.num_values == old.num_values
                assert new.encodings == old.encodings and new.codec == old.codec
                dst_pages = read_pages(f_dst, fd, g, i)
                ci, oi = read_page_index(f_dst, fd, g, i)
                ci_src, oi_src = read_page_index(f_src, fs, g, i)
                if oi is not None:
                    data_pages = [p for p in dst_pages if p.is_data]
                    assert [(loc.offset, loc.compressed_page_size) for loc in oi.page_locations] \
                        == [(p.offset, p.end - p.offset) for p in data_pages]
                if leaf.float_type is None or leaf.max_repetition_level > 0:
                    # Copied: statistics, column order and page index as they were.
                    assert new.statistics == old.statistics
                    assert fd.column_order(i) == fs.column_order(i) or \
                        fs.column_order(i) == "undefined"
                    assert ci == ci_src
                    assert (oi is None) == (oi_src is None)
                    if oi is not None:
                        assert [loc.first_row_index for loc in oi.page_locations] == \
                            [loc.first_row_index for loc in oi_src.page_locations]
                        assert [loc.compressed_page_size for loc in oi.page_locations] == \
                            [loc.compressed_page_size for loc in oi_src.page_locations]
                    continue
                assert fd.column_order(i) == order
                values = leaf_values(src, fs, g, leaf)
                chunk = nanstats.summary(values)
                assert encode(new.statistics) == expected_statistics(chunk, order, policy)
                assert new.statistics.nan_count == chunk.nan_count
                assert new.statistics.min is None and new.statistics.max is None
                # Page boundaries: the source pages' value counts.
                src_counts = [p.num_values for p in read_pages(f_src, fs, g, i) if p.is_data]
                starts = np.concatenate([[0], np.cumsum(src_counts)[:-1]]).astype(np.int64)
                assert oi is not None
                assert [loc.first_row_index for loc in oi.page_locations] == starts.tolist()
                pages = nanstats.page_stats(values, page_starts=starts)
                data_pages = [p for p in dst_pages if p.is_data]
                assert [encode(p.statistics) for p in data_pages] == \
                    [expected_statistics(s, order, policy) for s in pages]
                want = nanstats.column_index(values, page_starts=starts, order=order,
                                             policy=policy)
                if want is None:
                    assert ci is None
                else:
                    assert ci is not None
                    assert ci.null_pages == list(want.null_pages)
                    assert ci.min_values == list(want.min_values)
                    assert ci.max_values == list(want.max_values)
                    assert ci.null_counts == list(want.null_counts)
                    assert ci.nan_counts == list(want.nan_counts)
                    assert ci.boundary_order == {"UNORDERED": 0, "ASCENDING": 1,
                                                 "DESCENDING": 2}[want.boundary_order]
                # Offsets: total sizes add up from the pages.
                s0, length = chunk_range(fd, g, i)
                assert s0 + length == dst_pages[-1].end
                assert new.data_page_offset == data_pages[0].offset
                if dst_pages[0].page_type == pq.PAGE_DICTIONARY:
                    assert new.dictionary_page_offset == dst_pages[0].offset
                else:
                    assert new.dictionary_page_offset is None


def write(tmp_path, table: pa.Table, name: str = "src.parquet", **options) -> str:
    path = str(tmp_path / name)
    papq.write_table(table, path, **options)
    return path


def upgraded(tmp_path, src: str, order: str = "ieee754", policy: str = "safe",
             name: str = "dst.parquet") -> tuple[str, UpgradeReport]:
    dst = str(tmp_path / name)
    before = sha256(src)
    report = upgrade(src, dst, order, policy=policy)
    assert sha256(src) == before  # the source is never modified
    assert name in os.listdir(tmp_path)
    assert not [p for p in os.listdir(tmp_path) if p.endswith("-tmp")]
    # Read through pread instead of the memory map: the same bytes.
    unmapped = str(tmp_path / f"unmapped-{name}")
    assert upgrade(src, unmapped, order, policy=policy, memory_map=False) == \
        dataclasses.replace(report, dst=unmapped)
    assert sha256(unmapped) == sha256(dst)
    os.unlink(unmapped)
    return dst, report


def blocks(*parts: tuple[str, int], dtype=np.float64, seed: int = 0) -> pa.Array:
    """Runs of 'num' (finite numbers), 'nan' (both signs), 'null', 'mix' values."""
    rng = np.random.default_rng(seed)
    values, valid = [], []
    bits_dtype = np.dtype(f"u{np.dtype(dtype).itemsize}")
    for kind, n in parts:
        v = rng.normal(size=n).astype(dtype)
        ok = np.ones(n, bool)
        if kind == "nan":
            nan = np.full(n, np.nan, dtype=dtype).view(bits_dtype)
            sign = bits_dtype.type(1 << (8 * bits_dtype.itemsize - 1))
            nan[::2] |= sign
            nan[1::3] |= bits_dtype.type(1)
            v = nan.view(dtype)
        elif kind == "null":
            ok[:] = False
        elif kind == "mix":
            v[::3] = np.nan
            v[1::4] = -0.0
            ok[2::5] = False
        values.append(v)
        valid.append(ok)
    v, ok = np.concatenate(values), np.concatenate(valid)
    return pa.array(v, mask=~ok, from_pandas=False)


# --------------------------------------------------------------------------- cases

LAYOUT = [("mix", 25), ("nan", 20), ("null", 20), ("num", 30), ("mix", 17)]


def sample_table(dtype=np.float64) -> pa.Table:
    n = sum(k for _, k in LAYOUT)
    return pa.table({
        "x": blocks(*LAYOUT, dtype=dtype),
        "y": blocks(("num", n), dtype=np.float32, seed=1),
        "i": pa.array(np.arange(n, dtype=np.int64)),
        "s": pa.array([f"s{k % 7}" if k % 5 else None for k in range(n)]),
    })


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("dictionary", [True, False])
@pytest.mark.parametrize("compression", ["none", "snappy"])
@pytest.mark.parametrize("page_index", [True, False])
def test_layouts(tmp_path, version, dictionary, compression, page_index):
    src = write(tmp_path, sample_table(), data_page_version=version, use_dictionary=dictionary,
                compression=compression, write_page_index=page_index, max_rows_per_page=20,
                row_group_size=70)
    dst, report = upgraded(tmp_path, src)
    check_upgraded(src, dst)
    assert_same_data(src, dst)
    assert report.upgraded == ("x", "y") and report.skipped == ()
    x = report.columns[0]
    assert x.rows == 112 and x.pages == 4 + 3 and x.column_index
    assert x.nan_count == nanstats.summary(papq.read_table(src)["x"]).nan_count


@pytest.mark.parametrize("policy", ["safe", "format_minimum"])
def test_type_order(tmp_path, policy):
    src = write(tmp_path, sample_table(), max_rows_per_page=20, write_page_index=True)
    dst, report = upgraded(tmp_path, src, "type_order", policy)
    check_upgraded(src, dst, "type_order", policy)
    assert_same_data(src, dst)
    x = report.columns[0]
    # Pages hold NaN (safe) / an all-NaN page (format_minimum): no index for x.
    assert not x.column_index and "NaN" in x.reason
    assert report.columns[1].column_index  # y has no NaN


def test_float16_and_float32(tmp_path):
    t = pa.table({"h": blocks(*LAYOUT, dtype=np.float16, seed=3),
                  "f": blocks(*LAYOUT, dtype=np.float32, seed=4)})
    src = write(tmp_path, t, max_rows_per_page=16)
    assert read_footer(src).columns[0].float_type.physical_type == "FLOAT16"
    dst, report = upgraded(tmp_path, src)
    check_upgraded(src, dst)
    assert_same_data(src, dst)
    assert report.upgraded == ("h", "f")


def test_all_nan_and_all_null_pages(tmp_path):
    t = pa.table({"x": blocks(("nan", 10), ("null", 10), ("nan", 10), ("num", 10))})
    src = write(tmp_path, t, max_rows_per_page=10, use_dictionary=False)
    dst, _ = upgraded(tmp_path, src)
    check_upgraded(src, dst)
    with open(dst, "rb") as f:
        fd = read_footer(f)
        ci, _ = read_page_index(f, fd, 0, 0)
    assert ci.null_pages == [False, True, False, False]
    assert ci.nan_counts == [10, 0, 10, 0]
    assert ci.min_values[1] == b"" and ci.max_values[1] == b""
    # An all-NaN page's bounds are its NaN extremes (a -NaN with a payload first).
    lo = np.frombuffer(ci.min_values[0], np.uint64)[0]
    assert lo >> 63 == 1 and (lo & 0x7FF0000000000000) == 0x7FF0000000000000


def test_all_null_column(tmp_path):
    t = pa.table({"x": pa.array([None] * 30, pa.float64())})
    src = write(tmp_path, t, max_rows_per_page=10)
    dst, report = upgraded(tmp_path, src)
    check_upgraded(src, dst)
    assert_same_data(src, dst)
    st_ = read_footer(dst).chunk(0, 0).meta_data.statistics
    assert st_.min_value is None and st_.null_count == 30 and st_.nan_count == 0


def test_nested_struct_and_list(tmp_path):
    n = 60
    inner = blocks(("mix", 30), ("nan", 30), seed=5)
    struct_type = pa.struct([("a", pa.float64()), ("b", pa.int32())])
    s = pa.StructArray.from_arrays([inner, pa.array(np.arange(n, dtype=np.int32))],
                                   fields=list(struct_type), mask=pa.array(np.arange(n) % 7 == 0))
    lists = pa.array([[1.0, float("nan")] if k % 3 else None for k in range(n)],
                     pa.list_(pa.float32()))
    src = write(tmp_path, pa.table({"s": s, "l": lists, "z": blocks(("num", n))}),
                max_rows_per_page=16, write_page_index=True)
    dst, report = upgraded(tmp_path, src)
    check_upgraded(src, dst)
    assert_same_data(src, dst)
    assert report.upgraded == ("s.a", "z")
    assert report.skipped == ("l.list.element",)
    skipped = {c.name: c for c in report.columns}["l.list.element"]
    assert skipped.action == "skipped" and "repeated" in skipped.reason
    # The struct leaf is null where the struct is null.
    with open(dst, "rb") as f:
        fd = read_footer(f)
        ci, _ = read_page_index(f, fd, 0, 0)
    assert sum(ci.null_counts) == int(pc.struct_field(s, [0]).null_count)


def test_non_float_page_index_and_bloom_filters(tmp_path):
    n = 200
    t = pa.table({"k": pa.array([f"key{i}" for i in range(n)]),
                  "v": pa.array(np.linspace(-1, 1, n)),
                  "i": pa.array(np.arange(n))})
    src = write(tmp_path, t, max_rows_per_page=50, write_page_index=["k", "v"],
                bloom_filter_options={"k": {"ndv": n, "fpp": 0.05}}, row_group_size=100)
    fs = read_footer(src)
    assert fs.chunk(0, 0).meta_data.bloom_filter_offset is not None
    dst, report = upgraded(tmp_path, src)
    check_upgraded(src, dst)
    assert_same_data(src, dst)
    assert report.bloom_filters == 2
    fd = read_footer(dst)
    with open(src, "rb") as a, open(dst, "rb") as b:
        for g in range(2):
            old, new = fs.chunk(g, 0).meta_data, fd.chunk(g, 0).meta_data
            a.seek(old.bloom_filter_offset)
            b.seek(new.bloom_filter_offset)
            assert a.read(old.bloom_filter_length) == b.read(new.bloom_filter_length)
    # The bloom filter still answers through pyarrow/DuckDB (which uses it to prune).
    duckdb = pytest.importorskip("duckdb")
    q = "select count(*) from read_parquet('{}') where k = 'key7'"
    con = duckdb.connect()
    assert con.execute(q.format(dst)).fetchall() == con.execute(q.format(src)).fetchall() == [(1,)]
    names = {c.name: c for c in report.columns}
    assert names["i"].action == "copied" and names["k"].action == "copied"
    assert names["k"].column_index and names["v"].column_index


def test_multiple_row_groups_checksums_and_filters(tmp_path):
    t = sample_table()
    src = write(tmp_path, t, row_group_size=40, max_rows_per_page=9, write_page_checksum=True)
    dst, report = upgraded(tmp_path, src)
    check_upgraded(src, dst)
    assert report.row_groups == 3
    # pyarrow verifies the (unchanged) page CRCs.
    got = papq.ParquetFile(dst, page_checksum_verification=True).read()
    assert table_bits(got).equals(table_bits(papq.read_table(src)))
    # DuckDB prunes row groups with the statistics: it must answer as on the
    # values themselves (in memory, no statistics).  (On the pyarrow-written
    # source, DuckDB 2.0 answers 0 for isnan(x): its legacy statistics
    # exclude NaN and carry no nan_count.)
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.register("mem", papq.read_table(src))
    for pred in ("x > 0.5", "x < -0.5", "x = 0", "isnan(x)", "x is null", "y > 1",
                 "x > 'nan'::double", "x >= 'inf'::double"):
        q = f"select count(*) from {{}} where {pred}"
        truth = con.execute(q.format("mem")).fetchall()
        assert con.execute(q.format(f"read_parquet('{dst}')")).fetchall() == truth, pred


def test_upgrade_twice_is_stable(tmp_path):
    src = write(tmp_path, sample_table(), max_rows_per_page=20)
    mid, _ = upgraded(tmp_path, src, name="mid.parquet")
    dst, _ = upgraded(tmp_path, mid, name="dst.parquet")
    assert sha256(mid) == sha256(dst)
    back, _ = upgraded(tmp_path, mid, "type_order", name="back.parquet")
    check_upgraded(mid, back, "type_order")


def test_report_and_progress(tmp_path):
    src = write(tmp_path, sample_table(), max_rows_per_page=20)
    seen = []
    report = upgrade(src, tmp_path / "dst.parquet", progress=lambda d, t: seen.append((d, t)))
    total = os.path.getsize(src)
    assert seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert report.bytes_in == total
    assert report.bytes_out == os.path.getsize(tmp_path / "dst.parquet")
    d = report.to_dict()
    assert d["columns"][0]["name"] == "x" and d["skipped"] == []
    assert "upgraded=['x', 'y']" in repr(report)
    from rich.progress import Progress

    with Progress(disable=True) as bar:
        upgrade(src, tmp_path / "dst2.parquet", progress=bar)
        assert bar.tasks[0].completed == total
    with pytest.raises(TypeError, match="progress"):
        upgrade(src, tmp_path / "dst3.parquet", progress=3)
    assert not os.path.exists(tmp_path / "dst3.parquet")


# --------------------------------------------------------------------------- hypothesis

float_bits = {
    np.float64: st.integers(0, 2**64 - 1),
    np.float32: st.integers(0, 2**32 - 1),
    np.float16: st.integers(0, 2**16 - 1),
}
specials = {
    np.float64: [0x7FF8000000000000, 0xFFF8000000000001, 0x8000000000000000, 0, 0x7FF0000000000000],
    np.float32: [0x7FC00000, 0xFFC00001, 0x80000000, 0, 0xFF800000],
    np.float16: [0x7E00, 0xFE01, 0x8000, 0, 0x7C00],
}


@st.composite
def columns(draw):
    dtype = draw(st.sampled_from([np.float64, np.float32, np.float16]))
    n = draw(st.integers(1, 60))
    element = st.one_of(float_bits[dtype], st.sampled_from(specials[dtype]))
    bits = np.array(draw(st.lists(element, min_size=n, max_size=n)),
                    dtype=f"u{np.dtype(dtype).itemsize}")
    nulls = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    return pa.array(bits.view(dtype), mask=nulls)


@settings(max_examples=12, deadline=None)
@given(col=columns(), rows_per_page=st.integers(1, 25), version=st.sampled_from(["1.0", "2.0"]),
       order=st.sampled_from(["ieee754", "type_order"]), dictionary=st.booleans())
def test_hypothesis(tmp_path_factory, col, rows_per_page, version, order, dictionary):
    tmp_path = tmp_path_factory.mktemp("h")
    src = write(tmp_path, pa.table({"x": col}), max_rows_per_page=rows_per_page,
                data_page_version=version, use_dictionary=dictionary)
    dst, _ = upgraded(tmp_path, src, order)
    check_upgraded(src, dst, order)
    a, b = papq.read_table(src), papq.read_table(dst)
    assert table_bits(a).equals(table_bits(b))


# --------------------------------------------------------------------------- failures


def test_failure_midway_leaves_nothing(tmp_path, monkeypatch):
    src = write(tmp_path, sample_table(), max_rows_per_page=20, row_group_size=50)
    dst = tmp_path / "dst.parquet"
    calls = []

    def boom(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("disk on fire")
        return real(*args, **kwargs)

    real = layout_module.write_chunk
    monkeypatch.setattr(layout_module, "write_chunk", boom)
    with pytest.raises(RuntimeError, match="disk on fire"):
        upgrade(src, dst)
    assert sorted(os.listdir(tmp_path)) == ["src.parquet"]
    # An existing dst is left untouched, too.
    dst.write_bytes(b"old contents")
    calls.clear()
    with pytest.raises(RuntimeError):
        upgrade(src, dst)
    assert dst.read_bytes() == b"old contents"
    assert sorted(os.listdir(tmp_path)) == ["dst.parquet", "src.parquet"]


def test_failure_at_fsync_leaves_nothing(tmp_path, monkeypatch):
    src = write(tmp_path, sample_table())

    def fail(fd):
        raise OSError("fsync failed")

    monkeypatch.setattr(writer_module.os, "fsync", fail)
    with pytest.raises(OSError, match="fsync failed"):
        upgrade(src, tmp_path / "dst.parquet")
    assert sorted(os.listdir(tmp_path)) == ["src.parquet"]


def test_same_file_refused(tmp_path):
    src = write(tmp_path, sample_table())
    before = sha256(src)
    with pytest.raises(ValueError, match="same file"):
        upgrade(src, src)
    os.link(src, tmp_path / "hardlink.parquet")
    with pytest.raises(ValueError, match="same file"):
        upgrade(src, tmp_path / "hardlink.parquet")
    with pytest.raises(ValueError, match="order"):
        upgrade(src, tmp_path / "x.parquet", "nan_last")
    assert sha256(src) == before
    assert sorted(os.listdir(tmp_path)) == ["hardlink.parquet", "src.parquet"]


def rewrite_footer(src: str, dst: str, mutate) -> None:
    """Copy src to dst with its FileMetaData changed by ``mutate``."""
    fs = read_footer(src)
    meta = fs.metadata
    mutate(meta)
    raw = encode(meta)
    with open(src, "rb") as f:
        body = f.read(fs.metadata_offset)
    with open(dst, "wb") as f:
        f.write(body + raw + len(raw).to_bytes(4, "little") + b"PAR1")


def test_encrypted_refused(tmp_path):
    src = write(tmp_path, sample_table())
    bad = str(tmp_path / "enc.parquet")

    def encrypt(meta):
        meta.encryption_algorithm = pq.EncryptionAlgorithm(AES_GCM_V1=pq.AesGcmV1())

    rewrite_footer(src, bad, encrypt)
    with pytest.raises(UnsupportedParquetError, match="encrypted"):
        upgrade(bad, tmp_path / "dst.parquet")

    def encrypt_column(meta):
        meta.row_groups[0].columns[1].crypto_metadata = pq.ColumnCryptoMetaData(
            ENCRYPTION_WITH_FOOTER_KEY=pq.EncryptionWithFooterKey())

    rewrite_footer(src, bad, encrypt_column)
    with pytest.raises(UnsupportedParquetError, match="'y' is encrypted"):
        upgrade(bad, tmp_path / "dst.parquet")
    assert not os.path.exists(tmp_path / "dst.parquet")
    assert not [p for p in os.listdir(tmp_path) if p.endswith("-tmp")]


def test_sizes_out_of_range_refused(tmp_path):
    # Found by the fuzz suite: a chunk's total_uncompressed_size at the i64
    # maximum no longer fits once the new header bytes are added.
    src = write(tmp_path, sample_table())
    good, _ = upgraded(tmp_path, src, name="good.parquet")
    old, new = read_footer(src).chunk(0, 0).meta_data, read_footer(good).chunk(0, 0).meta_data
    delta = new.total_uncompressed_size - old.total_uncompressed_size
    assert delta != 0  # the header bytes of column x changed
    bad = str(tmp_path / "huge.parquet")

    def huge(meta):
        meta.row_groups[0].columns[0].meta_data.total_uncompressed_size = \
            2**63 - 1 if delta > 0 else -(2**63)

    rewrite_footer(src, bad, huge)
    os.unlink(good)
    with pytest.raises(ParquetFormatError, match="cannot encode the new footer.*out of range"):
        upgrade(bad, tmp_path / "dst.parquet")
    assert sorted(os.listdir(tmp_path)) == ["huge.parquet", "src.parquet"]


def patch_bytes(path: str, offset: int, new: bytes) -> None:
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(new)


def patch_offset_index(src: str, dst: str, g: int, leaf: int, mutate) -> None:
    """Copy src to dst with the OffsetIndex of one chunk changed in place by ``mutate``
    (which must keep its encoded size)."""
    with open(src, "rb") as f:
        data = bytearray(f.read())
    chunk = read_footer(src).chunk(g, leaf)
    at, length = chunk.offset_index_offset, chunk.offset_index_length
    oi, used = decode(pq.OffsetIndex, bytes(data[at:at + length]))
    mutate(oi)
    raw = encode(oi)
    assert len(raw) == used, "the mutation changed the encoded size"
    data[at:at + used] = raw
    with open(dst, "wb") as f:
        f.write(data)


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("memory_map", [True, False])
@pytest.mark.parametrize("leaf", [0, 1])  # a float column (rewritten), an int column (copied)
def test_offset_index_first_row_contradicting_the_headers(tmp_path, version, memory_map,
                                                          leaf):
    """Issue 17 item 1: a first_row_index that is not where the headers put the page
    (still increasing, so it looks plausible) is refused, never written as bounds."""
    src = write(tmp_path, pa.table({"x": np.arange(50.0), "i": np.arange(50)}),
                max_rows_per_page=10, write_page_index=True, data_page_version=version,
                use_dictionary=False)
    upgrade(src, tmp_path / "good.parquet", memory_map=memory_map)  # as written: fine
    bad = str(tmp_path / "bad.parquet")
    patch_offset_index(src, bad, 0, leaf,
                       lambda oi: setattr(oi.page_locations[2], "first_row_index", 15))
    name = ["x", "i"][leaf]
    # v1 pages: the row comes from num_values; v2 pages: from num_rows (which
    # the span of page 1 then contradicts first).
    message = (rf"row group 0, column '{name}': data page 2 \(DATA_PAGE at byte \d+\) starts "
               r"at row 20 by the page headers, but the OffsetIndex says row 15"
               if version == "1.0" else
               rf"row group 0, column '{name}': OffsetIndex page 1 spans rows 10..15, but its "
               "DATA_PAGE_V2 header says 10 rows")
    with pytest.raises(ParquetFormatError, match=message) as info:
        upgrade(bad, tmp_path / "dst.parquet", memory_map=memory_map)
    assert info.value.path == bad
    assert sorted(os.listdir(tmp_path)) == ["bad.parquet", "good.parquet", "src.parquet"]


def test_page_header_lying_about_its_size(tmp_path):
    src = write(tmp_path, pa.table({"x": np.arange(50.0)}), use_dictionary=False,
                compression="none", max_rows_per_page=10)
    fs = read_footer(src)
    with open(src, "rb") as f:
        pages = read_pages(f, fs, 0, 0)
    page = pages[1]
    header = page.header
    # The largest size of the same varint length (zigzag: 2 * size < 128**k).
    size = page.compressed_page_size
    k = ((2 * size).bit_length() + 6) // 7
    header.compressed_page_size = (128**k - 1) // 2
    raw = encode(header)
    assert len(raw) == page.header_length and header.compressed_page_size > size + 20
    patch_bytes(src, page.offset, raw)
    with pytest.raises(ParquetFormatError, match=f"byte {page.offset}"):
        upgrade(src, tmp_path / "dst.parquet")
    assert sorted(os.listdir(tmp_path)) == ["src.parquet"]


def test_offset_index_pointing_elsewhere(tmp_path):
    src = write(tmp_path, pa.table({"x": np.arange(50.0)}), max_rows_per_page=10,
                write_page_index=True)
    fs = read_footer(src)
    chunk = fs.chunk(0, 0)
    with open(src, "rb") as f:
        f.seek(chunk.offset_index_offset)
        oi, used = decode(pq.OffsetIndex, f.read(chunk.offset_index_length))
    oi.page_locations[2].offset += 1
    oi.page_locations[2].compressed_page_size -= 1  # still inside its slot: looks plausible
    raw = encode(oi)
    assert len(raw) == used
    patch_bytes(src, chunk.offset_index_offset, raw)
    with pytest.raises(ParquetFormatError, match="OffsetIndex page 2"):
        upgrade(src, tmp_path / "dst.parquet")
    assert sorted(os.listdir(tmp_path)) == ["src.parquet"]


def test_footer_value_count_lies(tmp_path):
    src = write(tmp_path, pa.table({"x": np.arange(50.0)}))
    bad = str(tmp_path / "bad.parquet")

    def lie(meta):
        meta.row_groups[0].columns[0].meta_data.num_values = 51

    rewrite_footer(src, bad, lie)
    with pytest.raises(ParquetFormatError, match="hold 50 values"):
        upgrade(bad, tmp_path / "dst.parquet")


def test_no_row_groups(tmp_path):
    src = write(tmp_path, pa.table({"x": pa.array([], pa.float64())}))
    dst, report = upgraded(tmp_path, src)
    assert papq.read_table(dst).num_rows == 0
    assert read_footer(dst).column_order(0) == "ieee754"
    assert report.columns[0].rows == 0
