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
from dataclasses import dataclass, replace
from typing import Literal

from nanstats.core.floats import float_key, nan_sign
from nanstats.prune.expressions import (
    And,
    Arith,
    Col,
    Compare,
    Expr,
    IsNan,
    IsNull,
    Lit,
    Neg,
    Not,
    Or,
)
from nanstats.prune.semantics import (
    TRUE_UNDER,
    NanSemantics,
    Relation,
)

Truth = bool | None
TruthSet = frozenset[Truth]
ValueKind = Literal["float", "int", "bytes", "any"]
Bound = float | int | bytes | None

ALL_TRUTHS: TruthSet = frozenset({True, False, None})


@dataclass(frozen=True)
class ColumnAbstract:
    """What may occur in a column (or a value expression) over one scope.

    ``lo``/``hi`` bound the non-NaN values in totalOrder (None: unbounded);
    they mean nothing when ``may_value`` is false.  ``kind`` is the value
    domain (floats, integers, byte strings, or unknown).

    >>> ColumnAbstract.anything()
    ColumnAbstract(any: [-, +], value, null, +nan, -nan)
    >>> ColumnAbstract.of_range(-0.0, 3.0, may_null=True)
    ColumnAbstract(float: [-0.0, 3.0], value, null)
    """

    kind: ValueKind
    lo: Bound
    hi: Bound
    may_value: bool
    may_null: bool
    may_pos_nan: bool
    may_neg_nan: bool

    @classmethod
    def anything(cls, kind: ValueKind = "any", *, may_null: bool = True) -> ColumnAbstract:
        """Nothing known (floats may be NaN of either sign)."""
        nan = kind in ("float", "any")
        return cls(kind, None, None, True, may_null, nan, nan)

    @classmethod
    def of_range(cls, lo: Bound, hi: Bound, *, may_null: bool = False,
                 may_pos_nan: bool = False, may_neg_nan: bool = False) -> ColumnAbstract:
        """Numbers within [lo, hi], plus what the flags allow."""
        kind: ValueKind = "float" if isinstance(lo, float) or isinstance(hi, float) else \
            "bytes" if isinstance(lo, bytes) or isinstance(hi, bytes) else "int"
        return cls(kind, lo, hi, True, may_null, may_pos_nan, may_neg_nan)

    @classmethod
    def only_null(cls, kind: ValueKind = "any") -> ColumnAbstract:
        """Every value is null."""
        return cls(kind, None, None, False, True, False, False)

    @classmethod
    def only_nan(cls, *, pos: bool = True, neg: bool = True,
                 may_null: bool = False) -> ColumnAbstract:
        """Every non-null value is NaN (of the allowed signs)."""
        return cls("float", None, None, False, may_null, pos, neg)

    @property
    def may_nan(self) -> bool:
        """Whether a NaN of either sign may occur."""
        return self.may_pos_nan or self.may_neg_nan

    def __repr__(self) -> str:
        def fmt(b: Bound, open_: str) -> str:
            return open_ if b is None else repr(b)

        flags = [name for name, on in (("value", self.may_value), ("null", self.may_null),
                                        ("+nan", self.may_pos_nan), ("-nan", self.may_neg_nan))
                 if on]
        rng = f"[{fmt(self.lo, '-')}, {fmt(self.hi, '+')}]" if self.may_value else "no numbers"
        return f"ColumnAbstract({self.kind}: {rng}, {', '.join(flags) or 'empty'})"


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


def _band(cls: str, semantics: NanSemantics) -> int:
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
            elif semantics == "ieee":
                out.add("un")
            else:
                ba, bb = _band(ca, semantics), _band(cb, semantics)
                if ba != bb:
                    out.add("lt" if ba < bb else "gt")
                elif semantics == "total_order":
                    out |= {"lt", "eq", "gt"}  # payloads unknown
                else:
                    out.add("eq")  # all NaNs are equal
    return out


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
    if isinstance(e, Lit) and isinstance(e.value, int | float) and not isinstance(e.value, bool):
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


def value(e: Expr, env: dict[str, ColumnAbstract]) -> ColumnAbstract:
    """The abstraction of a value expression over one scope."""
    if isinstance(e, Col):
        try:
            return env[e.name]
        except KeyError:
            raise KeyError(f"no statistics given for column {e.name!r}") from None
    if isinstance(e, Lit):
        out = _literal(e.value)
        if out is None:
            raise TypeError(f"{e!r} is a truth value, not a value")
        return out
    if isinstance(e, Neg):
        a = _as_float(value(e.operand, env))
        if a.kind not in ("float", "any"):
            raise TypeError(f"cannot negate {a.kind} values in {e!r}")
        # a.kind is "float" or "any" here: bounds, when present, are floats.
        lo = None if a.hi is None else -float(a.hi)
        hi = None if a.lo is None else -float(a.lo)
        return ColumnAbstract("float", lo, hi, a.may_value, a.may_null,
                              a.may_neg_nan, a.may_pos_nan)
    if isinstance(e, Arith):
        left, right = value(e.left, env), value(e.right, env)
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
    raise TypeError(f"{e!r} is a predicate, not a value")


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


def truth(e: Expr, env: dict[str, ColumnAbstract], semantics: NanSemantics) -> TruthSet:
    """Every truth value a predicate may take on some row of the scope.

    An empty set means the scope has no rows.
    """
    if isinstance(e, Compare):
        a, b = value(e.left, env), value(e.right, env)
        if e.left.same_as(e.right):
            # One row, one value: a number equals itself, a NaN is unordered
            # with itself under IEEE 754 and equal to itself elsewhere.
            nan_rel: Relation = "un" if semantics == "ieee" else "eq"
            rels: set[Relation] = set()
            if a.may_value:
                rels.add("eq")
            if a.may_nan:
                rels.add(nan_rel)
        else:
            rels = relations(a, b, semantics)
        out: set[Truth] = {r in TRUE_UNDER[e.op] for r in rels}
        nonnull_a = a.may_value or a.may_nan
        nonnull_b = b.may_value or b.may_nan
        if (a.may_null and (nonnull_b or b.may_null)) or (b.may_null and nonnull_a):
            out.add(None)
        return frozenset(out)
    if isinstance(e, IsNan):
        a = value(e.operand, env)
        return frozenset({True} if a.may_nan else set()) | \
            frozenset({False} if a.may_value or a.may_null else set())
    if isinstance(e, IsNull):
        a = value(e.operand, env)
        return frozenset({True} if a.may_null else set()) | \
            frozenset({False} if a.may_value or a.may_nan else set())
    if isinstance(e, And | Or):
        left, right = truth(e.left, env, semantics), truth(e.right, env, semantics)
        if not left or not right:
            return frozenset()
        op = _and if isinstance(e, And) else _or
        return frozenset(op(x, y) for x in left for y in right)
    if isinstance(e, Not):
        return frozenset(None if t is None else not t for t in truth(e.operand, env, semantics))
    if isinstance(e, Lit) and isinstance(e.value, bool):
        return frozenset({e.value}) if env_has_rows(env) else frozenset()
    raise TypeError(f"{e!r} is a value, not a predicate")


def env_has_rows(env: dict[str, ColumnAbstract]) -> bool:
    """False when some column of the scope can hold no row at all (an empty scope)."""
    return all(a.may_value or a.may_null or a.may_nan for a in env.values())


def may_match(e: Expr, env: dict[str, ColumnAbstract], semantics: NanSemantics) -> bool:
    """Whether some row of the scope may satisfy the predicate (keep the scope).

    >>> from nanstats.prune.expressions import col
    >>> may_match(col("x") == 0.0, {"x": ColumnAbstract.of_range(-0.0, -0.0)}, "total_order")
    False
    >>> may_match(col("x") == 0.0, {"x": ColumnAbstract.of_range(-0.0, -0.0)}, "ieee")
    True
    """
    return True in truth(e, env, semantics)
