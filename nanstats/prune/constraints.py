"""Necessary conditions on one column, for searching a sorted page index.

:func:`necessary` derives from a predicate what any row it accepts must hold
in one column: a value in an interval of totalOrder keys, or a NaN of an
allowed sign, or a null.  Pages that can hold none of those cannot hold a
matching row, so a binary search over a sorted ColumnIndex may pass them
over without looking at the rest of the predicate.

>>> from nanstats.prune.expressions import col, is_nan
>>> n = necessary((col("x") > 2.0) & (col("x") <= 5.0), "x", "nan_greatest")
>>> n.lo == float_key(2.0), n.lo_inclusive, n.hi == float_key(5.0), n.hi_inclusive
(True, False, True, True)
>>> n.pos_nan, n.neg_nan, n.null
(False, False, False)
>>> necessary(col("x") > 2.0, "x", "nan_greatest").pos_nan
True
>>> necessary(col("x") != 2.0, "x", "ieee") is None
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from nanstats.core.abstraction import ColumnAbstract
from nanstats.core.floats import float_key
from nanstats.prune import expressions as ex
from nanstats.prune.expressions import Expr
from nanstats.prune.profiles import EngineProfile, profile
from nanstats.prune.semantics import SWAPPED, Comparison, NanSemantics
from nanstats.prune.visitor import ExprVisitor

# Keys of one column are all ints (float64 totalOrder keys, integers) or all bytes;
# typed Any because the two never meet and mypy cannot say so.
Key = Any


@dataclass(frozen=True)
class Need:
    """What a matching row's value in one column must be.

    A number whose key lies in [lo, hi] (each end open, closed or absent;
    ``values`` false when no number qualifies), or a +NaN when ``pos_nan``,
    a -NaN when ``neg_nan``, a null when ``null``.
    """

    values: bool
    lo: Key | None
    lo_inclusive: bool
    hi: Key | None
    hi_inclusive: bool
    pos_nan: bool
    neg_nan: bool
    null: bool

    def admits_range(self, lo: Key, hi: Key) -> bool:
        """Whether some key in [lo, hi] lies in the interval."""
        if not self.values:
            return False
        if self.hi is not None and (lo > self.hi or (lo == self.hi and not self.hi_inclusive)):
            return False
        return not (self.lo is not None
                    and (hi < self.lo or (hi == self.lo and not self.lo_inclusive)))

    def admits(self, page: ColumnAbstract, keys: tuple[Key, Key] | None) -> bool:
        """Whether a page (its abstraction and value-range keys) may hold such a value."""
        if (self.pos_nan and page.may_pos_nan) or (self.neg_nan and page.may_neg_nan) \
                or (self.null and page.may_null):
            return True
        if not page.may_value:
            return False
        return keys is None or self.admits_range(*keys)


_NOTHING = Need(False, None, False, None, False, False, False, False)


def _intersect(a: Need, b: Need) -> Need:
    lo, lo_inc = a.lo, a.lo_inclusive
    if b.lo is not None and (lo is None or b.lo > lo or (b.lo == lo and not b.lo_inclusive)):
        lo, lo_inc = b.lo, b.lo_inclusive
    hi, hi_inc = a.hi, a.hi_inclusive
    if b.hi is not None and (hi is None or b.hi < hi or (b.hi == hi and not b.hi_inclusive)):
        hi, hi_inc = b.hi, b.hi_inclusive
    values = a.values and b.values
    if values and lo is not None and hi is not None and \
            (lo > hi or (lo == hi and not (lo_inc and hi_inc))):
        values = False
    return Need(values, lo, lo_inc, hi, hi_inc, a.pos_nan and b.pos_nan,
                a.neg_nan and b.neg_nan, a.null and b.null)


def _hull(a: Need, b: Need) -> Need:
    if not a.values:
        lo, lo_inc, hi, hi_inc = b.lo, b.lo_inclusive, b.hi, b.hi_inclusive
    elif not b.values:
        lo, lo_inc, hi, hi_inc = a.lo, a.lo_inclusive, a.hi, a.hi_inclusive
    else:
        if a.lo is None or b.lo is None:
            lo, lo_inc = None, False
        elif a.lo != b.lo:
            lo, lo_inc = (a.lo, a.lo_inclusive) if a.lo < b.lo else (b.lo, b.lo_inclusive)
        else:
            lo, lo_inc = a.lo, a.lo_inclusive or b.lo_inclusive
        if a.hi is None or b.hi is None:
            hi, hi_inc = None, False
        elif a.hi != b.hi:
            hi, hi_inc = (a.hi, a.hi_inclusive) if a.hi > b.hi else (b.hi, b.hi_inclusive)
        else:
            hi, hi_inc = a.hi, a.hi_inclusive or b.hi_inclusive
    return Need(a.values or b.values, lo, lo_inc, hi, hi_inc, a.pos_nan or b.pos_nan,
                a.neg_nan or b.neg_nan, a.null or b.null)


def _compare_need(op: Comparison, c: float | int | bytes, kind: str,
                  semantics: NanSemantics) -> Need | None:
    """Need for ``column op c`` with a non-NaN constant c."""
    if op == "!=":
        return None
    if kind == "float":
        c = float(c)
        total = semantics == "total_order"
        if c == 0.0 and not total:
            low, high = float_key(-0.0), float_key(0.0)  # both zeros equal c
        else:
            low = high = float_key(c)
        above = {"nan_greatest": (True, True), "total_order": (True, False)}.get(
            semantics, (False, False))
        below = {"nan_least": (True, True), "total_order": (False, True)}.get(
            semantics, (False, False))
    else:
        low = high = c  # type: ignore[assignment]
        above = below = (False, False)
    if op == "==":
        return Need(True, low, True, high, True, False, False, False)
    if op in ("<", "<="):
        return Need(True, None, False, low if op == "<" else high, op == "<=", *below, False)
    return Need(True, high if op == ">" else low, op == ">=", None, False, *above, False)


class _Necessary(ExprVisitor[Need | None]):
    """What a predicate needs of one column; None where it needs nothing."""

    __slots__ = ("column", "kind", "profile", "semantics")

    def __init__(self, column: str, prof: EngineProfile, kind: str) -> None:
        self.column, self.profile, self.semantics, self.kind = column, prof, prof.order, kind

    def _is_column(self, e: Expr) -> bool:
        return isinstance(e, ex.Col) and e.name == self.column

    def visit_compare(self, e: ex.Compare) -> Need | None:
        left, right, op = e.left, e.right, e.op
        if isinstance(right, ex.Col) and not isinstance(left, ex.Col):
            left, right, op = right, left, SWAPPED[op]
        if not (self._is_column(left) and isinstance(right, ex.Lit)):
            return None
        return self._compare(op, right.value, self.semantics)

    def _compare(self, op: Comparison, c: object, semantics: NanSemantics) -> Need | None:
        need = self._compare_value(op, c, semantics)
        if need is not None and self.profile.nan_is_missing and (need.pos_nan or need.neg_nan):
            return replace(need, null=True)  # a null compares as a NaN
        return need

    def _compare_value(self, op: Comparison, c: object, semantics: NanSemantics) -> Need | None:
        kind = self.kind
        if isinstance(c, bool):
            return None
        if kind == "float" and isinstance(c, int | float):
            if isinstance(c, float) and math.isnan(c):
                return None
            return _compare_need(op, c, kind, semantics)
        if kind == "int" and isinstance(c, int):
            return _compare_need(op, c, kind, semantics)
        if kind == "bytes" and isinstance(c, str | bytes):
            return _compare_need(op, c.encode("utf-8") if isinstance(c, str) else c, kind,
                                 semantics)
        return None

    def visit_in(self, e: ex.In) -> Need | None:
        if not self._is_column(e.operand):
            return None
        out: Need | None = None
        for v in e.values:
            need = self._compare("==", v.value, self.profile.membership_order)
            if need is None:
                return None
            out = need if out is None else _hull(out, need)
        return out

    def visit_is_nan(self, e: ex.IsNan) -> Need | None:
        if self._is_column(e.operand):
            return Need(False, None, False, None, False, True, True, self.profile.nan_is_missing)
        return None

    def visit_is_null(self, e: ex.IsNull) -> Need | None:
        if self._is_column(e.operand):
            missing = self.profile.nan_is_missing
            return Need(False, None, False, None, False, missing, missing, True)
        return None

    def visit_and(self, e: ex.And) -> Need | None:
        a, b = self.visit(e.left), self.visit(e.right)
        if a is None or b is None:
            return a if b is None else b
        return _intersect(a, b)

    def visit_or(self, e: ex.Or) -> Need | None:
        a, b = self.visit(e.left), self.visit(e.right)
        if a is None or b is None:
            return None
        return _hull(a, b)

    def visit_lit(self, e: ex.Lit) -> Need | None:
        return _NOTHING if e.value is False else None

    def _nothing_needed(self, e: Expr) -> Need | None:
        # A NOT flips what it wraps and values are no predicates: no condition.
        return None

    visit_col = visit_arith = visit_neg = visit_not = _nothing_needed


def necessary(e: Expr, column: str, semantics: str | EngineProfile,
              kind: str = "float") -> Need | None:
    """What a row the predicate accepts must hold in ``column``, or None (no condition).

    ``kind`` is the column's value kind ('float', 'int' or 'bytes'); keys are
    float64 totalOrder keys for floats, the values themselves otherwise.

    >>> from nanstats.prune.expressions import col
    >>> necessary(col("s") >= "b", "s", "ieee", "bytes").lo
    b'b'
    """
    return _Necessary(column, profile(semantics), kind).visit(e)
