"""Abstract interpretation of predicates over what statistics say about a scope.

A column over a scope (file, row group, page) is abstracted as a
:class:`ColumnAbstract`: a range of its non-NaN values in IEEE 754 totalOrder
(open ends when unknown), and whether a number, a null, a +NaN and a -NaN may
occur.  :func:`truth` evaluates a predicate over those abstractions and gives
the set of truth values it can take (three-valued logic: True, False and
None for null).  A scope may be skipped only when True is not in that set.

The result is conservative by construction: every operation maps the set of
possible inputs to a superset of the possible outputs, so a wrong answer
only costs a read, never a lost row.

>>> from nanstats.prune.expressions import col, is_nan
>>> x = ColumnAbstract.of_range(1.0, 5.0, may_pos_nan=True)
>>> sorted(truth(col("x") > 7.0, {"x": x}, "ieee"), key=repr)
[False]
>>> sorted(truth(col("x") > 7.0, {"x": x}, "nan_greatest"), key=repr)
[False, True]
>>> sorted(truth(~is_nan(col("x")) & (col("x") * 2 >= 10), {"x": x}, "nan_greatest"), key=repr)
[False, True]
>>> sorted(truth(col("x") != col("x"), {"x": ColumnAbstract.of_range(1.0, 5.0)}, "ieee"))
[False]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

from nanstats.core.abstraction import Bound, ColumnAbstract
from nanstats.core.floats import float_key, nan_sign
from nanstats.prune import expressions as ex
from nanstats.prune.expressions import Expr
from nanstats.prune.profiles import EngineProfile, profile
from nanstats.prune.semantics import TRUE_UNDER, NanSemantics, Relation
from nanstats.prune.visitor import ExprVisitor

__all__ = ["ALL_TRUTHS", "ColumnAbstract", "Truth", "TruthSet", "env_has_rows", "may_match",
           "relations", "truth", "value"]

Truth = bool | None
TruthSet = frozenset[Truth]

ALL_TRUTHS: TruthSet = frozenset({True, False, None})


# --- comparing bounds ---------------------------------------------------------

def _less(a: Bound, b: Bound, total: bool) -> bool:
    """a < b for two non-NaN bounds; totalOrder (zeros distinct) when ``total``."""
    if total and isinstance(a, float) and isinstance(b, float):
        return float_key(a) < float_key(b)
    try:
        return a < b  # type: ignore[operator]
    except TypeError:
        raise TypeError(f"cannot compare {type(a).__name__} with {type(b).__name__} "
                        f"values ({a!r}, {b!r})") from None


def _as_float(a: ColumnAbstract) -> ColumnAbstract:
    """Integers as doubles, as an engine compares an integer with a double."""
    if a.kind != "int":
        return a
    return replace(a, kind="float", lo=None if a.lo is None else float(a.lo),
                   hi=None if a.hi is None else float(a.hi))


def _value_relations(a: ColumnAbstract, b: ColumnAbstract, total: bool) -> set[Relation]:
    out: set[Relation] = set()
    if a.lo is None or b.hi is None or _less(a.lo, b.hi, total):
        out.add("lt")
    if b.lo is None or a.hi is None or _less(b.lo, a.hi, total):
        out.add("gt")
    if (a.hi is None or b.lo is None or not _less(a.hi, b.lo, total)) and \
            (b.hi is None or a.lo is None or not _less(b.hi, a.lo, total)):
        out.add("eq")
    return out


def nan_band(cls: str, semantics: NanSemantics) -> int:
    """Where a class of values (``"value"``, ``"+nan"``, ``"-nan"``) sits under
    ``semantics``: 0 among the numbers, 1 above them all, -1 below.

    >>> [nan_band(c, s) for c, s in [("value", "nan_greatest"), ("-nan", "nan_greatest"),
    ...                               ("-nan", "total_order")]]
    [0, 1, -1]
    """
    if cls == "value":
        return 0
    if semantics == "nan_greatest":
        return 1
    if semantics == "nan_least":
        return -1
    return 1 if cls == "+nan" else -1  # total_order


def relations(a: ColumnAbstract, b: ColumnAbstract, semantics: NanSemantics) -> set[Relation]:
    """Every relation two non-null values drawn from a and b may be in."""
    if "float" in (a.kind, b.kind):
        a, b = _as_float(a), _as_float(b)
    total = semantics == "total_order"

    def classes(x: ColumnAbstract) -> list[str]:
        return [c for c, on in (("value", x.may_value), ("+nan", x.may_pos_nan),
                                ("-nan", x.may_neg_nan)) if on]

    out: set[Relation] = set()
    for ca in classes(a):
        for cb in classes(b):
            if ca == "value" and cb == "value":
                out |= _value_relations(a, b, total)
            else:
                out.update(class_relations(ca, cb, semantics))
    return out


def class_relations(ca: str, cb: str, semantics: NanSemantics) -> tuple[Relation, ...]:
    """The relations two non-null values of classes ``ca`` and ``cb`` (``"value"``,
    ``"+nan"``, ``"-nan"``; not both numbers) may be in.

    >>> class_relations("value", "-nan", "nan_greatest"), class_relations("+nan", "-nan", "ieee")
    (('lt',), ('un',))
    """
    if semantics == "ieee":
        return ("un",)
    ba, bb = nan_band(ca, semantics), nan_band(cb, semantics)
    if ba != bb:
        return ("lt",) if ba < bb else ("gt",)
    if semantics == "total_order":
        return ("lt", "eq", "gt")  # payloads unknown
    return ("eq",)  # all NaNs are equal


# --- value expressions --------------------------------------------------------

def _literal(value: object) -> ColumnAbstract | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        if math.isnan(value):
            pos = nan_sign(value) > 0
            return ColumnAbstract.only_nan(pos=pos, neg=not pos)
        return ColumnAbstract("float", value, value, True, False, False, False)
    if isinstance(value, int):
        return ColumnAbstract("int", value, value, True, False, False, False)
    if isinstance(value, str):
        value = value.encode("utf-8")
    if isinstance(value, bytes):
        return ColumnAbstract("bytes", value, value, True, False, False, False)
    return None


def _constant(e: Expr) -> float | None:
    """The value of a finite numeric literal, else None."""
    if isinstance(e, ex.Lit) and isinstance(e.value, int | float) and not isinstance(e.value, bool):
        v = float(e.value)
        return v if math.isfinite(v) else None
    return None


def _map(a: ColumnAbstract, f: object, increasing: bool) -> ColumnAbstract:
    """Apply a monotonic map (in double precision) to a range; NaN signs become unknown."""
    a = _as_float(a)
    if a.kind not in ("float", "any"):
        raise TypeError(f"arithmetic on {a.kind} values")
    lo = None if a.lo is None else f(a.lo)  # type: ignore[operator]
    hi = None if a.hi is None else f(a.hi)  # type: ignore[operator]
    if not increasing:
        lo, hi = hi, lo
    # IEEE 754 leaves the sign of an arithmetic NaN result unspecified.
    nan = a.may_nan
    return ColumnAbstract("float", lo, hi, a.may_value, a.may_null, nan, nan)


class _ValueOf(ExprVisitor[ColumnAbstract]):
    """The abstraction of a value expression; a predicate is not a value."""

    __slots__ = ("env", "nan_is_missing")

    def __init__(self, env: dict[str, ColumnAbstract], nan_is_missing: bool = False) -> None:
        self.env, self.nan_is_missing = env, nan_is_missing

    def visit_col(self, e: ex.Col) -> ColumnAbstract:
        try:
            a = self.env[e.name]
        except KeyError:
            raise KeyError(f"no statistics given for column {e.name!r}") from None
        if self.nan_is_missing and a.may_null:
            # A null is a NaN (of either sign, for all a statistic says).
            return replace(a, kind="float" if a.kind == "any" else a.kind, may_null=False,
                           may_pos_nan=True, may_neg_nan=True)
        return a

    def visit_lit(self, e: ex.Lit) -> ColumnAbstract:
        out = _literal(e.value)
        if out is None:
            raise TypeError(f"{e!r} is a truth value, not a value")
        return out

    def visit_neg(self, e: ex.Neg) -> ColumnAbstract:
        a = _as_float(self.visit(e.operand))
        if a.kind not in ("float", "any"):
            raise TypeError(f"cannot negate {a.kind} values in {e!r}")
        # a.kind is "float" or "any" here: bounds, when present, are floats.
        lo = None if a.hi is None else -float(a.hi)
        hi = None if a.lo is None else -float(a.lo)
        return ColumnAbstract("float", lo, hi, a.may_value, a.may_null,
                              a.may_neg_nan, a.may_pos_nan)

    def visit_arith(self, e: ex.Arith) -> ColumnAbstract:
        left, right = self.visit(e.left), self.visit(e.right)
        c_right, c_left = _constant(e.right), _constant(e.left)
        may_null = left.may_null or right.may_null
        if c_right is not None:
            c = c_right
            if e.op == "+":
                return _map(left, lambda v: v + c, True)
            if e.op == "-":
                return _map(left, lambda v: v - c, True)
            if e.op == "*" and c != 0:
                return _map(left, lambda v: v * c, c > 0)
            if e.op == "/" and c != 0:
                return _map(left, lambda v: v / c, c > 0)
        elif c_left is not None:
            c = c_left
            if e.op == "+":
                return _map(right, lambda v: c + v, True)
            if e.op == "-":
                return _map(right, lambda v: c - v, False)
            if e.op == "*" and c != 0:
                return _map(right, lambda v: c * v, c > 0)
        # Not monotonic in a known direction: anything, NaN included.
        return ColumnAbstract.anything("float", may_null=may_null)

    def _predicate(self, e: Expr) -> ColumnAbstract:
        raise TypeError(f"{e!r} is a predicate, not a value")

    visit_compare = visit_in = visit_is_nan = visit_is_null = _predicate
    visit_and = visit_or = visit_not = _predicate


def value(e: Expr, env: dict[str, ColumnAbstract]) -> ColumnAbstract:
    """The abstraction of a value expression over one scope.

    >>> from nanstats.prune.expressions import col
    >>> value(-col("x") + 1.0, {"x": ColumnAbstract.of_range(1.0, 5.0, may_pos_nan=True)})
    ColumnAbstract(float: [-4.0, 0.0], value, +nan, -nan)
    """
    return _ValueOf(env).visit(e)


# --- predicates ---------------------------------------------------------------

def _and(a: Truth, b: Truth) -> Truth:
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def _or(a: Truth, b: Truth) -> Truth:
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


class _TruthOf(ExprVisitor[TruthSet]):
    """The truth values a predicate may take; a value expression is not a predicate."""

    __slots__ = ("env", "profile", "semantics", "values")

    def __init__(self, env: dict[str, ColumnAbstract], prof: EngineProfile) -> None:
        self.env, self.profile, self.semantics = env, prof, prof.order
        self.values = _ValueOf(env, prof.nan_is_missing)

    def visit_compare(self, e: ex.Compare) -> TruthSet:
        a, b = self.values.visit(e.left), self.values.visit(e.right)
        if e.left.same_as(e.right):
            # One row, one value: a number equals itself, a NaN is unordered
            # with itself under IEEE 754 and equal to itself elsewhere.
            nan_rel: Relation = "un" if self.semantics == "ieee" else "eq"
            rels: set[Relation] = set()
            if a.may_value:
                rels.add("eq")
            if a.may_nan:
                rels.add(nan_rel)
        else:
            rels = relations(a, b, self.semantics)
        out: set[Truth] = {r in TRUE_UNDER[e.op] for r in rels}
        nonnull_a = a.may_value or a.may_nan
        nonnull_b = b.may_value or b.may_nan
        if (a.may_null and (nonnull_b or b.may_null)) or (b.may_null and nonnull_a):
            out.add(None)
        return frozenset(out)

    def visit_in(self, e: ex.In) -> TruthSet:
        p = self.profile
        a = self.values.visit(e.operand)
        nonnull = replace(a, may_null=False)
        out: set[Truth] = set()
        if nonnull.may_value or nonnull.may_nan:
            rels = [relations(nonnull, self.values.visit(v), p.membership_order)
                    for v in e.values]
            if any("eq" in r for r in rels):
                out.add(True)
            # A row unequal to every value is unequal to each: a superset.
            if all(r - {"eq"} for r in rels):
                out.add(False)
        if a.may_null:
            out.add(p.null_in)
        return frozenset(out)

    def visit_is_nan(self, e: ex.IsNan) -> TruthSet:
        a = self.values.visit(e.operand)
        null: Truth = None if self.profile.is_nan_null == "null" else False
        return frozenset({True} if a.may_nan else set()) | \
            frozenset({False} if a.may_value else set()) | \
            frozenset({null} if a.may_null else set())

    def visit_is_null(self, e: ex.IsNull) -> TruthSet:
        a = self.values.visit(e.operand)
        if self.profile.nan_is_missing:  # isna: NaN and null are one missing value
            return frozenset({True} if a.may_nan or a.may_null else set()) | \
                frozenset({False} if a.may_value else set())
        return frozenset({True} if a.may_null else set()) | \
            frozenset({False} if a.may_value or a.may_nan else set())

    def _combine(self, left: Expr, right: Expr, op: Callable[[Truth, Truth], Truth]
                 ) -> TruthSet:
        a, b = self.visit(left), self.visit(right)
        if not a or not b:
            return frozenset()
        return frozenset(op(x, y) for x in a for y in b)

    def visit_and(self, e: ex.And) -> TruthSet:
        return self._combine(e.left, e.right, _and)

    def visit_or(self, e: ex.Or) -> TruthSet:
        return self._combine(e.left, e.right, _or)

    def visit_not(self, e: ex.Not) -> TruthSet:
        return frozenset(None if t is None else not t for t in self.visit(e.operand))

    def visit_lit(self, e: ex.Lit) -> TruthSet:
        if isinstance(e.value, bool):
            return frozenset({e.value}) if env_has_rows(self.env) else frozenset()
        return self._value(e)

    def _value(self, e: Expr) -> TruthSet:
        raise TypeError(f"{e!r} is a value, not a predicate")

    visit_col = visit_arith = visit_neg = _value


def truth(e: Expr, env: dict[str, ColumnAbstract],
          semantics: str | EngineProfile) -> TruthSet:
    """Every truth value a predicate may take on some row of the scope.

    An empty set means the scope has no rows.

    >>> from nanstats.prune.expressions import col
    >>> sorted(truth(col("x") < 2.0, {"x": ColumnAbstract.of_range(1.0, 5.0, may_null=True)},
    ...              "ieee"), key=repr)
    [False, None, True]
    """
    return _TruthOf(env, profile(semantics)).visit(e)


def env_has_rows(env: dict[str, ColumnAbstract]) -> bool:
    """False when some column of the scope can hold no row at all (an empty scope)."""
    return all(a.may_value or a.may_null or a.may_nan for a in env.values())


def may_match(e: Expr, env: dict[str, ColumnAbstract], semantics: str | EngineProfile) -> bool:
    """Whether some row of the scope may satisfy the predicate (keep the scope).

    >>> from nanstats.prune.expressions import col
    >>> may_match(col("x") == 0.0, {"x": ColumnAbstract.of_range(-0.0, -0.0)}, "total_order")
    False
    >>> may_match(col("x") == 0.0, {"x": ColumnAbstract.of_range(-0.0, -0.0)}, "ieee")
    True
    """
    return True in truth(e, env, semantics)
