"""SelectionReader: the pages a selection keeps, read and cut exactly as a whole read would give them."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nanstats.metadata.footer import read_footer
from nanstats.metadata.page_index import PageIndexRegion
from nanstats.parquet.page_reader import SelectionReader, reader_for, survivors_selection
from nanstats.parquet.reading import read_selection, selection_bytes
from nanstats.prune.parser import parse
from nanstats.prune.results import RowSelection
from nanstats.prune.row_filter import filter_mask

ROWS = 600


def _table(rng: np.random.Generator, n: int) -> pa.Table:
    x = rng.normal(size=n)
    x[rng.random(n) < 0.1] = np.nan
    x[rng.random(n) < 0.05] = -np.nan
    y = rng.integers(-5, 5, size=n).astype(np.float32)
    return pa.table({
        "x": pa.array(x, mask=rng.random(n) < 0.1),
        "y": pa.array(y),
        "k": pa.array(np.arange(n, dtype=np.int64)),
        "s": pa.array([f"v{v}" for v in rng.integers(0, 7, size=n)]).dictionary_encode(),
        "h": pa.array(rng.normal(size=n).astype(np.float16)),
        "l": pa.array([[int(v)] for v in rng.integers(0, 3, size=n)]),  # nested: read whole
    })


@st.composite
def files(draw: st.DrawFn) -> tuple[pa.Table, dict[str, object]]:
    seed = draw(st.integers(0, 2**32 - 1))
    options = {
        "row_group_size": draw(st.sampled_from([97, 250, ROWS])),
        "data_page_size": draw(st.sampled_from([64, 512, 1 << 20])),
        "write_batch_size": draw(st.sampled_from([7, 32, 1024])),
        "use_dictionary": draw(st.booleans()),
        "write_page_index": draw(st.booleans()),
    }
    return _table(np.random.default_rng(seed), ROWS), options


@st.composite
def selections(draw: st.DrawFn, groups: list[int]) -> RowSelection:
    ranges = {}
    for g, rows in enumerate(groups):
        if not draw(st.booleans()):
            continue
        cuts = sorted(set(draw(st.lists(st.integers(0, rows), min_size=2, max_size=8))))
        pairs = tuple((a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=False) if a < b)
        if pairs:
            ranges[g] = pairs
    return RowSelection(ranges, sum(groups))


def _written(tmp_path: object, data: st.DataObject, made: tuple[pa.Table, dict[str, object]]
             ) -> tuple[pa.Table, str, RowSelection]:
    """The table written with the drawn options, and a selection of its rows drawn."""
    table, options = made
    path = os.path.join(str(tmp_path), "t.parquet")
    papq.write_table(table, path, **options)
    pf = papq.ParquetFile(path)
    groups = [pf.metadata.row_group(g).num_rows for g in range(pf.num_row_groups)]
    return table, path, data.draw(selections(groups))


def _expected(path: str, sel: RowSelection, columns: list[str]) -> pa.Table:
    pf = papq.ParquetFile(path)
    parts = []
    for g in sel.row_groups:
        t = pf.read_row_group(g, columns=columns)
        parts += [t.slice(a, b - a) for a, b in sel.ranges[g]]
    return pa.concat_tables(parts) if parts else pf.schema_arrow.empty_table().select(columns)


def _same(got: pa.Table, want: pa.Table) -> None:
    assert got.column_names == want.column_names
    for name in want.column_names:
        a, b = got.column(name), want.column(name)
        if pa.types.is_dictionary(b.type):
            b = b.cast(b.type.value_type)
        if pa.types.is_dictionary(a.type):
            a = a.cast(a.type.value_type)
        assert a.type == b.type, name
        # Compare bit patterns of floats (NaN signs included) through their repr.
        assert repr(a.to_pylist()) == repr(b.to_pylist()), name


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), made=files())
def test_read_equals_whole_read_sliced(tmp_path, data, made) -> None:
    table, path, sel = _written(tmp_path, data, made)
    columns = data.draw(st.lists(st.sampled_from(table.column_names), min_size=1, max_size=6,
                                 unique=True))
    reader = SelectionReader(path)
    _same(reader.read(sel, columns), _expected(path, sel, columns))
    _same(read_selection(path, sel, columns), _expected(path, sel, columns))
    counts = reader.counts()
    assert (counts.files, counts.row_groups, counts.pages) == \
        (1, len(sel.row_groups), _pages_overlapping(path, sel, columns))
    assert counts.bytes == reader.bytes_read


def _pages_overlapping(path: str, sel: RowSelection, columns: list[str]) -> int:
    """Data pages of flat columns with an OffsetIndex whose rows meet the selection
    (from the page locations, one page at a time)."""
    footer = read_footer(path)
    total = 0
    with open(path, "rb") as f:
        region = PageIndexRegion(f, footer)
        for leaf in footer.columns:
            if leaf.path[0] not in columns or len(leaf.path) != 1 or leaf.max_repetition_level:
                continue
            for g in sel.row_groups:
                _, oi = region.read_page_index(footer, g, leaf.index)
                if oi is None:
                    continue
                rows = footer.row_groups[g].num_rows
                firsts = [loc.first_row_index for loc in oi.page_locations] + [rows]
                total += sum(any(a < hi and lo < b for a, b in sel.ranges[g])
                             for lo, hi in zip(firsts, firsts[1:], strict=False))
    return total


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), made=files(),
       query=st.sampled_from(["x > 0.5", "x < -1 or y == 2", "is_nan(x)", "not (x <= 0)",
                              "k > 550", "y != 0 and x > -2", "k < 3 or k > 590",
                              "k > 100 and x > 0 and y < 3 and s == 'v2'", "true and x < 0"]),
       semantics=st.sampled_from(["spark", "ieee", "duckdb", "total_order"]))
def test_read_where_equals_whole_read_filtered(tmp_path, data, made, query, semantics) -> None:
    """Late materialization: the other columns read at the passing rows only, the same rows."""
    table, path, sel = _written(tmp_path, data, made)
    pred = parse(query)
    want = _expected(path, sel, table.column_names)
    want = want.filter(filter_mask(pred, want, semantics)) if want.num_rows else want
    reader = SelectionReader(path)
    got = reader.read_where(sel, pred, semantics)
    _same(got, want)
    # Each selected row group counted once, though the other columns are a second read.
    assert reader.counts().row_groups == len(sel.row_groups)


def test_read_where_constants_and_missing_columns(tmp_path) -> None:
    path = os.path.join(tmp_path, "t.parquet")
    papq.write_table(pa.table({"x": [1.0, 5.0, np.nan]}), path)
    sel = RowSelection({0: ((0, 3),)}, 3)
    got = SelectionReader(path).read_where(sel, parse("x > 2 and day == 4"), "spark",
                                           ["day", "x"], {"day": pa.scalar(4, pa.int32())})
    assert repr(got.to_pydict()) == repr({"day": [4, 4], "x": [5.0, float("nan")]})
    with pytest.raises(KeyError, match="no column 'z'"):
        SelectionReader(path).read_where(sel, parse("x > 2"), "spark", ["z"])


@settings(max_examples=80, deadline=None)
@given(data=st.data(), gap=st.integers(0, 50))
def test_survivors_selection_gathers_the_passing_rows(data, gap) -> None:
    groups = data.draw(st.lists(st.integers(1, 60), min_size=1, max_size=5))
    sel = data.draw(selections(groups))
    n = sel.num_rows
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    rows = [(g, r) for g in sel.row_groups for a, b in sel.ranges[g] for r in range(a, b)]
    survivors, positions = survivors_selection(sel, mask, gap=gap)
    covered = [(g, r) for g in survivors.row_groups for a, b in survivors.ranges[g]
               for r in range(a, b)]
    assert [covered[p] for p in positions] == [rw for rw, m in zip(rows, mask, strict=True) if m]


def test_bytes_counted_match_what_a_read_takes(tmp_path) -> None:
    path = os.path.join(tmp_path, "t.parquet")
    papq.write_table(pa.table({"x": np.arange(20_000.0), "k": np.arange(20_000)}), path,
                     data_page_size=4096, use_dictionary=False, write_page_index=True,
                     row_group_size=5_000)
    sel = RowSelection({1: ((100, 200),), 3: ((0, 10),)}, 20_000)
    reader = SelectionReader(path)
    reader.read(sel, ["x"])  # page index and footer read now
    before = reader.bytes_read
    reader.read(sel, ["x"])
    assert reader.bytes_read - before == selection_bytes(path, sel, ["x"])
    assert 0 < selection_bytes(path, sel, ["x"]) < os.path.getsize(path) / 20


def test_reader_for_is_made_again_when_the_file_changes(tmp_path) -> None:
    path = os.path.join(tmp_path, "t.parquet")
    papq.write_table(pa.table({"x": [1.0]}), path)
    first = reader_for(path)
    assert reader_for(path) is first
    papq.write_table(pa.table({"x": [1.0, 2.0, 3.0]}), path)
    again = reader_for(path)
    assert again is not first
    assert again.read(RowSelection({0: ((0, 3),)}, 3)).num_rows == 3
