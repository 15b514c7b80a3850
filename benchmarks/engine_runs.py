"""Differential runs: the same predicates on each engine and on nanstats with its profile.

A *case* is one randomized table (float16/32/64 columns holding NaNs of both
signs with payloads, -0.0, +-inf, subnormals, nulls, float32-printed values,
integers beyond 2**24) written to Parquet, and one randomized predicate
(comparisons both ways round, between, in, is_nan, is_null, not/and/or,
literals taken from the data).  Each engine evaluates it in memory, on its
own: DuckDB SQL over an Arrow table, Polars expressions, numpy, pyarrow
compute, pandas (numpy-backed), Spark SQL.  nanstats must return exactly the
engine's rows with ``read_table(path, predicate, semantics=<engine>)``, and
``pages()`` must keep every page holding one of them.

``python benchmarks/engine_runs.py --tables 200`` (``make engines``) runs a
large set and prints the cases per engine and operator.  It lives beside the
benchmarks, outside the package: it reads files (``nanstats.parquet``) and
runs every engine, which nothing in the package may depend on.

>>> import random
>>> t = random_table(random.Random(1), 30)
>>> t.column_names
['i', 'f64', 'f32', 'f16']
"""

from __future__ import annotations

import argparse
import collections
import decimal
import math
import os
import random
import struct
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nanstats.prune import expressions as ex
from nanstats.prune.expressions import Expr, col

COLUMNS = {"f64": 64, "f32": 32, "f16": 16}
_DTYPES: dict[int, type[np.floating[Any]]] = {64: np.float64, 32: np.float32,
                                               16: np.float16}


def _nan(sign: int, payload: int, width: int) -> float:
    """A NaN of a sign and payload, as the float64 its width converts to."""
    if width == 64:
        bits = (0x7FF8000000000000 | (payload & 0x7FFFFFFFFFFFF)) | (sign << 63)
        return float(struct.unpack("<d", struct.pack("<Q", bits))[0])
    if width == 32:
        bits32 = (0x7FC00000 | (payload & 0x3FFFFF)) | (sign << 31)
        return float(np.array([bits32], dtype=np.uint32).view(np.float32)[0])
    bits16 = (0x7E00 | (payload & 0x1FF)) | (sign << 15)
    return float(np.array([bits16], dtype=np.uint16).view(np.float16)[0])


def _special(rng: random.Random, width: int) -> float:
    dt = _DTYPES[width]
    finfo = np.finfo(dt)
    choices: list[Callable[[], float]] = [
        lambda: _nan(rng.randint(0, 1), rng.choice([0, 1, rng.randint(0, 2**20)]), width),
        lambda: -0.0, lambda: 0.0, lambda: math.inf, lambda: -math.inf,
        lambda: float(finfo.smallest_subnormal) * rng.choice([1, 3, -1]),
        lambda: float(dt(rng.choice([1.1, 0.1, 2.5, -3.3, 100.7]))),
        lambda: float(dt(rng.choice([2**24 + 1, 2**24 + 3, 2**31 + 5, -(2**25) - 1]))),
        lambda: float(finfo.max) * rng.choice([1, -1]),
    ]
    return rng.choice(choices)()


def random_table(rng: random.Random, n: int) -> Any:
    """A table of ``n`` rows: i (row number), f64, f32 and f16 columns."""
    import pyarrow as pa

    cols: dict[str, Any] = {"i": pa.array(np.arange(n, dtype=np.int64))}
    for name, width in COLUMNS.items():
        dt = _DTYPES[width]
        pool = [_special(rng, width) for _ in range(6)] + \
            [float(dt(round(rng.uniform(-5, 5), rng.randint(0, 2)))) for _ in range(4)]
        values: list[float | None] = []
        for _ in range(n):
            r = rng.random()
            values.append(None if r < 0.1 else rng.choice(pool) if r < 0.8
                          else _special(rng, width))
        with np.errstate(over="ignore"):
            data = np.array([0.0 if v is None else v for v in values], dtype=np.float64)
            narrow = data.astype(dt)
        mask = np.array([v is None for v in values])
        cols[name] = pa.array(narrow, mask=mask)
    return pa.table(cols)


def _literals(table: Any, name: str, rng: random.Random) -> list[float | int]:
    vals = [v for v in table.column(name).to_pylist() if v is not None]
    picks: list[float | int] = rng.sample(vals, min(4, len(vals)))
    picks += [rng.choice([0.0, -0.0, 1.1, 0.1, math.nan, -math.nan, math.inf])]
    picks += [rng.choice([1, 0, -3, 2**24 + 1, 16777216])]
    return picks


@dataclass
class Case:
    """One predicate on one table; ``op`` names its top-level operator."""

    predicate: Expr
    op: str


def random_predicate(rng: random.Random, table: Any, columns: Sequence[str],
                     depth: int = 2) -> Case:
    """A randomized predicate over float columns, literals from the data."""

    def leaf() -> tuple[Expr, str]:
        name = rng.choice(list(columns))
        c, lits = col(name), _literals(table, name, rng)
        k = rng.random()
        if k < 0.1:
            return ex.IsNan(c), "is_nan"
        if k < 0.17:
            return ex.IsNull(c), "is_null"
        floats = [v for v in lits if isinstance(v, float)] + [1.5, -0.0]
        if k < 0.3:
            lo, hi = sorted(rng.sample(floats, 2), key=lambda v: (v != v, v))
            return c.between(lo, hi), "between"
        if k < 0.42:
            return c.isin(rng.sample(floats, rng.randint(1, min(3, len(floats))))), "in"
        op = rng.choice(["<", "<=", ">", ">=", "==", "!="])
        lit = ex.Lit(rng.choice(lits))
        if rng.random() < 0.2:
            return ex.Compare(op, lit, c), op  # type: ignore[arg-type]
        return ex.Compare(op, c, lit), op  # type: ignore[arg-type]

    def pred(d: int) -> tuple[Expr, str]:
        r = rng.random()
        if d <= 0 or r < 0.5:
            return leaf()
        if r < 0.7:
            return ex.And(pred(d - 1)[0], pred(d - 1)[0]), "and"
        if r < 0.88:
            return ex.Or(pred(d - 1)[0], pred(d - 1)[0]), "or"
        return ex.Not(pred(d - 1)[0]), "not"

    e, op = pred(depth)
    return Case(e, op)


# --- the engines ---------------------------------------------------------------

class EngineRefused(Exception):
    """The engine refused the predicate (an error of its own, not a row set)."""


def _duckdb_literal(v: object) -> str:
    if isinstance(v, float):
        # NaN and the infinities as text, which DuckDB casts to the other side's type.
        if math.isnan(v):
            return "'nan'"
        if math.isinf(v):
            return "'inf'" if v > 0 else "'-inf'"
        # Decimal notation: DuckDB types it DECIMAL (and a literal in scientific
        # notation DOUBLE), so only literals it can hold as a DECIMAL are used.
        return format(decimal.Decimal(repr(v)), "f")
    return str(v)


def _sql(e: Expr, lit: Callable[[object], str]) -> str:
    match e:
        case ex.Col(name=name):
            return f'"{name}"'
        case ex.Lit(value=v):
            return "FALSE" if v is False else "TRUE" if v is True else lit(v)
        case ex.Compare(op=op, left=a, right=b):
            sym = {"==": "=", "!=": "<>"}.get(op, op)
            return f"({_sql(a, lit)} {sym} {_sql(b, lit)})"
        case ex.In(operand=a, values=vs):
            return f"({_sql(a, lit)} IN ({', '.join(_sql(v, lit) for v in vs)}))"
        case ex.IsNan(operand=a):
            return f"isnan({_sql(a, lit)})"
        case ex.IsNull(operand=a):
            return f"({_sql(a, lit)} IS NULL)"
        case ex.And(left=a, right=b):
            return f"({_sql(a, lit)} AND {_sql(b, lit)})"
        case ex.Or(left=a, right=b):
            return f"({_sql(a, lit)} OR {_sql(b, lit)})"
        case ex.Not(operand=a):
            return f"(NOT {_sql(a, lit)})"
    raise TypeError(f"no SQL for {e!r}")


def _duckdb_ok(e: Expr) -> bool:
    """Literals DuckDB reads as a DECIMAL (at most 38 digits) or special values."""
    for lit in _literals_of(e):
        if isinstance(lit, float) and math.isfinite(lit) and lit != 0:
            digits = decimal.Decimal(repr(lit)).as_tuple()
            if len(digits.digits) - min(int(digits.exponent), 0) > 38 or abs(lit) > 1e30:
                return False
    return True


def _literals_of(e: Expr) -> list[object]:
    if isinstance(e, ex.Lit):
        return [e.value]
    return [v for c in e.children() for v in _literals_of(c)]


def run_duckdb(table: Any, e: Expr) -> set[int]:
    import duckdb

    con = duckdb.connect()
    con.register("t", table)  # no float16 column: DuckDB reads no Arrow halffloat
    rows = con.sql(f"SELECT i FROM t WHERE {_sql(e, _duckdb_literal)}").fetchall()
    return {r[0] for r in rows}


def _polars(e: Expr) -> Any:
    import polars as pl

    match e:
        case ex.Col(name=name):
            return pl.col(name)
        case ex.Lit(value=v):
            return pl.lit(v)
        case ex.Compare(op=op, left=a, right=b):
            x, y = _polars(a), _polars(b)
            return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y,
                    "!=": x != y}[op]
        case ex.In(operand=a, values=vs):
            return _polars(a).is_in([v.value for v in vs])
        case ex.IsNan(operand=a):
            return _polars(a).is_nan()
        case ex.IsNull(operand=a):
            return _polars(a).is_null()
        case ex.And(left=a, right=b):
            return _polars(a) & _polars(b)
        case ex.Or(left=a, right=b):
            return _polars(a) | _polars(b)
        case ex.Not(operand=a):
            return ~_polars(a)
    raise TypeError(f"no Polars expression for {e!r}")


def run_polars(table: Any, e: Expr) -> set[int]:
    import polars as pl

    frame = pl.from_arrow(table)
    # The expression's values, then the rows: Polars' filter optimizer (1.x)
    # intersects the lists of ``is_in(a) & is_in(b)`` bit by bit, so
    # ``x.is_in([-0.0]) & x.is_in([0.0])`` filters out the zeros its own
    # expression accepts.  The profile follows the expression.
    mask = frame.select(_polars(e).alias("m"))["m"]  # type: ignore[union-attr]
    return set(frame["i"].filter(mask.fill_null(False)).to_list())  # type: ignore[index]


def _numpy(e: Expr, arrays: dict[str, Any]) -> Any:
    """numpy has no nulls: the tables given to it have none."""
    match e:
        case ex.Col(name=name):
            return arrays[name]
        case ex.Lit(value=v):
            return v
        case ex.Compare(op=op, left=a, right=b):
            x, y = _numpy(a, arrays), _numpy(b, arrays)
            with np.errstate(all="ignore"):
                return {"<": np.less, "<=": np.less_equal, ">": np.greater,
                        ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal}[op](x, y)
        case ex.In(operand=a, values=vs):
            return np.isin(_numpy(a, arrays), [v.value for v in vs])
        case ex.IsNan(operand=a):
            return np.isnan(_numpy(a, arrays))
        case ex.IsNull(operand=a):
            return np.zeros(len(arrays["i"]), dtype=bool)
        case ex.And(left=a, right=b):
            return _numpy(a, arrays) & _numpy(b, arrays)
        case ex.Or(left=a, right=b):
            return _numpy(a, arrays) | _numpy(b, arrays)
        case ex.Not(operand=a):
            return ~_numpy(a, arrays)
    raise TypeError(f"no numpy expression for {e!r}")


def run_numpy(table: Any, e: Expr) -> set[int]:
    arrays = {name: table.column(name).to_numpy() for name in table.column_names}
    mask = np.broadcast_to(_numpy(e, arrays), (table.num_rows,))
    return set(arrays["i"][mask].tolist())


def _arrow(e: Expr, table: Any) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    match e:
        case ex.Col(name=name):
            return table.column(name)
        case ex.Lit(value=v):
            return pa.scalar(v)
        case ex.Compare(op=op, left=a, right=b):
            fn = {"<": pc.less, "<=": pc.less_equal, ">": pc.greater, ">=": pc.greater_equal,
                  "==": pc.equal, "!=": pc.not_equal}[op]
            try:
                return fn(_arrow(a, table), _arrow(b, table))
            except pa.ArrowInvalid as err:
                raise EngineRefused(str(err)) from err
        case ex.In(operand=a, values=vs):
            return pc.is_in(_arrow(a, table), value_set=pa.array([v.value for v in vs]))
        case ex.IsNan(operand=a):
            return pc.is_nan(_arrow(a, table))
        case ex.IsNull(operand=a):
            return pc.is_null(_arrow(a, table))
        case ex.And(left=a, right=b):
            return pc.and_kleene(_arrow(a, table), _arrow(b, table))
        case ex.Or(left=a, right=b):
            return pc.or_kleene(_arrow(a, table), _arrow(b, table))
        case ex.Not(operand=a):
            return pc.invert(_arrow(a, table))
    raise TypeError(f"no Arrow expression for {e!r}")


def run_arrow(table: Any, e: Expr) -> set[int]:
    t = table  # the caller gave no float16 column: Arrow compute cannot compare them
    return set(t.filter(_arrow(e, t)).column("i").to_pylist())


def _pandas(e: Expr, frame: Any) -> Any:
    match e:
        case ex.Col(name=name):
            return frame[name]
        case ex.Lit(value=v):
            return v
        case ex.Compare(op=op, left=a, right=b):
            x, y = _pandas(a, frame), _pandas(b, frame)
            with np.errstate(all="ignore"):
                if op == "<":
                    return x < y
                if op == "<=":
                    return x <= y
                if op == ">":
                    return x > y
                if op == ">=":
                    return x >= y
                return x == y if op == "==" else x != y
        case ex.In(operand=a, values=vs):
            return _pandas(a, frame).isin([v.value for v in vs])
        case ex.IsNan(operand=a) | ex.IsNull(operand=a):
            return _pandas(a, frame).isna()
        case ex.And(left=a, right=b):
            return _pandas(a, frame) & _pandas(b, frame)
        case ex.Or(left=a, right=b):
            return _pandas(a, frame) | _pandas(b, frame)
        case ex.Not(operand=a):
            return ~_pandas(a, frame)
    raise TypeError(f"no pandas expression for {e!r}")


def run_pandas(table: Any, e: Expr) -> set[int]:
    frame = table.to_pandas()  # numpy-backed float columns: nulls become NaN
    mask = _pandas(e, frame)
    if not hasattr(mask, "index"):  # a literal on both sides
        return set(frame["i"]) if mask else set()
    return set(frame["i"][mask].tolist())


def run_spark(table: Any, e: Expr, spark: Any) -> set[int]:
    from nanstats.spark.sql import to_spark_sql

    t = table  # no float16 column: Spark has none
    frame = spark.createDataFrame(t.to_pylist(), "i long, f64 double, f32 float")
    return {r.i for r in frame.where(to_spark_sql(e)).select("i").collect()}


@dataclass(frozen=True)
class Engine:
    """An engine under test: how it evaluates, which columns it reads, nulls or not."""

    name: str
    run: Callable[[Any, Expr], set[int]]
    columns: tuple[str, ...]
    nulls: bool = True
    accepts: Callable[[Expr], bool] = field(default=lambda e: True)


def engines(spark: Any = None) -> list[Engine]:
    """The installed engines (Spark only when a session is given)."""
    import importlib.util

    out = [Engine("numpy", run_numpy, ("f64", "f32", "f16"), nulls=False),
           Engine("arrow", run_arrow, ("f64", "f32")),
           Engine("pandas", run_pandas, ("f64", "f32", "f16"))]
    if importlib.util.find_spec("duckdb"):
        out.append(Engine("duckdb", run_duckdb, ("f64", "f32"), accepts=_duckdb_ok))
    if importlib.util.find_spec("polars"):
        out.append(Engine("polars", run_polars, ("f64", "f32", "f16")))
    if spark is not None:
        out.append(Engine("spark", lambda t, e: run_spark(t, e, spark), ("f64", "f32")))
    return out


# --- the comparison ------------------------------------------------------------

@dataclass
class Outcome:
    """Cases run per engine and operator, and the mismatches found."""

    cases: collections.Counter[tuple[str, str]] = field(default_factory=collections.Counter)
    refused: collections.Counter[str] = field(default_factory=collections.Counter)
    mismatches: list[str] = field(default_factory=list)

    def table(self) -> str:
        """Cases per engine (rows) and top-level operator (columns), as text."""
        names = sorted({e for e, _ in self.cases})
        ops = sorted({o for _, o in self.cases})
        head = f"{'engine':8}" + "".join(f"{o:>9}" for o in ops) + f"{'total':>9}{'refused':>9}"
        lines = [head]
        for n in names:
            row = [self.cases[(n, o)] for o in ops]
            lines.append(f"{n:8}" + "".join(f"{c:>9}" for c in row)
                         + f"{sum(row):>9}{self.refused[n]:>9}")
        return "\n".join(lines)


def _write(table: Any, path: str, rng: random.Random) -> None:
    import pyarrow.parquet as papq

    from nanstats.parquet.writing import write_table

    if rng.random() < 0.7:
        write_table(table, path, row_group_size=rng.choice([16, 40, 1000]),
                    data_page_size=rng.choice([1, 64]), write_batch_size=rng.choice([4, 8]))
    else:  # legacy statistics, as pyarrow writes them
        papq.write_table(table, path, row_group_size=rng.choice([16, 1000]),
                         write_page_index=True, data_page_size=64, write_batch_size=8)


def check_case(engine: Engine, table: Any, path: str, case: Case, outcome: Outcome) -> None:
    """Run one case on the engine and on nanstats; record a mismatch."""
    from nanstats.parquet.reading import read_table
    from nanstats.prune.files import pages

    e = case.predicate
    if not engine.accepts(e):
        return
    try:
        want = engine.run(table, e)
    except EngineRefused:
        outcome.refused[engine.name] += 1
        try:
            read_table(path, e, semantics=engine.name)
        except ValueError:
            return
        outcome.mismatches.append(f"{engine.name}: {e!r}: the engine refuses, nanstats not")
        return
    outcome.cases[(engine.name, case.op)] += 1
    got = set(read_table(path, e, semantics=engine.name, columns=["i"]).column("i").to_pylist())
    if got != want:
        outcome.mismatches.append(
            f"{engine.name}: {e!r}: nanstats returns {sorted(got)[:8]}, "
            f"the engine {sorted(want)[:8]} (only nanstats {sorted(got - want)[:5]}, "
            f"only the engine {sorted(want - got)[:5]})")
        return
    sel = pages(path, e, semantics=engine.name)
    offsets, n = {}, 0
    import pyarrow.parquet as papq

    md = papq.ParquetFile(path).metadata
    for g in range(md.num_row_groups):
        offsets[g] = n
        n += md.row_group(g).num_rows
    kept = {offsets[g] + r for g, rs in sel.ranges.items() for a, b in rs for r in range(a, b)}
    lost = want - kept
    if lost:
        outcome.mismatches.append(f"{engine.name}: {e!r}: pages() skips rows {sorted(lost)[:8]}")


def run(seeds: Sequence[int], predicates: int = 20, spark: Any = None,
        only: Sequence[str] | None = None, rows: int = 60) -> Outcome:
    """Run ``predicates`` cases per table per engine, one table per seed."""
    outcome = Outcome()
    folder = tempfile.mkdtemp()
    for seed in seeds:
        rng = random.Random(seed)
        full = random_table(rng, rng.choice([1, 7, rows]))
        for engine in engines(spark):
            if only and engine.name not in only:
                continue
            table = full.select(["i", *engine.columns])
            if not engine.nulls:
                import pyarrow.compute as pc

                for c in engine.columns:
                    table = table.set_column(table.column_names.index(c), c,
                                             pc.fill_null(table.column(c), 0.5))
            path = os.path.join(folder, f"{seed}-{engine.name}.parquet")
            _write(table, path, random.Random(seed))
            for _ in range(predicates):
                case = random_predicate(rng, table, engine.columns)
                check_case(engine, table, path, case, outcome)
    return outcome


def main(argv: Sequence[str] | None = None) -> int:
    """``make engines``: a large differential run, then the table of cases."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--predicates", type=int, default=25)
    ap.add_argument("--spark-tables", type=int, default=10,
                    help="tables run on Spark (local mode; slower)")
    ap.add_argument("--engine", action="append", help="only these engines")
    args = ap.parse_args(argv)
    outcome = run(range(args.tables), args.predicates, only=args.engine)
    if args.spark_tables and (not args.engine or "spark" in args.engine):
        from nanstats.spark.session import local_session

        spark_out = run(range(10_000, 10_000 + args.spark_tables), args.predicates,
                        spark=local_session(), only=["spark"])
        outcome.cases.update(spark_out.cases)
        outcome.refused.update(spark_out.refused)
        outcome.mismatches += spark_out.mismatches
    print(outcome.table())
    for m in outcome.mismatches[:50]:
        print("MISMATCH", m)
    print(f"{sum(outcome.cases.values())} cases, {len(outcome.mismatches)} mismatches")
    return 1 if outcome.mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
