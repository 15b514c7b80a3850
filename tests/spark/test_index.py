"""index_files on Spark against the same recomputation done locally."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as papq
import pytest

import nanstats
import nanstats.spark
from nanstats.lake.listing import list_parquet_files
from nanstats.spark.index import file_rows


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    root = tmp_path_factory.mktemp("lake")
    rng = np.random.default_rng(9)
    for day in range(3):
        folder = root / f"day={day}"
        folder.mkdir()
        n = 3000
        x = rng.normal(size=n)
        x[rng.random(n) < 0.03] = np.nan
        x[500:900] = -np.nan  # an all-NaN stretch of negative NaNs
        y = rng.normal(size=n).astype(np.float32)
        table = pa.table({"x": pa.array(x, mask=rng.random(n) < 0.05), "y": y,
                          "id": np.arange(n)})
        papq.write_table(table, folder / "part-0.parquet", row_group_size=1000,
                         data_page_size=500, write_batch_size=100, write_page_index=True)
    (root / "_SUCCESS").write_text("")
    return root


def _exact(row) -> tuple:
    """A row without its float min/max (NaN != NaN); the bit columns say it all."""
    row = tuple(row)
    return row[:11] + row[13:]


def test_index_rows_match_local_recomputation(spark, lake) -> None:
    index = nanstats.spark.index_files(spark, str(lake))
    got = [_exact(r) for r in index.collect()]
    expected = []
    for path in list_parquet_files(str(lake)):
        rows = file_rows(path)
        expected += [_exact(r) for r in zip(*rows.values(), strict=True)]
    assert len(got) == len(expected) > 3 * 3 * 2
    key = lambda r: (r[0], r[1], r[2], r[3])  # noqa: E731
    assert sorted(got, key=key) == sorted(expected, key=key)


def test_index_covers_every_row_and_value(spark, lake) -> None:
    index = nanstats.spark.index_files(spark, str(lake)).toArrow().to_pandas()
    for path in list_parquet_files(str(lake)):
        table = papq.read_table(path)
        for column in ("x", "y"):
            part = index[(index.path == path) & (index.column == column)]
            whole = nanstats.summary(table.column(column))
            assert part.num_values.sum() == whole.num_values == table.num_rows
            assert part.nan_count.sum() == whole.nan_count
            assert part.neg_nan_count.sum() == whole.neg_nan_count
            assert part.null_count.sum() == whole.null_count
            starts = part.sort_values("first_row").first_row.to_numpy()
            counts = part.sort_values("first_row").num_values.to_numpy()
            np.testing.assert_array_equal(starts[1:], (starts + counts)[:-1])


def test_save_and_load(spark, lake, tmp_path) -> None:
    index = nanstats.spark.index_files(spark, str(lake))
    nanstats.spark.save_index(index, str(tmp_path / "index"))
    back = nanstats.spark.load_index(spark, str(tmp_path / "index"))
    assert sorted(map(_exact, back.collect())) == sorted(map(_exact, index.collect()))


def test_missing_folder(spark, tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="no such file"):
        nanstats.spark.index_files(spark, str(tmp_path / "nope"))
    with pytest.raises(FileNotFoundError, match="no Parquet file"):
        nanstats.spark.index_files(spark, str(tmp_path))
    assert os.path.isdir(tmp_path)


def test_index_of_a_table_is_of_its_live_files(spark, tmp_path) -> None:
    from deltalake import write_deltalake

    from nanstats.lake.tables import open_table

    folder = str(tmp_path / "t")
    write_deltalake(folder, pa.table({"k": [1, 2], "x": [np.nan, 1.0]}), partition_by=["k"])
    write_deltalake(folder, pa.table({"k": [1, 2], "x": [-0.0, 2.0]}), partition_by=["k"],
                    mode="overwrite")
    live = open_table(folder).paths
    index = nanstats.spark.index_files(spark, folder).collect()
    assert sorted(r.path for r in index) == sorted(live)
    assert sorted((r.nan_count, r.min) for r in index) == [(0, -0.0), (0, 2.0)]


def test_a_lake_that_cannot_be_listed_whole_is_refused(spark, tmp_path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as papq

    from nanstats.errors import NanstatsError

    papq.write_table(pa.table({"x": [1.0]}), tmp_path / "a.parquet")
    os.symlink(tmp_path / "gone.parquet", tmp_path / "b.parquet")
    with pytest.raises(NanstatsError, match="b.parquet: a symbolic link"):
        nanstats.spark.index_files(spark, str(tmp_path))


def test_a_big_file_is_indexed_by_several_tasks(spark, lake) -> None:
    from nanstats.spark.splits import file_splits

    path = list_parquet_files(str(lake))[0]
    size = os.path.getsize(path)
    assert file_splits([path], size // 3).num_rows >= 3
    whole = sorted(map(_exact, nanstats.spark.index_files(spark, path).collect()))
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(size // 3))
    try:
        split = sorted(map(_exact, nanstats.spark.index_files(spark, path).collect()))
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
    assert split == whole and len(whole) > 6
