"""Engines that return wrong rows today: their own Parquet readers, before and after upgrade.

The randomized tables and predicates of ``engine_runs.py`` (float64/float32,
NaN of both signs with payloads, -0.0, infinities, subnormals, nulls, values
at float32 precision, literals taken from the data) are written by pyarrow
with its default statistics (bounds without NaN, no ``nan_count``, a page
index; row groups of 8 rows so that there is something to skip), and
upgraded by ``nanstats.parquet.upgrade``.  Each engine then reads each file
with its own filter pushdown (DuckDB ``read_parquet``, polars
``scan_parquet``, Spark ``spark.read.parquet`` with pushdown on when a
session is given) and its rows are compared with the same engine's answer
on the same rows in memory, which no statistics can change.  A case whose
file answer differs is a wrong answer of that engine's reader.

    python benchmarks/engine_pushdown.py [--tables 60] [--predicates 20] [--spark-tables 0]
        [--rst FILE]
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import engine_runs as harness
import numpy as np

from nanstats.prune.expressions import Expr

FILES = ("pyarrow-written", "upgraded")


def _duckdb_file(path: str, e: Expr) -> set[int]:
    import duckdb

    where = harness._sql(e, harness._duckdb_literal)
    rows = duckdb.connect().sql(f"SELECT i FROM read_parquet('{path}') WHERE {where}").fetchall()
    return {r[0] for r in rows}


def _polars_file(path: str, e: Expr) -> set[int]:
    import polars as pl

    frame = pl.scan_parquet(path).filter(harness._polars(e).fill_null(False)).select("i")
    return set(frame.collect()["i"].to_list())  # type: ignore[union-attr]


def _spark_file(spark: Any, path: str, e: Expr) -> set[int]:
    from nanstats.spark.sql import to_spark_sql

    previous = spark.conf.get("spark.sql.parquet.filterPushdown")
    spark.conf.set("spark.sql.parquet.filterPushdown", "true")  # Spark's default, made sure
    try:
        return {r.i for r in spark.read.parquet(path).where(to_spark_sql(e)).select("i").collect()}
    finally:
        spark.conf.set("spark.sql.parquet.filterPushdown", previous)


@dataclass(frozen=True)
class Reader:
    """An engine's in-memory evaluation and its Parquet reader."""

    engine: harness.Engine
    read_file: Callable[[str, Expr], set[int]]


def readers(spark: Any = None) -> list[Reader]:
    """The installed engines whose Parquet readers push filters down."""
    by_name = {e.name: e for e in harness.engines(spark)}
    out = []
    if "duckdb" in by_name:
        out.append(Reader(by_name["duckdb"], _duckdb_file))
    if "polars" in by_name:
        # polars reads no float16 Parquet column the way it holds one in memory
        polars = by_name["polars"]
        out.append(Reader(harness.Engine("polars", polars.run, ("f64", "f32")), _polars_file))
    if spark is not None and "spark" in by_name:
        out.append(Reader(by_name["spark"], lambda p, e: _spark_file(spark, p, e)))
    return out


@dataclass
class Tally:
    """Cases per (engine, file kind), and the cases whose file answer was wrong."""

    cases: collections.Counter[tuple[str, str]] = field(default_factory=collections.Counter)
    wrong: collections.Counter[tuple[str, str]] = field(default_factory=collections.Counter)
    lost_rows: collections.Counter[tuple[str, str]] = field(default_factory=collections.Counter)
    examples: dict[tuple[str, str], str] = field(default_factory=dict)

    def update(self, other: Tally) -> None:
        self.cases.update(other.cases)
        self.wrong.update(other.wrong)
        self.lost_rows.update(other.lost_rows)
        for k, v in other.examples.items():
            self.examples.setdefault(k, v)


def _files(table: Any, folder: str, name: str) -> dict[str, str]:
    import pyarrow.parquet as papq

    from nanstats.parquet.upgrading import upgrade

    legacy = os.path.join(folder, f"{name}.parquet")
    papq.write_table(table, legacy, row_group_size=8, write_page_index=True,
                     data_page_size=1, write_batch_size=4)
    upgraded = os.path.join(folder, f"{name}-upgraded.parquet")
    upgrade(legacy, upgraded)
    return {"pyarrow-written": legacy, "upgraded": upgraded}


def run(seeds: Sequence[int], predicates: int = 20, spark: Any = None,
        rows: int = 60) -> Tally:
    """``predicates`` random predicates per table per reader, one table per seed."""
    tally = Tally()
    folder = tempfile.mkdtemp()
    for seed in seeds:
        rng = random.Random(seed)
        with np.errstate(over="ignore"):  # float32(2**31 + 5) and the like, on purpose
            full = harness.random_table(rng, rng.choice([24, rows]))
        for reader in readers(spark):
            engine = reader.engine
            table = full.select(["i", *engine.columns])
            paths = _files(table, folder, f"{seed}-{engine.name}")
            for _ in range(predicates):
                e = harness.random_predicate(rng, table, engine.columns).predicate
                if not engine.accepts(e):
                    continue
                try:
                    want = engine.run(table, e)
                except harness.EngineRefused:
                    continue
                for kind, path in paths.items():
                    key = (engine.name, kind)
                    try:
                        got = reader.read_file(path, e)
                    except Exception as exc:  # noqa: BLE001  (an engine's own refusal)
                        tally.examples.setdefault(key, f"{e!r}: {type(exc).__name__}")
                        continue
                    tally.cases[key] += 1
                    if got != want:
                        tally.wrong[key] += 1
                        tally.lost_rows[key] += len(want - got)
                        tally.examples.setdefault(
                            key, f"{e!r}: {len(want - got)} row(s) lost, "
                                 f"{len(got - want)} extra")
    return tally


def render(tally: Tally, fmt: str = "text") -> str:
    """Wrong answers / cases per engine, for each kind of file."""
    engines = sorted({e for e, _ in tally.cases})

    def cell(e: str, k: str) -> str:
        n, w = tally.cases[(e, k)], tally.wrong[(e, k)]
        return f"{w} of {n}" + (f" ({tally.lost_rows[(e, k)]} rows lost)" if w else "")

    if fmt == "rst":
        out = [".. list-table:: Wrong answers of each engine's Parquet reader "
               "(filter pushdown on), per file kind",
               "   :header-rows: 1", "", "   * - engine"]
        out += [f"     - {k}" for k in FILES]
        for e in engines:
            out.append(f"   * - {e}")
            out += [f"     - {cell(e, k)}" for k in FILES]
        return "\n".join(out) + "\n"
    width = 36
    lines = [f"{'engine':10}" + "".join(f"{k:>{width}}" for k in FILES)]
    lines += [f"{e:10}" + "".join(f"{cell(e, k):>{width}}" for k in FILES) for e in engines]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--tables", type=int, default=60)
    ap.add_argument("--predicates", type=int, default=20)
    ap.add_argument("--spark-tables", type=int, default=0,
                    help="tables also read by Spark (local mode; slower)")
    ap.add_argument("--rst", help="also write the table as reStructuredText to this file")
    args = ap.parse_args(argv)
    tally = run(range(args.tables), args.predicates)
    if args.spark_tables:
        from nanstats.spark.session import local_session

        spark = local_session()
        spark_only = run(range(20_000, 20_000 + args.spark_tables), args.predicates, spark)
        tally.update(Tally(
            collections.Counter({k: v for k, v in spark_only.cases.items() if k[0] == "spark"}),
            collections.Counter({k: v for k, v in spark_only.wrong.items() if k[0] == "spark"}),
            collections.Counter({k: v for k, v in spark_only.lost_rows.items()
                                 if k[0] == "spark"}),
            {k: v for k, v in spark_only.examples.items() if k[0] == "spark"}))
    print(render(tally))
    for key, example in sorted(tally.examples.items()):
        print(f"  e.g. {key[0]} on the {key[1]} file: {example}")
    if args.rst:
        with open(args.rst, "w") as f:
            f.write(render(tally, "rst"))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())
