"""The abstract interpretation over arrays gives the verdicts of the per-scope one.

Random predicates (every node type, NaN literals, both zeros) over random
abstractions (open and closed bounds, zeros of both signs, infinities,
every flag), under every engine profile: ``may_be_true`` must equal
``True in truth(...)`` scope by scope.  And the planner without detail
(segments judged over arrays) must keep exactly the rows the planner with
detail (one verdict per segment) keeps, on random pages of NaN-heavy data
whose columns have pages of different sizes.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanstats.core.abstraction import ColumnAbstract
from nanstats.core.stats import page_stats
from nanstats.prune import expressions as ex
from nanstats.prune.abstract import truth
from nanstats.prune.abstract_arrays import AbstractArrays, Unsupported, may_be_true
from nanstats.prune.expressions import col
from nanstats.prune.planner import plan
from nanstats.prune.profiles import PROFILES
from nanstats.prune.sources import StatsSource
from nanstats.testing.predicate_oracle import random_predicate

BOUNDS = [-math.inf, -3.5, -1.0, -0.0, 0.0, 1e-300, 1.0, 2.5, 7.0, math.inf]
LITERALS = [0.0, -0.0, 1.0, -1.0, 2.5, 7, math.inf, -math.inf, math.nan, -math.nan]


def _abstract(rng: random.Random) -> ColumnAbstract:
    if rng.random() < 0.1:
        return ColumnAbstract.anything(rng.choice(["float", "any"]), may_null=rng.random() < 0.5)
    lo = hi = None
    if rng.random() < 0.85:
        lo = rng.choice(BOUNDS)
    if rng.random() < 0.85:
        hi = rng.choice(BOUNDS)
    if lo is not None and hi is not None and (lo > hi or (lo == hi and math.copysign(1, lo)
                                                          > math.copysign(1, hi))):
        lo, hi = hi, lo
    return ColumnAbstract("float", lo, hi, rng.random() < 0.8, rng.random() < 0.4,
                          rng.random() < 0.4, rng.random() < 0.3)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(sorted(PROFILES)))
def test_arrays_give_the_verdicts_of_truth(seed: int, name: str) -> None:
    rng = random.Random(seed)
    prof = PROFILES[name]
    pred = random_predicate(rng, ["x", "y"], LITERALS, depth=rng.randint(0, 3))
    scopes = [{"x": _abstract(rng), "y": _abstract(rng)} for _ in range(rng.randint(1, 12))]
    env = {n: AbstractArrays.of([s[n] for s in scopes]) for n in ("x", "y")}
    sub = {n: env[n] for n in pred.columns()}
    got = may_be_true(pred, sub, prof).tolist() if sub else None
    want = [True in truth(pred, {n: s[n] for n in pred.columns()}, prof) for s in scopes]
    if got is not None:
        assert got == want, (repr(pred), name)


def test_zeros_and_nan_literals_by_semantics() -> None:
    # -0.0 only: equal to +0.0 for SQL engines, not under totalOrder.
    zeros = {"x": AbstractArrays.of([ColumnAbstract.of_range(-0.0, -0.0),
                                     ColumnAbstract.only_nan(pos=False)])}
    assert may_be_true(col("x") == 0.0, zeros, "spark").tolist() == [True, False]
    assert may_be_true(col("x") == 0.0, zeros, "total_order").tolist() == [False, False]
    assert may_be_true(col("x") < -1e300, zeros, "total_order").tolist() == [False, True]
    assert may_be_true(col("x") == math.nan, zeros, "spark").tolist() == [False, True]
    assert may_be_true(col("x") != col("x"), zeros, "ieee").tolist() == [False, True]


def test_unsupported_is_said() -> None:
    ints = [ColumnAbstract.of_range(1, 5)]
    with pytest.raises(Unsupported, match="int bounds"):
        AbstractArrays.of(ints)
    x = {"x": AbstractArrays.of([ColumnAbstract.of_range(1.0, 5.0)])}
    with pytest.raises(Unsupported, match="literal"):
        may_be_true(col("x") == "a", x, "spark")
    with pytest.raises(ValueError, match="differ in length"):
        may_be_true(col("x") > col("y"), {**x, "y": AbstractArrays.of([])}, "spark")
    assert may_be_true(ex.Lit(True), x, "spark").tolist() == [True]


def _source(rng: np.random.Generator, groups: int) -> StatsSource:
    """Two columns, NaN bursts of both signs, nulls, zeros; pages of different sizes."""
    out, rows = [], []
    for _ in range(groups):
        n = int(rng.integers(1, 120))
        group = {}
        for name in ("x", "y"):
            values = rng.choice([-0.0, 0.0, 1.0, 2.5, -3.0, 9.0, np.inf, np.nan, -np.nan], n)
            values = np.where(rng.random(n) < 0.5, rng.normal(0, 5, n), values)
            burst = int(rng.integers(0, n))
            values[burst:burst + int(rng.integers(0, 30))] = np.nan
            mask = rng.random(n) > 0.1
            page_rows = int(rng.integers(1, 25))
            stats = page_stats(values, mask, page_rows=page_rows)
            group[name] = (list(range(0, n, page_rows)), stats)
        out.append(group)
        rows.append(n)
    return StatsSource(out, rows)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(sorted(PROFILES)))
def test_planner_over_arrays_keeps_the_rows_of_the_per_segment_planner(seed: int,
                                                                        name: str) -> None:
    rng = np.random.default_rng(seed)
    src = _source(rng, int(rng.integers(1, 5)))
    pred = random_predicate(random.Random(seed), ["x", "y"], LITERALS, depth=2)
    fast = plan(src, pred, name, detail=False)
    slow = plan(src, pred, name, detail=True)
    assert fast.selection.ranges == slow.selection.ranges, repr(pred)
    assert [d.kept for d in fast.row_groups] == [d.kept for d in slow.row_groups]
