"""A corpus of real files from pyarrow, polars and DuckDB (Spark: tests/spark/).

Every file: inspect reads it, verify reports exactly the kinds of violation its
writer is known for (and the right NaN counts), and after an upgrade to either
column order verify finds nothing and the values read back bit for bit.

What the writers do today (pyarrow 26, polars 2, DuckDB 2): pyarrow and polars
write no ``nan_count`` (chunk, page headers, ColumnIndex) but otherwise follow
the TYPE_ORDER rules (non-NaN bounds, zero rule, no ColumnIndex for a chunk with
an all-NaN page); DuckDB writes ``nan_count`` and no bounds for a chunk with NaN,
so its files are clean.
"""

from __future__ import annotations

import os

import pytest

from tests.parquet.corpus import ALL_NAN, check_file, corpus_table

LEGACY = {"missing_nan_count"}
# with a ColumnIndex: no nan_counts either (an info finding: optional in the format)
LEGACY_INDEX = LEGACY | {"missing_nan_counts"}

PYARROW = {
    "pa_default": ({}, LEGACY),
    "pa_small_pages_index": (dict(data_page_size=256, write_batch_size=32, write_page_index=True,
                                  row_group_size=200, use_dictionary=False, compression="none"),
                             LEGACY_INDEX),
    "pa_v2_zstd_dict": (dict(data_page_version="2.0", compression="zstd", write_page_index=True,
                             row_group_size=250, data_page_size=512, write_batch_size=50),
                        LEGACY_INDEX),
    "pa_v1_rows_per_page": (dict(max_rows_per_page=37, write_page_index=True,
                                 compression="snappy", use_dictionary=False), LEGACY),
    "pa_v2_rows_per_page_no_index": (dict(max_rows_per_page=37, data_page_version="2.0",
                                          row_group_size=300), LEGACY),
    "pa_no_statistics": (dict(write_statistics=False, write_page_index=True,
                              max_rows_per_page=37), set()),
}
POLARS = {
    "pl_default": ({}, LEGACY_INDEX),
    "pl_small_pages": (dict(row_group_size=200, data_page_size=512, compression="uncompressed"),
                       LEGACY_INDEX),
    "pl_zstd": (dict(compression="zstd", row_group_size=300), LEGACY_INDEX),
}
DUCKDB = {
    "dd_default": ("", set()),
    "dd_small_row_groups": (", ROW_GROUP_SIZE 200, COMPRESSION uncompressed", set()),
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> dict[str, tuple[str, set[str]]]:
    import duckdb
    import polars as pl
    import pyarrow.parquet as papq

    folder = tmp_path_factory.mktemp("corpus")
    table = corpus_table()
    files = {}
    for name, (options, kinds) in PYARROW.items():
        path = str(folder / f"{name}.parquet")
        papq.write_table(table, path, **options)
        files[name] = (path, kinds)
    no_half = table.drop(["h"])  # float16: pyarrow only
    for name, (options, kinds) in POLARS.items():
        path = str(folder / f"{name}.parquet")
        pl.from_arrow(no_half).write_parquet(path, statistics=True, **options)
        files[name] = (path, kinds)
    con = duckdb.connect()
    con.register("corpus", no_half)
    for name, (options, kinds) in DUCKDB.items():
        path = str(folder / f"{name}.parquet")
        con.sql(f"COPY corpus TO '{path}' (FORMAT parquet{options})")
        files[name] = (path, kinds)
    con.close()
    return files


@pytest.mark.parametrize("name", [*PYARROW, *POLARS, *DUCKDB])
def test_corpus_file(corpus, name, tmp_path) -> None:
    path, kinds = corpus[name]
    check_file(path, kinds, str(tmp_path))


def test_corpus_has_what_it_claims(corpus) -> None:
    """The awkward pages exist: an all-NaN page and an all-null page, float16 leaves."""
    import numpy as np
    import pyarrow.parquet as papq

    from nanstats.metadata.footer import read_footer
    from nanstats.parquet.recompute import recompute

    path, _ = corpus["pa_v1_rows_per_page"]
    footer = read_footer(path)
    assert [c.name for c in footer.float_columns] == ["d", "f", "h", "s.v"]
    with open(path, "rb") as f:
        stats = recompute(papq.ParquetFile(path), footer, f, 0, 0)
    table = stats.pages
    all_nan = (table.nan_count > 0) & (table.value_count == 0)
    all_null = table.null_count == table.num_values
    assert all_nan.any() and all_null.any()
    assert stats.page_starts[np.argmax(all_nan)] >= ALL_NAN[0]
    assert stats.chunk.pos_nan_count > 0 and stats.chunk.neg_nan_count > 0
    assert os.path.getsize(path) < 100_000
