"""Differential tests: nanstats with an engine's profile returns exactly the engine's rows.

Randomized tables and predicates (``nanstats.testing.engines``) run on each
installed engine in memory and through ``nanstats.parquet.read_table`` and
``nanstats.prune.pages`` with the engine's profile.  A fixed set of seeds
runs here; ``make engines`` runs a large one and prints the cases per engine
and operator.
"""

from __future__ import annotations

import importlib.util
import math
import os
import sys
import warnings
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from nanstats.parquet.reading import read_table
from nanstats.parquet.writing import write_table
from nanstats.prune.binding import bind
from nanstats.prune.expressions import col
from nanstats.prune.profiles import ENGINES, PROFILES, EngineProfile, profile


def _load_runs() -> Any:
    """benchmarks/engine_runs.py, the differential harness (not in the package)."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "engine_runs.py")
    spec = importlib.util.spec_from_file_location("engine_runs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


harness = _load_runs()
SEEDS = range(12)


@pytest.fixture(autouse=True)
def _quiet() -> None:
    warnings.simplefilter("ignore", RuntimeWarning)


@pytest.mark.parametrize("engine", [e.name for e in harness.engines()])
def test_engine_rows_equal_nanstats_rows(engine: str) -> None:
    outcome = harness.run(SEEDS, predicates=15, only=[engine])
    assert outcome.mismatches == []
    assert sum(outcome.cases.values()) >= 100  # the run did run


def test_spark_rows_equal_nanstats_rows(spark: object) -> None:
    outcome = harness.run(range(100, 102), predicates=12, spark=spark, only=["spark"])
    assert outcome.mismatches == []
    assert sum(outcome.cases.values()) >= 12


def test_the_harness_finds_a_wrong_profile() -> None:
    # Polars' rows under DuckDB's is_nan(null) but Spark's literal typing: the
    # float32 decimal literals must give it away.
    wrong = EngineProfile("polars", "nan_greatest", is_nan_null="null")
    PROFILES["polars"], right = wrong, PROFILES["polars"]
    try:
        outcome = harness.run(range(40), predicates=15, only=["polars"])
    finally:
        PROFILES["polars"] = right
    assert outcome.mismatches


def test_float32_literals_at_column_precision(tmp_path: object) -> None:
    path = f"{tmp_path}/t.parquet"
    b = np.array([1.1, 2.0, 16777216.0], dtype=np.float32)
    write_table(pa.table({"b": b}), path)
    assert read_table(path, "b = 1.1", semantics="duckdb").num_rows == 1
    assert read_table(path, "b = 1.1", semantics="spark").num_rows == 0
    assert read_table(path, "b = 16777217", semantics="polars").num_rows == 1
    with pytest.raises(ValueError, match="not exactly a float32"):
        read_table(path, "b = 16777217", semantics="arrow")


def test_membership_and_is_nan_axes(tmp_path: object) -> None:
    path = f"{tmp_path}/t.parquet"
    x = pa.array([math.nan, -math.nan, -0.0, 0.0, None], pa.float64())
    write_table(pa.table({"x": x}), path)

    def rows(where: str, engine: str) -> int:
        return int(read_table(path, where, semantics=engine).num_rows)

    assert rows("x in (nan, 0.0)", "arrow") == 2  # +NaN only, +0.0 only
    assert rows("x in (nan, 0.0)", "polars") == 4
    assert rows("x in (nan)", "pandas") == 3  # the null is a NaN
    assert rows("not is_nan(x)", "duckdb") == 2  # null dropped
    assert rows("not is_nan(x)", "spark") == 3


def test_profiles_are_named_and_refused() -> None:
    assert set(ENGINES) == {"spark", "duckdb", "polars", "numpy", "arrow", "pandas"}
    assert profile("nan_greatest").order == "nan_greatest"
    with pytest.raises(ValueError, match="NaN into NA"):
        profile("pandas_nullable")
    with pytest.raises(ValueError, match="membership must be one of"):
        EngineProfile("x", "ieee", membership="bits")  # type: ignore[arg-type]
    assert repr(bind(col("b") > 0.1, {"b": 16}, "numpy")) == "(b > 0.0999755859375)"
