"""What engines do with a pyarrow-written file and with its upgraded copies, measured.

One small table (20 rows of float64 in two row groups; a NaN in the first)
is written by pyarrow with its default statistics, then upgraded by nanstats
with each ``--order``.  Every installed engine (pyarrow datasets, DuckDB,
polars and, on request, Spark) then:

* answers a few queries on each file, and on the same rows in memory (a full
  scan, which no statistics can change).  A file answer that differs from the
  engine's own full scan is a wrong answer;
* reads a copy of each file whose row-group statistics were edited to
  exclude the rows of the first row group (page index dropped).  An engine
  that returns fewer rows from that copy skipped the row group on the
  statistics: it *uses* them.  One that returns the same rows ignored them.

The two tables go to ``docs/_generated/engine_reads.csv`` and
``engine_stats.csv``, shown by the page "What your engines do with upgraded
files".  Nothing in them is typed by hand.  The predicates are spelled for
each engine by the translators of ``benchmarks/engine_runs.py`` (``make
engines``), which also measures each engine's NaN semantics in memory.

Spark takes tens of seconds to start, so its rows come from committed caches
(``engine_*_spark.csv``) made by this script; regenerate them with::

    NANSTATS_DOCS_SPARK=1 .venv/bin/python docs/scripts/engine_reads.py

Run by ``docs/conf.py`` at every build (a second or two without Spark).
"""

from __future__ import annotations

import csv
import os
import shutil
import struct
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from nanstats.prune import expressions as ex
from nanstats.prune.expressions import Expr, col

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import engine_runs as harness  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "_generated"
READS_HEADER = ["engine", "query", "full scan", "pyarrow-written", "upgraded, type_order",
                "upgraded, ieee754"]
STATS_HEADER = ["engine", "pyarrow-written", "upgraded, type_order", "upgraded, ieee754"]
FILES = {"pyarrow-written": None, "upgraded, type_order": "type_order",
         "upgraded, ieee754": "ieee754"}

#: Row group 0: 0..9 with a NaN for 3; row group 1: 10..19.
VALUES = np.arange(20, dtype=np.float64)
VALUES[3] = np.nan
TABLE = pa.table({"x": VALUES})
ROW_GROUP = 10

#: The queries, as nanstats expressions (each engine's spelling comes from the harness).
QUERIES: dict[str, Expr] = {
    "x > 15": ex.Compare(">", col("x"), ex.Lit(15.0)),
    "x < 5": ex.Compare("<", col("x"), ex.Lit(5.0)),
    "is_nan(x)": ex.IsNan(col("x")),
}
#: The query the edited statistics must not let through if the engine uses them.
PROBE = "x < 5"


def write_files(folder: str) -> dict[str, str]:
    """The pyarrow-written file and its upgraded copies, by label."""
    import pyarrow.parquet as papq

    from nanstats.parquet import upgrade

    paths = {}
    src = os.path.join(folder, "pyarrow.parquet")
    papq.write_table(TABLE, src, row_group_size=ROW_GROUP, write_page_index=True)
    for label, order in FILES.items():
        if order is None:
            paths[label] = src
            continue
        dst = os.path.join(folder, f"upgraded-{order}.parquet")
        upgrade(src, dst, order=order)
        paths[label] = dst
    return paths


def lying_copy(src: str, dst: str) -> None:
    """A copy of ``src`` whose first row group claims values 100..109 (page index dropped)."""
    from nanstats.metadata.footer import read_footer
    from nanstats.metadata.thrift import encode

    footer = read_footer(src)
    meta = footer.metadata
    for group in meta.row_groups:
        for chunk in group.columns:
            chunk.column_index_offset = chunk.column_index_length = None
            chunk.offset_index_offset = chunk.offset_index_length = None
    stats = meta.row_groups[0].columns[0].meta_data.statistics
    low, high = struct.pack("<d", 100.0), struct.pack("<d", 109.0)
    stats.min_value, stats.max_value = low, high
    if stats.min is not None or stats.max is not None:
        stats.min, stats.max = low, high
    raw = encode(meta)
    with open(src, "rb") as f:
        body = f.read(footer.metadata_offset)
    with open(dst, "wb") as f:
        f.write(body + raw + len(raw).to_bytes(4, "little") + b"PAR1")


class _Fields:
    """Stands for a table in the harness's Arrow translator: columns become dataset fields."""

    def column(self, name: str) -> Any:
        import pyarrow.compute as pc

        return pc.field(name)


@dataclass(frozen=True)
class Engine:
    """How one engine counts the rows of a query on a file and in memory."""

    name: str
    on_file: Callable[[str, Expr], int]
    in_memory: Callable[[Expr], int]


def _pyarrow() -> Engine:
    import pyarrow.dataset as ds

    def on_file(path: str, e: Expr) -> int:
        return ds.dataset(path).to_table(filter=harness._arrow(e, _Fields())).num_rows

    def in_memory(e: Expr) -> int:
        return TABLE.filter(harness._arrow(e, TABLE)).num_rows

    return Engine(f"pyarrow {version('pyarrow')}", on_file, in_memory)


def _duckdb() -> Engine:
    import duckdb

    def count(source: str, e: Expr) -> int:
        con = duckdb.connect()
        con.register("t", TABLE)
        where = harness._sql(e, harness._duckdb_literal)
        rows = con.sql(f"SELECT count(*) FROM {source} WHERE {where}").fetchall()
        con.close()
        return int(rows[0][0])

    return Engine(f"DuckDB {version('duckdb')}",
                  lambda path, e: count(f"read_parquet('{path}')", e),
                  lambda e: count("t", e))


def _polars() -> Engine:
    import polars as pl

    def on_file(path: str, e: Expr) -> int:
        return pl.scan_parquet(path).filter(harness._polars(e)).collect().height

    def in_memory(e: Expr) -> int:
        frame = pl.from_arrow(TABLE)
        return frame.filter(harness._polars(e)).height  # type: ignore[union-attr]

    return Engine(f"polars {version('polars')}", on_file, in_memory)


def _spark() -> Engine:
    from nanstats.spark.session import local_session
    from nanstats.spark.sql import to_spark_sql

    spark = local_session()

    def on_file(path: str, e: Expr) -> int:
        return int(spark.read.parquet(path).where(to_spark_sql(e)).count())

    def in_memory(e: Expr) -> int:
        frame = spark.createDataFrame(TABLE.to_pylist(), "x double")
        return int(frame.where(to_spark_sql(e)).count())

    return Engine(f"Spark {spark.version}", on_file, in_memory)


def _mark(got: int, want: int) -> str:
    return str(got) if got == want else f"{got} (wrong)"


def measure(engine: Engine, paths: dict[str, str], folder: str
            ) -> tuple[list[dict[str, str]], dict[str, str]]:
    """The engine's rows per query and file, and whether it uses each file's statistics."""
    reads = []
    for text, e in QUERIES.items():
        want = engine.in_memory(e)
        row = {"engine": engine.name, "query": text, "full scan": str(want)}
        for label, path in paths.items():
            row[label] = _mark(engine.on_file(path, e), want)
        reads.append(row)
    uses = {"engine": engine.name}
    for label, path in paths.items():
        lie = os.path.join(folder, f"lie-{os.path.basename(path)}")
        lying_copy(path, lie)
        honest = engine.on_file(path, QUERIES[PROBE])
        skipped = engine.on_file(lie, QUERIES[PROBE]) < honest
        uses[label] = "skips row groups" if skipped else "reads every row group"
    return reads, uses


def _write(name: str, header: list[str], rows: list[dict[str, str]]) -> None:
    with open(OUT / name, "w", newline="") as f:
        w = csv.DictWriter(f, header)
        w.writeheader()
        w.writerows(rows)


def _read(name: str) -> list[dict[str, str]]:
    path = OUT / name
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return [dict(r, engine=r["engine"] + " (cached)") for r in csv.DictReader(f)]


def main() -> None:
    OUT.mkdir(exist_ok=True)
    folder = tempfile.mkdtemp()
    try:
        paths = write_files(folder)
        reads: list[dict[str, str]] = []
        stats: list[dict[str, str]] = []
        for make in (_pyarrow, _duckdb, _polars):
            r, s = measure(make(), paths, folder)
            reads += r
            stats.append(s)
        if os.environ.get("NANSTATS_DOCS_SPARK"):
            r, s = measure(_spark(), paths, folder)
            _write("engine_reads_spark.csv", READS_HEADER, r)
            _write("engine_stats_spark.csv", STATS_HEADER, [s])
        reads += _read("engine_reads_spark.csv")
        stats += _read("engine_stats_spark.csv")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    _write("engine_reads.csv", READS_HEADER, reads)
    _write("engine_stats.csv", STATS_HEADER, stats)
    print(f"wrote {OUT / 'engine_reads.csv'} and engine_stats.csv", file=sys.stderr)


if __name__ == "__main__":
    main()
