"""Row groups, pages and read_table on real files: sound under every semantics, and exact.

Files are written by pyarrow (legacy statistics, page index on) and by
nanstats (IEEE 754 order; TYPE_ORDER in both policies); columns get pages of
different sizes, so predicates over several columns are judged per segment;
sorted columns give ASCENDING/DESCENDING indexes and the binary search.
"""

from __future__ import annotations

import math
import os
import random

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanstats.core.floats import DOUBLE, FLOAT, FLOAT16, FloatType
from nanstats.errors import ParquetFormatError
from nanstats.parquet.reading import read_table
from nanstats.parquet.writing import write_table
from nanstats.prune.files import explain, pages, row_groups
from nanstats.prune.parser import parse
from nanstats.prune.row_filter import filter_mask
from nanstats.prune.semantics import SEMANTICS
from nanstats.testing.predicate_oracle import evaluate_row, random_predicate
from tests.strategies import special_bits

WRITERS = ("pyarrow", "ieee754", "type_order", "type_order_min")


def _write(table: pa.Table, path: str, writer: str, **opts: object) -> None:
    if writer == "pyarrow":
        papq.write_table(table, path, write_page_index=True, **opts)  # type: ignore[arg-type]
    elif writer == "ieee754":
        write_table(table, path, "ieee754", **opts)
    else:
        policy = "format_minimum" if writer == "type_order_min" else "safe"
        write_table(table, path, "type_order", policy=policy, **opts)  # type: ignore[arg-type]


def _column(rng: random.Random, ft: FloatType, n: int, order: str) -> pa.Array:
    specials = special_bits(ft)
    pool = [rng.choice(specials) if rng.random() < 0.4 else
            int(np.array(rng.uniform(-50, 50), dtype=np.float64).astype(ft.float_dtype)
                .view(ft.bits_dtype)) for _ in range(rng.randint(2, 30))]
    bits = np.array([rng.choice(pool) for _ in range(n)], dtype=ft.bits_dtype)
    if order != "random":
        keys = ft.bits_to_keys(bits)
        bits = bits[np.argsort(keys, kind="stable")]
        if order == "descending":
            bits = bits[::-1].copy()
    values = bits.view(ft.float_dtype)
    nulls = np.array([rng.random() < 0.1 for _ in range(n)], dtype=bool)
    if rng.random() < 0.3:
        nulls[:] = False
    return pa.array(values, mask=nulls, type=pa.from_numpy_dtype(ft.float_dtype))


def _as_rows(table: pa.Table) -> list[dict[str, object]]:
    return table.to_pylist()


def _bits(col: pa.ChunkedArray) -> list[object]:
    out: list[object] = []
    for v in col.to_pylist():
        out.append(None if v is None else
                   np.array(v, dtype=np.float64).view(np.uint64).item()
                   if isinstance(v, float) else v)
    return out


def check_file(path: str, table: pa.Table, predicates: list, rng_rows: list[dict[str, object]]
               ) -> None:
    n = table.num_rows
    md = papq.ParquetFile(path).metadata
    starts = np.cumsum([0] + [md.row_group(g).num_rows for g in range(md.num_row_groups)])
    for pred in predicates:
        for sem in SEMANTICS:
            mask = filter_mask(pred, table, sem)
            slow = [evaluate_row(pred, r, sem) is True for r in rng_rows]
            assert mask.tolist() == slow, (pred, sem)
            kept_groups = set(row_groups(path, pred, semantics=sem))
            sel = pages(path, pred, semantics=sem)
            assert set(sel.row_groups) <= kept_groups
            for i in np.flatnonzero(mask):
                g = int(np.searchsorted(starts, i, side="right") - 1)
                assert g in kept_groups, (pred, sem, i)
                local = i - starts[g]
                assert any(a <= local < b for a, b in sel.ranges.get(g, ())), \
                    (pred, sem, int(i), g, sel.ranges.get(g), str(explain(path, pred,
                                                                            semantics=sem)))
            got = read_table(path, pred, semantics=sem)
            want = table.filter(mask)
            assert got.num_rows == want.num_rows <= n
            for name in table.column_names:
                assert _bits(got.column(name)) == _bits(want.column(name)), (pred, sem, name)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(WRITERS),
       st.sampled_from(["random", "ascending", "descending"]),
       st.sampled_from([FLOAT16, FLOAT, DOUBLE]))
def test_files_sound_and_exact(tmp_path_factory: pytest.TempPathFactory, seed: int, writer: str,
                               order: str, ft: FloatType) -> None:
    rng = random.Random(seed)
    n = rng.choice([0, 1, 7, 60, 200])
    table = pa.table({
        "x": _column(rng, ft, n, order),
        "y": _column(rng, DOUBLE, n, rng.choice(["random", "ascending"])),
        "k": pa.array(sorted(rng.randint(-5, 50) for _ in range(n)), type=pa.int64()),
    })
    path = os.path.join(str(tmp_path_factory.mktemp("skip")), "t.parquet")
    _write(table, path, writer, row_group_size=rng.choice([16, 64, 1000]),
           data_page_size=rng.choice([1, 64, 256]), write_batch_size=rng.choice([3, 8, 16]),
           use_dictionary=rng.random() < 0.3)
    xs = [v for v in table.column("x").to_pylist() if v is not None][:5]
    lits = [*xs, 0.0, -0.0, 1.0, math.inf, -math.inf, math.nan, -math.nan, 10, 25]
    preds = [random_predicate(rng, ["x", "y"], lits, depth=rng.randint(0, 2)) for _ in range(4)]
    preds += [parse("k >= 20 and x > 0"), parse("x between -1 and 30"), parse("is_nan(x)")]
    check_file(path, table, preds, _as_rows(table))


def test_binary_search_used_and_steps_counted(tmp_path: object) -> None:
    x = np.r_[np.arange(4000.0), np.full(200, np.nan)]
    path = os.path.join(str(tmp_path), "sorted.parquet")
    write_table(pa.table({"x": x}), path, data_page_size=512, write_batch_size=64)
    report = explain(path, "x >= 100 and x < 110", semantics="ieee")
    (rg,) = report.row_groups
    (search,) = rg.searches
    assert search.method == "binary"
    assert search.pages > 50
    assert search.steps <= 2 * math.ceil(math.log2(search.pages + 1))
    assert search.candidates == 1
    ((a, b),) = report.selection.ranges[0]
    assert a <= 100 and 110 <= b and b - a <= 128
    # nan_greatest: the NaN pages may match x >= 100, and are found from nan_counts.
    kept = explain(path, "x >= 3990", semantics="nan_greatest").selection
    assert kept.num_rows == 4200 - 3968


def test_legacy_index_without_nan_counts_keeps_every_page(tmp_path: object) -> None:
    path = os.path.join(str(tmp_path), "legacy.parquet")
    papq.write_table(pa.table({"x": np.arange(1000.0)}), path, write_page_index=True,
                     data_page_size=512, write_batch_size=64)
    # No nan_count: any page may hold NaN, which Spark puts above 500.
    assert pages(path, "x > 500").num_rows == 1000
    assert pages(path, "x > 500", semantics="ieee").num_rows < 1000
    after = os.path.join(str(tmp_path), "upgraded.parquet")
    write_table(pa.table({"x": np.arange(1000.0)}), after, data_page_size=512,
                write_batch_size=64)
    assert pages(after, "x > 500").num_rows == pages(after, "x > 500", semantics="ieee").num_rows


def test_errors_name_the_problem(tmp_path: object) -> None:
    path = os.path.join(str(tmp_path), "t.parquet")
    papq.write_table(pa.table({"x": [1.0]}), path)
    with pytest.raises(KeyError, match="no column 'nope'"):
        pages(path, "nope > 1")
    with pytest.raises(ValueError, match="semantics must be an EngineProfile or one of"):
        row_groups(path, "x > 1", semantics="sparkle")
    with pytest.raises(ValueError, match="no profile for 'postgres': not measured"):
        pages(path, "x > 1", semantics="postgres")
    with pytest.raises(ValueError, match="cannot parse"):
        read_table(path, "x >")
    bad = os.path.join(str(tmp_path), "bad.parquet")
    with open(bad, "wb") as f:
        f.write(b"PAR1garbagePAR1")
    with pytest.raises(ParquetFormatError):
        pages(bad, "x > 1")


@pytest.mark.parametrize("writer", ["ieee754", "type_order", "pyarrow"])
def test_search_and_zeros(tmp_path: object, writer: str) -> None:
    x = np.r_[np.full(64, -1.0), np.full(64, -0.0), np.full(64, 0.0), np.full(64, 1.0)]
    path = os.path.join(str(tmp_path), "zeros.parquet")
    _write(pa.table({"x": x}), path, writer, data_page_size=1, write_batch_size=64)
    rows = {(sem, p): pages(path, p, semantics=sem).num_rows
            for sem in SEMANTICS for p in ("x == 0", "x == -0.0", "x < 0.0", "x >= 0")}
    for sem in ("ieee", "nan_greatest", "nan_least"):
        assert rows[sem, "x == 0"] == rows[sem, "x == -0.0"] == 128
        assert rows[sem, "x >= 0"] >= 192
    if writer == "ieee754":  # exact bounds: total order tells the zeros apart
        assert rows["total_order", "x == 0"] == 64
        assert rows["total_order", "x == -0.0"] == 64
        assert rows["total_order", "x < 0.0"] == 128
        assert rows["ieee", "x < 0.0"] == 64
        assert explain(path, "x == 0", semantics="ieee").row_groups[0].searches[0].method \
            == "binary"


def test_read_table_reads_only_kept_pages(tmp_path: object) -> None:
    """Pages outside the selection are overwritten with garbage: the read never sees them."""
    from nanstats.metadata.footer import read_footer
    from nanstats.metadata.page_index import read_page_index

    n = 4000
    table = pa.table({"x": np.arange(n, dtype=np.float64),
                      "s": pa.array([f"s{i % 7}" for i in range(n)]),
                      "f": pa.array(np.arange(n) % 5, type=pa.float16())})
    path = os.path.join(str(tmp_path), "t.parquet")
    write_table(table, path, data_page_size=512, write_batch_size=64, row_group_size=2000)
    sel = pages(path, "x >= 2100 and x < 2110")
    footer = read_footer(path)
    ruined = 0
    with open(path, "r+b") as f:
        for g in range(footer.num_row_groups):
            for leaf in footer.columns:
                _, oi = read_page_index(f, footer, g, leaf.index)
                locs = oi.page_locations
                starts = [loc.first_row_index for loc in locs]
                ends = [*starts[1:], footer.metadata.row_groups[g].num_rows]
                for loc, a, b in zip(locs, starts, ends, strict=True):
                    if not any(a < y and x < b for x, y in sel.ranges.get(g, ())):
                        f.seek(loc.offset)
                        f.write(b"\xff" * loc.compressed_page_size)
                        ruined += 1
    assert ruined > 50
    got = read_table(path, "x >= 2100 and x < 2110")
    assert got.column("x").to_pylist() == [float(v) for v in range(2100, 2110)]
    assert got.column("s").to_pylist() == [f"s{i % 7}" for i in range(2100, 2110)]
    assert got.column("f").to_pylist() == [float(i % 5) for i in range(2100, 2110)]
