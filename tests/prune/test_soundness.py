"""Soundness is the law: no skipped scope may hold a row the predicate accepts.

Data, page splits, statistics (exact ColumnStats with NaN signs; spec
Statistics in both column orders and policies; legacy statistics as pyarrow
writes them and as older writers did, NaN bounds included) and predicates
are generated; for each of the four semantics, every page that holds a row
for which the slow oracle (``nanstats.testing.predicate_oracle``) says True
must be kept by the abstract interpretation, under every statistics source.

The volume test runs ``NANSTATS_PRUNE_CASES`` cases (default 300,000; ``make
prune-soundness`` runs a million); a case is one (page, predicate, semantics,
statistics source) check.
"""

from __future__ import annotations

import math
import os
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanstats
from nanstats.core.abstraction import ColumnAbstract
from nanstats.core.floats import DOUBLE, FLOAT, FLOAT16, FloatType
from nanstats.core.reading_rules import from_column_stats, from_float_bounds
from nanstats.prune.abstract import truth
from nanstats.prune.expressions import Expr
from nanstats.prune.semantics import SEMANTICS
from nanstats.testing.predicate_oracle import evaluate_row, random_predicate
from tests.strategies import special_bits

SOURCES = ("exact", "ieee754", "type_order_safe", "type_order_min", "legacy", "legacy_nan",
           "legacy_counted")


def _float(ft: FloatType, bits: int) -> float:
    return ft.bits_to_float(bits)


def _legacy_bounds(ft: FloatType, values: list[int], nan_bounds: bool
                   ) -> tuple[bytes | None, bytes | None]:
    """Bounds as old writers computed them: a running '<' from the first value.

    Without ``nan_bounds`` NaNs are skipped (pyarrow); with it a leading NaN
    sticks in both bounds (writers before PARQUET-1222).  Either zero may be
    the one kept.
    """
    lo = hi = None
    for b in values:
        v = _float(ft, b)
        if math.isnan(v) and not nan_bounds:
            continue
        if lo is None:
            lo = hi = b
            continue
        if v < _float(ft, lo):
            lo = b
        if v > _float(ft, hi):  # type: ignore[arg-type]
            hi = b
    if lo is None:
        return None, None
    plain = ft.bits_to_plain([lo, hi])
    return plain[0], plain[1]


def page_abstracts(ft: FloatType, bits: np.ndarray, valid: np.ndarray,
                   page_rows: int) -> dict[str, list[ColumnAbstract]]:
    """Each page of a column abstracted from each statistics source."""
    values = bits.view(ft.float_dtype)
    stats = nanstats.page_stats(values, valid, page_rows=page_rows) if len(bits) else []
    out: dict[str, list[ColumnAbstract]] = {s: [] for s in SOURCES}
    for i, cs in enumerate(stats):
        out["exact"].append(from_column_stats(cs))
        for source, order, policy in (("ieee754", "ieee754", "safe"),
                                      ("type_order_safe", "type_order", "safe"),
                                      ("type_order_min", "type_order", "format_minimum")):
            enc = cs.statistics(order, policy=policy)  # type: ignore[arg-type]
            out[source].append(from_float_bounds(
                ft, order, enc.min_value, enc.max_value,  # type: ignore[arg-type]
                null_count=enc.null_count, nan_count=enc.nan_count,
                num_values=cs.num_values))
        page = slice(i * page_rows, (i + 1) * page_rows)
        present = [int(b) for b, ok in zip(bits[page], valid[page], strict=True) if ok]
        # pyarrow; writers before PARQUET-1222; and a writer that counts NaNs
        # but keeps whichever zero it met first (the reader's zero rule covers it).
        for source, nan_bounds, nans in (("legacy", False, None), ("legacy_nan", True, None),
                                         ("legacy_counted", False, cs.nan_count)):
            lo, hi = _legacy_bounds(ft, present, nan_bounds)
            out[source].append(from_float_bounds(
                ft, "type_order", lo, hi, null_count=cs.null_count, nan_count=nans,
                num_values=cs.num_values))
    return out


def _rows(ft: FloatType, bits: np.ndarray, valid: np.ndarray, ybits: np.ndarray,
          yvalid: np.ndarray) -> list[dict[str, float | None]]:
    return [{"x": _float(ft, int(b)) if ok else None,
             "y": _float(DOUBLE, int(c)) if ok2 else None}
            for b, ok, c, ok2 in zip(bits, valid, ybits, yvalid, strict=True)]


def check_column_pages(ft: FloatType, bits: np.ndarray, valid: np.ndarray, ybits: np.ndarray,
                       yvalid: np.ndarray, page_rows: int, predicates: list[Expr]) -> int:
    """Assert soundness for every page, predicate, semantics and source; return cases."""
    xs = page_abstracts(ft, bits, valid, page_rows)
    ys = page_abstracts(DOUBLE, ybits, yvalid, page_rows)
    rows = _rows(ft, bits, valid, ybits, yvalid)
    cases = 0
    for p in predicates:
        for sem in SEMANTICS:
            hits = [evaluate_row(p, r, sem) is True for r in rows]
            for i in range(len(xs["exact"])):
                holds_match = any(hits[i * page_rows:(i + 1) * page_rows])
                for source in SOURCES:
                    cases += 1
                    env = {"x": xs[source][i], "y": ys[source][i]}
                    t = truth(p, env, sem)
                    if holds_match and True not in t:
                        bad = [r for r, h in zip(rows[i * page_rows:(i + 1) * page_rows],
                                                 hits[i * page_rows:(i + 1) * page_rows],
                                                 strict=True) if h]
                        pytest.fail(f"unsound: {p!r} under {sem}, source {source}, page {i}: "
                                    f"skipped although row {bad[0]} matches; "
                                    f"abstractions {env}, truth {set(t)}")
    return cases


def _random_column(rng: random.Random, ft: FloatType, n: int) -> tuple[np.ndarray, np.ndarray]:
    specials = special_bits(ft)
    # A small pool per column so that values repeat and ranges are narrow.
    pool = [rng.choice(specials) if rng.random() < 0.5 else
            int(np.array(rng.uniform(-8, 8) if rng.random() < 0.8 else rng.randint(-3, 3),
                         dtype=np.float64).astype(ft.float_dtype).view(ft.bits_dtype))
            for _ in range(rng.randint(1, 8))]
    r = rng.random()
    if r < 0.15:  # both zeros and few others: the hardest case of the legacy rules
        pool = [0, ft.sign_mask, *pool[:1]]
    elif r < 0.3:
        pool += [0, ft.sign_mask]
    bits = np.array([rng.choice(pool) for _ in range(n)], dtype=ft.bits_dtype)
    mode = rng.random()
    valid = np.ones(n, dtype=bool) if mode < 0.4 else \
        np.zeros(n, dtype=bool) if mode < 0.45 else \
        np.array([rng.random() > 0.25 for _ in range(n)], dtype=bool)
    return bits, valid


def _literals(rng: random.Random, ft: FloatType, bits: np.ndarray) -> list[float | int]:
    from_data = [_float(ft, int(b)) for b in bits[:6]]
    edges = [0.0, -0.0, 1.0, -1.0, 2.5, math.inf, -math.inf, math.nan, -math.nan, 0, 3,
             5e-324, 65504.0, 1e300]
    return [v for v in from_data + edges if rng.random() < 0.7] or [0.0, 1.0]


def run_cases(seed: int, target: int) -> int:
    """Random data and predicates until ``target`` cases have been checked."""
    rng = random.Random(seed)
    cases = 0
    while cases < target:
        ft = rng.choice((FLOAT16, FLOAT, DOUBLE))
        n = rng.choice((0, 1, 2, 5, 9, 16, 24))
        bits, valid = _random_column(rng, ft, n)
        ybits, yvalid = _random_column(rng, DOUBLE, n)
        page_rows = rng.choice((1, 2, 3, 4, 8, 32))
        lits = _literals(rng, ft, bits)
        if len(lits) < 2:
            lits = [*lits, 1.0, 0.0]
        preds = [random_predicate(rng, ["x", "y"], lits, depth=rng.randint(0, 3))
                 for _ in range(12)]
        cases += max(1, check_column_pages(ft, bits, valid, ybits, yvalid, page_rows, preds))
    return cases


def test_soundness_volume() -> None:
    target = int(os.environ.get("NANSTATS_PRUNE_CASES", "300000"))
    seed = int(os.environ.get("NANSTATS_PRUNE_SEED", random.randrange(1 << 30)))
    cases = run_cases(seed, target)
    assert cases >= target, (seed, cases)


@st.composite
def _scenario(draw: st.DrawFn) -> tuple[FloatType, np.ndarray, np.ndarray, int, int]:
    ft = draw(st.sampled_from((FLOAT16, FLOAT, DOUBLE)))
    pool = draw(st.lists(st.sampled_from(special_bits(ft)) |
                         st.integers(0, (1 << ft.width) - 1), min_size=1, max_size=6))
    n = draw(st.integers(0, 12))
    bits = np.array([draw(st.sampled_from(pool)) for _ in range(n)], dtype=ft.bits_dtype)
    valid = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    return ft, bits, valid, draw(st.integers(1, 5)), draw(st.integers(0, 2**32 - 1))


@settings(max_examples=150)
@given(_scenario())
def test_soundness_hypothesis(scenario: tuple[FloatType, np.ndarray, np.ndarray, int, int]
                              ) -> None:
    ft, bits, valid, page_rows, seed = scenario
    rng = random.Random(seed)
    ybits, yvalid = _random_column(rng, DOUBLE, len(bits))
    lits = _literals(rng, ft, bits) + [_float(ft, int(b)) for b in bits[:3]]
    preds = [random_predicate(rng, ["x", "y"], lits or [0.0, 1.0], depth=2) for _ in range(6)]
    check_column_pages(ft, bits, valid, ybits, yvalid, page_rows, preds)
