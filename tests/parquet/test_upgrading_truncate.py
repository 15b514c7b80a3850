"""upgrade(truncate=N): STRING columns get recomputed statistics with truncated bounds.

Every upgraded file is re-read with our footer and page-index readers and
held against the decoded values: each stored bound really bounds its page
or chunk (bytes compare unsigned), is at most N bytes unless flagged exact,
stays valid UTF-8, and its exact flag tells the truth; the boundary order
claimed is the one the stored bounds have; pruning over the truncated
bounds loses no row.
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

from nanstats.cli import main
from nanstats.metadata.footer import read_footer
from nanstats.metadata.page_index import read_page_index
from nanstats.metadata.pages import read_pages
from nanstats.metadata.thrift import pq
from nanstats.parquet.reading import read_table
from nanstats.parquet.string_stats import string_stats
from nanstats.parquet.upgrading import TRUNCATED, upgrade
from nanstats.parquet.writing import write_table
from nanstats.prune.expressions import col
from nanstats.prune.files import pages as prune_pages
from tests.parquet.test_upgrading import leaf_values, page_payloads, sha256, table_bits

TRUNCATIONS = (1, 2, 5, 16)
ASCENDING, DESCENDING, UNORDERED = pq.BOUNDARY_ASCENDING, pq.BOUNDARY_DESCENDING, \
    pq.BOUNDARY_UNORDERED

# Multi-byte characters (2, 3 and 4 bytes), the largest code points (whose
# UTF-8 is as close to 0xFF bytes as valid UTF-8 gets), DEL, the empty string.
WORDS = [
    "", "a", "ab", "abc", "abd", "Arthur Dent", "Ford Prefect", "Zaphod Beeblebrox",
    "Trillian", "Marvin", "Slartibartfast", "Zoë", "Zoe", "Zoëy", "ćevapčići", "façade",
    "中文字符", "中", "日本語のテキスト", "😀", "😀😁", "a😀", "aé!", "\x7f\x7f\x7f\x7f",
    "\uffff\uffff\uffff", "\U0010ffff", "\U0010ffff\U0010ffffz", "z\U0010ffff",
    "zzzzzzzzzzzzzzzzzzzzzz", "\U0010ffff" * 5, "\ud7ff\ud7ff", "\ue000x",
    "a very long string that is much longer than sixteen bytes",
]


def mixed_strings(n: int, seed: int = 0, null_rate: float = 0.15) -> list[str | None]:
    rng = np.random.default_rng(seed)
    out: list[str | None] = []
    for _ in range(n):
        if rng.random() < null_rate:
            out.append(None)
            continue
        a, b = rng.integers(len(WORDS), size=2)
        out.append(WORDS[a] + (WORDS[b] if rng.random() < 0.5 else ""))
    return out


def sample_table(rows: int = 240, seed: int = 0) -> pa.Table:
    """Random strings with nulls, an all-null stretch, sorted strings, a float column."""
    mixed = mixed_strings(rows, seed)
    for i in range(40, min(rows, 80)):
        mixed[i] = None  # all-null pages (pages of at most 20 rows, aligned)
    sorted_ = sorted(w for w in mixed_strings(rows, seed + 1, 0.0) if w is not None)
    rng = np.random.default_rng(seed)
    x = rng.normal(size=rows)
    x[rng.random(rows) < 0.1] = np.nan
    return pa.table({"s": pa.array(mixed, pa.string()),
                     "sorted": pa.array(sorted_, pa.string()),
                     "x": pa.array(x)})


def write(tmp_path, table: pa.Table, name: str = "src.parquet", **options) -> str:
    path = str(tmp_path / name)
    options.setdefault("write_page_index", True)
    papq.write_table(table, path, **options)
    return path


def truncated(tmp_path, src: str, n: int | None, name: str = "dst.parquet", **kwargs):
    dst = str(tmp_path / name)
    before = sha256(src)
    report = upgrade(src, dst, truncate=n, **kwargs)
    assert sha256(src) == before
    return dst, report


# --------------------------------------------------------------------------- the checker


def is_utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def check_bounds(st, values: list[bytes | None], n: int, where: str) -> None:
    """A Statistics struct is right for these values under truncation to n bytes."""
    present = [v for v in values if v is not None]
    assert st.null_count == len(values) - len(present), where
    assert st.min is None and st.max is None, where  # no deprecated fields
    assert st.nan_count is None, where
    if not present:
        assert st.min_value is None and st.max_value is None, where
        assert st.is_min_value_exact is None and st.is_max_value_exact is None, where
        return
    lo, hi = min(present), max(present)
    assert st.min_value <= lo and st.max_value >= hi, where
    # Honest flags: exact exactly when the bound is the extreme itself.
    assert st.is_min_value_exact == (st.min_value == lo), where
    assert st.is_max_value_exact == (st.max_value == hi), where
    # Truncated bounds are short; an exact one is the value, whatever its length.
    assert st.is_min_value_exact or len(st.min_value) <= n, where
    assert st.is_max_value_exact or len(st.max_value) <= n, where
    if len(lo) <= n:
        assert st.is_min_value_exact, where
    if st.is_min_value_exact is False:
        assert lo.startswith(st.min_value), where  # a min is a prefix of the true min
    assert is_utf8(st.min_value) and is_utf8(st.max_value), where


def claimed_order_holds(order: int, mins: list[bytes], maxs: list[bytes]) -> bool:
    """The claimed boundary order is the one the stored bounds have (slow twin)."""

    def pairs(xs: list[bytes]) -> list[tuple[bytes, bytes]]:
        return [(xs[k], xs[k + 1]) for k in range(len(xs) - 1)]

    up = all(a <= b for a, b in pairs(mins)) and all(a <= b for a, b in pairs(maxs))
    down = all(a >= b for a, b in pairs(mins)) and all(a >= b for a, b in pairs(maxs))
    expected = ASCENDING if up else DESCENDING if down else UNORDERED
    return order == expected


def check_truncated(src: str, dst: str, n: int) -> int:
    """Everything the issue asks of a file upgraded with truncate=n; returns the
    number of string chunks checked."""
    a, b = papq.read_table(src), papq.read_table(dst)
    assert a.schema.equals(b.schema, check_metadata=True)
    assert table_bits(a).equals(table_bits(b))
    fs, fd = read_footer(src), read_footer(dst)
    checked = 0
    with open(src, "rb") as f_src, open(dst, "rb") as f_dst:
        for g in range(fs.num_row_groups):
            for leaf in fs.columns:
                i = leaf.index
                assert page_payloads(dst, fd, g, i) == page_payloads(src, fs, g, i)
                is_string = leaf.physical_type == pq.TYPE_BYTE_ARRAY and \
                    leaf.max_repetition_level == 0 and \
                    fs.metadata.schema[leaf.schema_index].converted_type == 0
                if not is_string:
                    continue
                checked += 1
                where = f"row group {g}, column {leaf.name!r}"
                assert fd.column_order(i) == fs.column_order(i)
                values = [None if v is None else v.encode()
                          for v in leaf_values(src, fs, g, leaf).to_pylist()]
                new = fd.chunk(g, i).meta_data
                check_bounds(new.statistics, values, n, where)
                src_pages = [p for p in read_pages(f_src, fs, g, i) if p.is_data]
                dst_pages = [p for p in read_pages(f_dst, fd, g, i) if p.is_data]
                counts = [p.num_values for p in src_pages]
                starts = np.concatenate([[0], np.cumsum(counts)]).astype(int).tolist()
                assert starts[-1] == len(values)
                ci, oi = read_page_index(f_dst, fd, g, i)
                ci_src, oi_src = read_page_index(f_src, fs, g, i)
                # OffsetIndex: the pages where they now are, the same first rows.
                assert oi is not None
                assert [(loc.offset, loc.compressed_page_size) for loc in oi.page_locations] \
                    == [(p.offset, p.end - p.offset) for p in dst_pages]
                assert [loc.first_row_index for loc in oi.page_locations] == starts[:-1]
                if oi_src is not None:
                    assert oi.unencoded_byte_array_data_bytes == \
                        oi_src.unencoded_byte_array_data_bytes
                # Each page header, and the ColumnIndex entry, bound that page.
                assert ci is not None and len(ci.null_pages) == len(dst_pages)
                for k, page in enumerate(dst_pages):
                    page_values = values[starts[k]:starts[k + 1]]
                    header = page.header.data_page_header or page.header.data_page_header_v2
                    st = header.statistics
                    check_bounds(st, page_values, n, f"{where}, page {k}")
                    all_null = all(v is None for v in page_values)
                    assert ci.null_pages[k] == all_null
                    assert ci.null_counts[k] == st.null_count
                    if all_null:
                        assert ci.min_values[k] == ci.max_values[k] == b""
                    else:
                        assert (ci.min_values[k], ci.max_values[k]) == \
                            (st.min_value, st.max_value)
                assert ci.nan_counts is None
                kept = [k for k, null in enumerate(ci.null_pages) if not null]
                assert claimed_order_holds(ci.boundary_order,
                                           [ci.min_values[k] for k in kept],
                                           [ci.max_values[k] for k in kept]), where
                if ci_src is not None and len(ci_src.null_pages) == len(dst_pages):
                    assert ci.definition_level_histograms == ci_src.definition_level_histograms
                    assert ci.repetition_level_histograms == ci_src.repetition_level_histograms
    return checked


def string_values(path: str, name: str) -> list[str | None]:
    return papq.read_table(path, columns=[name])[name].to_pylist()


def check_pruning(dst: str, name: str, probes: list[str], *, read: bool = True) -> None:
    """pages() keeps every matching row, read_table() returns exactly the matching rows
    (``read=False``: pages() only)."""
    values = string_values(dst, name)
    table = papq.read_table(dst)
    footer = read_footer(dst)
    group_starts = np.cumsum([0] + [rg.num_rows for rg in footer.metadata.row_groups])
    for probe in probes:
        for op, pred, keep in (
                ("==", col(name) == probe, lambda v, p=probe: v == p),
                (">=", col(name) >= probe, lambda v, p=probe: v >= p),
                ("<", col(name) < probe, lambda v, p=probe: v < p)):
            want = [i for i, v in enumerate(values) if v is not None and keep(v)]
            selection = prune_pages(dst, pred)
            chosen = set()
            for g, ranges in selection.ranges.items():
                for start, stop in ranges:
                    chosen.update(range(group_starts[g] + start, group_starts[g] + stop))
            assert set(want) <= chosen, f"{name} {op} {probe!r} lost rows"
            if not read:
                continue
            got = read_table(dst, pred)
            expected = table.take(pa.array(want, pa.int64()))
            assert table_bits(got).equals(table_bits(expected)), f"{name} {op} {probe!r}"


PROBES = ["x", "", "a", "ab", "abc", "m", "Zoë", "Zoe", "中", "😀", "a😀", "aé!", "\U0010ffff",
          "\U0010ffff\U0010ffffz", "zzzzzzzzzzzzzzzzzzzzzz", "Trillian", "\x7f"]


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("n", TRUNCATIONS)
@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("dictionary", [True, False])
def test_truncated_bounds(tmp_path, n, version, dictionary):
    src = write(tmp_path, sample_table(), max_rows_per_page=20, row_group_size=100,
                data_page_version=version, use_dictionary=dictionary)
    dst, report = truncated(tmp_path, src, n)
    assert check_truncated(src, dst, n) == 2 * 3  # two string columns, three row groups
    by_name = {c.name: c for c in report.columns}
    assert by_name["s"].action == by_name["sorted"].action == TRUNCATED
    assert by_name["s"].column_index and by_name["s"].nan_count is None
    assert by_name["s"].null_count == sum(v is None for v in string_values(src, "s"))
    assert by_name["x"].action == "upgraded"
    assert report.truncated == ("s", "sorted") and report.upgraded == ("x",)
    assert report.truncate == n and report.to_dict()["truncated"] == ["s", "sorted"]
    # The float column is written exactly as upgrade() without truncate writes it.
    plain, _ = truncated(tmp_path, src, None, name="plain.parquet")
    fp, fd = read_footer(plain), read_footer(dst)
    with open(plain, "rb") as a, open(dst, "rb") as b:
        for g in range(fd.num_row_groups):
            assert fp.chunk(g, 2).meta_data.statistics == fd.chunk(g, 2).meta_data.statistics
            assert read_page_index(a, fp, g, 2)[0] == read_page_index(b, fd, g, 2)[0]
            assert [p.header for p in read_pages(a, fp, g, 2)] == \
                [p.header for p in read_pages(b, fd, g, 2)]
    check_pruning(dst, "s", PROBES)
    check_pruning(dst, "sorted", PROBES)


@pytest.mark.parametrize("n", TRUNCATIONS)
def test_sorted_strings_prune_pages(tmp_path, n):
    """Sorted ASCII keeps an ordered index after truncation, and pruning skips pages."""
    words = sorted(f"{c}{i:04d}-{'x' * (i % 7)}" for c in "abcdefghijklmnopqrstuvwxyz"
                   for i in range(12))
    src = write(tmp_path, pa.table({"s": words}), max_rows_per_page=10)
    dst, _ = truncated(tmp_path, src, n)
    check_truncated(src, dst, n)
    footer = read_footer(dst)
    with open(dst, "rb") as f:
        ci, _ = read_page_index(f, footer, 0, 0)
    assert ci.boundary_order == ASCENDING
    rev = write(tmp_path, pa.table({"s": words[::-1]}), name="rev.parquet", max_rows_per_page=10)
    rdst, _ = truncated(tmp_path, rev, n, name="rdst.parquet")
    with open(rdst, "rb") as f:
        assert read_page_index(f, read_footer(rdst), 0, 0)[0].boundary_order == DESCENDING
    check_pruning(dst, "s", ["m0003-xxx", "m", "a", "zz", "k0011-xxxx"])
    # With one character kept the first letter still separates pages.
    selection = prune_pages(dst, col("s") == "m0003-xxx")
    assert 0 < selection.num_rows <= (20 if n == 1 else 10) * 2
    assert selection.num_rows < len(words)


def test_utf8_truncation_can_unsort_bounds(tmp_path):
    """The claimed boundary order comes from the stored bounds, not the values."""
    src = write(tmp_path, pa.table({"s": ["aé!", "a😀"]}), max_rows_per_page=1)
    dst, _ = truncated(tmp_path, src, 3)
    check_truncated(src, dst, 3)
    with open(dst, "rb") as f:
        ci, _ = read_page_index(f, read_footer(dst), 0, 0)
    # True values ascend, but 'aé' (kept whole) > 'a' (the emoji does not fit).
    assert ci.min_values == ["aé".encode(), b"a"]
    assert ci.max_values == ["aê".encode(), b"b"]
    assert ci.boundary_order == UNORDERED
    check_pruning(dst, "s", ["aé!", "a😀", "a", "aé", "b"])


def test_bounds_that_cannot_be_shortened(tmp_path):
    """A max of only U+10FFFF has no shorter upper bound: kept whole, flagged exact."""
    values = ["\U0010ffff" * 4, "\U0010ffff" * 3, "\U0010ffff\U0010ffffa"]
    src = write(tmp_path, pa.table({"s": values}), max_rows_per_page=1)
    dst, _ = truncated(tmp_path, src, 5)
    check_truncated(src, dst, 5)
    st = read_footer(dst).chunk(0, 0).meta_data.statistics
    assert st.max_value == ("\U0010ffff" * 4).encode() and st.is_max_value_exact
    assert st.min_value == "\U0010ffff".encode() and not st.is_min_value_exact
    check_pruning(dst, "s", values + ["\U0010ffff", "z"])


def test_all_null_chunk_and_empty_strings(tmp_path):
    t = pa.table({"s": pa.array([None] * 30 + [""] * 10 + ["ab"] * 10, pa.string())})
    src = write(tmp_path, t, max_rows_per_page=10, row_group_size=30)
    dst, report = truncated(tmp_path, src, 1)
    check_truncated(src, dst, 1)
    footer = read_footer(dst)
    st0, st1 = (footer.chunk(g, 0).meta_data.statistics for g in (0, 1))
    assert st0.null_count == 30 and st0.min_value is None and st0.max_value is None
    assert (st1.min_value, st1.is_min_value_exact) == (b"", True)
    assert (st1.max_value, st1.is_max_value_exact) == (b"b", False)
    with open(dst, "rb") as f:
        ci, _ = read_page_index(f, footer, 0, 0)
    assert ci.null_pages == [True, True, True] and ci.min_values == [b"", b"", b""]
    assert report.columns[0].null_count == 30
    check_pruning(dst, "s", ["", "a", "ab", "b"])


def test_struct_leaf_list_and_binary(tmp_path):
    """A string inside a struct is rewritten (parent nulls count); lists and binary are not."""
    rng = np.random.default_rng(3)
    names = mixed_strings(60, 3)
    t = pa.table({
        "p": pa.array([None if rng.random() < 0.2 else {"name": v} for v in names],
                      pa.struct([("name", pa.string())])),
        "tags": pa.array([[v, "x"] if v else None for v in names], pa.list_(pa.string())),
        "raw": pa.array([None if v is None else v.encode() + b"\xff" for v in names],
                        pa.binary()),
        "d": pa.array(names).dictionary_encode(),
    })
    src = write(tmp_path, t, max_rows_per_page=7)
    dst, report = truncated(tmp_path, src, 2)
    assert check_truncated(src, dst, 2) == 2  # p.name and d
    actions = {c.name: c.action for c in report.columns}
    assert actions == {"p.name": TRUNCATED, "tags.list.element": "copied", "raw": "copied",
                       "d": TRUNCATED}
    assert papq.read_table(dst).schema.field("d").type == t.schema.field("d").type
    fs, fd = read_footer(src), read_footer(dst)
    with open(src, "rb") as a, open(dst, "rb") as b:
        for leaf in (1, 2):
            assert fd.chunk(0, leaf).meta_data.statistics == \
                fs.chunk(0, leaf).meta_data.statistics
            assert read_page_index(a, fs, 0, leaf)[0] == read_page_index(b, fd, 0, leaf)[0]
    # read_table's row filter takes plain string columns, not dictionary ones.
    check_pruning(dst, "d", PROBES[:8], read=False)


def test_no_page_index_in_source(tmp_path):
    """Page boundaries from the headers; the output gets a page index."""
    src = write(tmp_path, sample_table(seed=5), write_page_index=False, max_rows_per_page=25)
    dst, report = truncated(tmp_path, src, 5)
    check_truncated(src, dst, 5)
    assert all(c.column_index for c in report.columns if c.action == TRUNCATED)


def test_without_truncate_strings_are_untouched(tmp_path):
    src = write(tmp_path, sample_table(), max_rows_per_page=20, row_group_size=100)
    dst, report = truncated(tmp_path, src, None)
    fs, fd = read_footer(src), read_footer(dst)
    with open(src, "rb") as a, open(dst, "rb") as b:
        for g in range(fs.num_row_groups):
            for leaf in (0, 1):
                assert fd.chunk(g, leaf).meta_data.statistics == \
                    fs.chunk(g, leaf).meta_data.statistics
                assert read_page_index(a, fs, g, leaf)[0] == read_page_index(b, fd, g, leaf)[0]
                assert [p.header for p in read_pages(a, fs, g, leaf)] == \
                    [p.header for p in read_pages(b, fd, g, leaf)]
    assert [c.action for c in report.columns] == ["copied", "copied", "upgraded"]
    assert report.truncated == () and report.truncate is None


def test_truncation_shortens_the_page_index(tmp_path):
    long = ["the answer to life, the universe and everything " * 3 + str(i) for i in range(200)]
    src = write(tmp_path, pa.table({"s": long}), max_rows_per_page=10)
    dst, _ = truncated(tmp_path, src, 16)
    check_truncated(src, dst, 16)
    fs, fd = read_footer(src), read_footer(dst)
    assert fd.chunk(0, 0).column_index_length < \
        fs.chunk(0, 0).column_index_length
    with open(dst, "rb") as f:
        ci, _ = read_page_index(f, fd, 0, 0)
    assert all(len(v) <= 16 for v in ci.min_values + ci.max_values)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "3"])
def test_truncate_must_be_a_positive_int(tmp_path, bad):
    src = write(tmp_path, sample_table(rows=20))
    with pytest.raises(ValueError, match="truncate"):
        upgrade(src, tmp_path / "dst.parquet", truncate=bad)
    with pytest.raises(ValueError, match="truncate"):
        write_table(sample_table(rows=20), tmp_path / "w.parquet", truncate=bad)
    assert sorted(os.listdir(tmp_path)) == ["src.parquet"]


def test_write_table_passes_truncate(tmp_path):
    path = tmp_path / "t.parquet"
    report = write_table(pa.table({"s": ["Arthur Dent", "Ford Prefect"]}), path, truncate=3)
    assert report.truncated == ("s",)
    st = read_footer(path).chunk(0, 0).meta_data.statistics
    assert (st.min_value, st.max_value) == (b"Art", b"Fos")


def test_cli_truncate(tmp_path, capsys):
    src = write(tmp_path, pa.table({"s": ["Arthur Dent", "Ford Prefect"], "x": [1.0, 2.0]}))
    dst = str(tmp_path / "out.parquet")
    assert main(["upgrade", src, dst, "--truncate", "2"]) == 0
    assert "truncated bounds of s" in capsys.readouterr().out
    st = read_footer(dst).chunk(0, 0).meta_data.statistics
    assert (st.min_value, st.max_value) == (b"Ar", b"Fp")
    assert main(["upgrade", src, str(tmp_path / "bad.parquet"), "--truncate", "0"]) == 2
    assert "positive" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "bad.parquet")


def test_string_stats_matches_a_slow_twin():
    """string_stats against bounds computed by sorting Python bytes."""
    from nanstats.core.byte_bounds import truncate_max, truncate_min

    values = mixed_strings(300, 11)
    starts = [0, 1, 50, 51, 120, 299]
    for n in TRUNCATIONS:
        cs = string_stats(pa.array(values, pa.string()), page_starts=starts, n=n)
        for k, page in enumerate(cs.pages):
            chunk = values[starts[k]:(starts + [len(values)])[k + 1]]
            present = sorted(v.encode() for v in chunk if v is not None)
            assert page.null_count == len(chunk) - len(present)
            if not present:
                assert page.all_null
                continue
            assert (page.min_value, page.min_exact) == truncate_min(present[0], n, utf8=True)
            assert (page.max_value, page.max_exact) == truncate_max(present[-1], n, utf8=True)


def test_page_boundaries_that_do_not_fit_are_refused():
    from nanstats.errors import ParquetFormatError
    from nanstats.parquet.string_stats import string_stats_for_array

    values = pa.array(["a", "b"])
    with pytest.raises(ParquetFormatError, match="2 values but no data page"):
        string_stats_for_array(values, [], None, 3, path="f.parquet", where="row group 0")
    with pytest.raises(ValueError, match="strictly increasing"):
        string_stats(values, page_starts=[0, 1, 1], n=3)
    with pytest.raises(ValueError, match="truncate"):
        string_stats(values, page_starts=[0], n=0)
