"""The slow twin of the pruning code: one row at a time, in plain Python.

:func:`evaluate_row` is the obviously-correct meaning of a predicate on one
row under a NaN semantics; the abstract interpretation (``nanstats.prune``)
must never skip a scope holding a row for which it returns True, and the
vectorised row filter must agree with it on every row.
:func:`random_predicate` draws predicates for those checks.

>>> from nanstats.prune.expressions import col
>>> evaluate_row((col("x") > 1.0) | col("y").is_nan(), {"x": None, "y": 2.0}, "ieee") is None
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from nanstats.prune import expressions as ex
from nanstats.prune.expressions import Expr, col
from nanstats.prune.profiles import EngineProfile, profile
from nanstats.prune.semantics import COMPARISONS, holds, relation
from nanstats.prune.visitor import ExprVisitor

Row = dict[str, Any]


class _ValueOf(ExprVisitor[Any]):
    """A value expression on one row (None: null); a predicate is not a value."""

    __slots__ = ("missing", "row")

    def __init__(self, row: Row, nan_is_missing: bool = False) -> None:
        self.row, self.missing = row, nan_is_missing

    def visit_col(self, e: ex.Col) -> Any:
        v = self.row[e.name]
        return math.nan if v is None and self.missing else v

    def visit_lit(self, e: ex.Lit) -> Any:
        return e.value

    def visit_neg(self, e: ex.Neg) -> Any:
        v = self.visit(e.operand)
        return None if v is None else float(-np.float64(v))

    def visit_arith(self, e: ex.Arith) -> Any:
        a, b = self.visit(e.left), self.visit(e.right)
        if a is None or b is None:
            return None
        x, y = np.float64(a), np.float64(b)
        with np.errstate(all="ignore"):
            out = float({"+": x + y, "-": x - y, "*": x * y, "/": x / y}[e.op])
        return math.nan if math.isnan(out) else out  # canonical +NaN, as the row filter

    def _predicate(self, e: Expr) -> Any:
        raise TypeError(f"not a value: {e!r}")

    visit_compare = visit_in = visit_is_nan = visit_is_null = _predicate
    visit_and = visit_or = visit_not = _predicate


class _Evaluate(ExprVisitor[bool | None]):
    """A predicate on one row: True, False or None (null)."""

    __slots__ = ("profile", "semantics", "values")

    def __init__(self, row: Row, prof: EngineProfile) -> None:
        self.values, self.profile, self.semantics = \
            _ValueOf(row, prof.nan_is_missing), prof, prof.order

    def visit_compare(self, e: ex.Compare) -> bool | None:
        a, b = self.values.visit(e.left), self.values.visit(e.right)
        if a is None or b is None:
            return None
        if isinstance(a, float) != isinstance(b, float):
            a, b = float(a), float(b)  # an integer meets a double as a double
        return holds(e.op, relation(a, b, self.semantics))

    def visit_in(self, e: ex.In) -> bool | None:
        a = self.values.visit(e.operand)
        if a is None:
            return self.profile.null_in
        for lit in e.values:
            b = lit.value
            if isinstance(a, float) != isinstance(b, float):
                a, b = float(a), float(b)
            if relation(a, b, self.profile.membership_order) == "eq":
                return True
        return False

    def visit_is_nan(self, e: ex.IsNan) -> bool | None:
        v = self.values.visit(e.operand)
        if v is None:
            return None if self.profile.is_nan_null == "null" else False
        return isinstance(v, float) and math.isnan(v)

    def visit_is_null(self, e: ex.IsNull) -> bool | None:
        v = self.values.visit(e.operand)
        return v is None or (self.profile.nan_is_missing and isinstance(v, float)
                             and math.isnan(v))

    def visit_and(self, e: ex.And) -> bool | None:
        a, b = self.visit(e.left), self.visit(e.right)
        if a is False or b is False:
            return False
        return None if a is None or b is None else True

    def visit_or(self, e: ex.Or) -> bool | None:
        a, b = self.visit(e.left), self.visit(e.right)
        if a is True or b is True:
            return True
        return None if a is None or b is None else False

    def visit_not(self, e: ex.Not) -> bool | None:
        v = self.visit(e.operand)
        return None if v is None else not v

    def visit_lit(self, e: ex.Lit) -> bool | None:
        if isinstance(e.value, bool):
            return e.value
        return self._value(e)

    def _value(self, e: Expr) -> bool | None:
        raise TypeError(f"not a predicate: {e!r}")

    visit_col = visit_arith = visit_neg = _value


def evaluate_row(e: Expr, row: Row, semantics: str | EngineProfile) -> bool | None:
    """True, False or None (null) for one row (a dict of column values, None = null).

    Literals must already be typed against the columns (``binding.bind``).

    >>> from nanstats.prune.expressions import col
    >>> evaluate_row(col("x") == col("x"), {"x": float("nan")}, "nan_greatest")
    True
    """
    return _Evaluate(row, profile(semantics)).visit(e)


def random_predicate(rng: random.Random, columns: Sequence[str],
                     literals: Sequence[float | int], depth: int = 3) -> Expr:
    """A random predicate over float columns with the given literals (NaNs included)."""

    def value(d: int) -> Expr:
        c: Expr = col(rng.choice(list(columns)))
        r = rng.random()
        if d > 0 and r < 0.25:
            k = rng.choice(list(literals))
            op = rng.choice("+-*/")
            return (c + k if op == "+" else c - k if op == "-" else
                    c * k if op == "*" else c / k) if rng.random() < 0.8 else \
                (k + c if op == "+" else k - c if op == "-" else k * c if op == "*" else k / c)
        if d > 0 and r < 0.32:
            return -c
        return c

    def pred(d: int) -> Expr:
        r = rng.random()
        if d <= 0 or r < 0.45:
            k = rng.random()
            if k < 0.1:
                return ex.IsNan(value(d - 1))
            if k < 0.15:
                return ex.IsNull(col(rng.choice(list(columns))))
            if k < 0.22:
                lo, hi = sorted(rng.sample(list(literals), 2), key=lambda v: (v != v, v))
                return value(d - 1).between(lo, hi)
            if k < 0.27:
                return value(d - 1).isin(rng.sample(list(literals), rng.randint(0, 3)))
            op = rng.choice(COMPARISONS)
            right: Expr = ex.Lit(rng.choice(list(literals))) if rng.random() < 0.85 else \
                col(rng.choice(list(columns)))
            left = value(d - 1)
            return ex.Compare(op, left, right) if rng.random() < 0.8 else ex.Compare(op, right, left)
        if r < 0.7:
            return ex.And(pred(d - 1), pred(d - 1))
        if r < 0.92:
            return ex.Or(pred(d - 1), pred(d - 1))
        return ex.Not(pred(d - 1))

    return pred(depth)
