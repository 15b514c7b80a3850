"""What today's Parquet writers put in the footer for a float column with NaN and -0.0.

Writes the same two double columns with every writer installed here (pyarrow,
polars, DuckDB and, on request, Spark), reads each file back with
:func:`nanstats.parquet.inspection.inspect` and writes one CSV row per writer and
column to ``docs/_generated/writers.csv``, which the page "The problem"
shows.  Nothing in that table is typed by hand.

Spark takes tens of seconds to start, so by default its rows come from
``docs/_generated/writers_spark.csv``, a committed cache made by this same
script; regenerate it with::

    NANSTATS_DOCS_SPARK=1 .venv/bin/python docs/scripts/writers_table.py

Run by ``docs/conf.py`` at every build (about a second without Spark).
"""

from __future__ import annotations

import csv
import glob
import os
import sys
import tempfile
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pyarrow as pa

from nanstats.parquet.inspection import inspect

OUT = Path(__file__).resolve().parent.parent / "_generated"
SPARK_CACHE = OUT / "writers_spark.csv"
HEADER = ["writer", "column", "column order", "nan_count", "min", "max", "column index"]

#: The data every writer gets: a column holding a NaN (and -0.0), the same
#: without the NaN, and a column of NaNs only (one row group, one page each).
TABLE = pa.table({
    "with_nan": np.array([-0.0, 1.5, np.nan, 2.5, 0.0]),
    "no_nan": np.array([-0.0, 1.5, 0.5, 2.5, 0.0]),
    "only_nan": np.full(5, np.nan),
})


def write_pyarrow(path: str) -> str:
    import pyarrow.parquet as papq

    papq.write_table(TABLE, path, write_page_index=True)
    return f"pyarrow {version('pyarrow')} (write_page_index=True)"


def write_polars(path: str) -> str:
    import polars as pl

    pl.from_arrow(TABLE).write_parquet(path)  # type: ignore[union-attr]
    return f"polars {version('polars')}"


def write_duckdb(path: str) -> str:
    import duckdb

    con = duckdb.connect()
    con.register("t", TABLE)
    con.execute(f"COPY t TO '{path}' (FORMAT parquet)")
    con.close()
    return f"DuckDB {version('duckdb')}"


def write_spark(path: str) -> str:
    from nanstats.spark.session import local_session

    spark = local_session()
    folder = path + ".dir"
    spark.createDataFrame(TABLE).coalesce(1).write.parquet(folder)
    os.replace(glob.glob(os.path.join(folder, "part-*.parquet"))[0], path)
    return f"Spark {spark.version}"


def write_nanstats(path: str) -> str:
    from nanstats.parquet.writing import write_table

    write_table(TABLE, path)
    return "nanstats write_table (ieee754)"


def rows_of(write: Callable[[str], str], folder: str) -> list[dict[str, str]]:
    """Write the table with one writer, then say what its footer holds."""
    path = os.path.join(folder, write.__name__ + ".parquet")
    writer = write(path)
    rows = []
    for col in inspect(path).columns:
        chunk = col.row_groups[0]
        st = chunk.statistics

        def bound(text: str | None) -> str:
            return "absent" if text is None else text

        rows.append({
            "writer": writer,
            "column": col.name,
            "column order": col.column_order,
            "nan_count": "absent" if st is None or st.nan_count is None else str(st.nan_count),
            "min": "absent" if st is None else bound(st.min),
            "max": "absent" if st is None else bound(st.max),
            "column index": "yes" if chunk.column_index else "no",
        })
    return rows


def main() -> None:
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        rows = []
        for write in (write_pyarrow, write_polars, write_duckdb):
            rows += rows_of(write, folder)
        if os.environ.get("NANSTATS_DOCS_SPARK"):
            spark_rows = rows_of(write_spark, folder)
            with open(SPARK_CACHE, "w", newline="") as f:
                w = csv.DictWriter(f, HEADER)
                w.writeheader()
                w.writerows(spark_rows)
        elif SPARK_CACHE.exists():
            with open(SPARK_CACHE, newline="") as f:
                spark_rows = [dict(r, writer=r["writer"] + " (cached)")
                              for r in csv.DictReader(f)]
        else:
            spark_rows = []
        rows += spark_rows
        rows += rows_of(write_nanstats, folder)
    with open(OUT / "writers.csv", "w", newline="") as f:
        w = csv.DictWriter(f, HEADER)
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {OUT / 'writers.csv'} ({len(rows)} rows)", file=sys.stderr)


if __name__ == "__main__":
    main()
