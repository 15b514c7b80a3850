"""The sample lake: two writers, NaN bursts, readable by Spark and pyarrow alike."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as papq

import nanstats
import nanstats.spark
from demo.lake import COLUMNS, make_lake
from nanstats.lake.listing import list_parquet_files
from nanstats.metadata.footer import read_footer


def test_lake(spark, tmp_path) -> None:
    info = make_lake(spark, str(tmp_path / "lake"), rows=200_000, days=4)
    files = list_parquet_files(info["path"])
    assert info["files"] == len(files) >= 4
    df = spark.read.parquet(info["path"])
    assert df.count() == 200_000
    assert set(COLUMNS) <= set(df.columns) and "day" in df.columns
    by_writer: dict[str, list[str]] = {"spark": [], "pyarrow": []}
    for f in files:
        created_by = (read_footer(f).metadata.created_by or b"").decode()
        by_writer["spark" if "parquet-mr" in created_by else "pyarrow"].append(f)
    assert by_writer["spark"] and by_writer["pyarrow"]
    neg = {"spark": 0, "pyarrow": 0}
    nans = {"spark": 0, "pyarrow": 0}
    for writer, paths in by_writer.items():
        for f in paths:
            table = papq.read_table(f)
            s = nanstats.summary(table.column("voltage"))
            neg[writer] += s.neg_nan_count
            nans[writer] += s.nan_count
    # Spark canonicalises NaN to +NaN; the pyarrow files keep the failing sensors' -NaN.
    assert nans["spark"] > 0 and neg["spark"] == 0
    assert nans["pyarrow"] > 0 and neg["pyarrow"] == nans["pyarrow"]
    # Bursts: some page of the pyarrow files is entirely NaN.
    index = nanstats.spark.index_files(spark, by_writer["pyarrow"]).toArrow()
    all_nan = np.asarray(index["nan_count"]) + np.asarray(index["null_count"]) == np.asarray(
        index["num_values"])
    assert all_nan.any()
