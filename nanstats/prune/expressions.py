"""The predicate language: columns, literals, comparisons, logic, monotonic arithmetic.

Build predicates with Python operators, or parse them from text with
:func:`nanstats.prune.parser.parse`:

>>> from nanstats.prune.expressions import col, is_nan
>>> p = (col("x") * 2 > 3.0) & ~is_nan(col("y")) | col("z").isin([1, 2])
>>> p
((((x * 2) > 3.0) and (not is_nan(y))) or (z in (1, 2)))
>>> sorted(p.columns())
['x', 'y', 'z']

Expressions compare by their text (``same_as``); ``==`` builds a comparison.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from nanstats.core.floats import nan_sign
from nanstats.prune.semantics import Comparison, check_comparison

ArithOp = Literal["+", "-", "*", "/"]
Scalar = float | int | str | bytes | bool


class Expr:
    """Base of every expression node.

    Python operators build new expressions: ``< <= > >= == !=`` comparisons,
    ``+ - * /`` and unary ``-`` arithmetic, ``& | ~`` logic.
    """

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]  # == builds an expression

    def columns(self) -> set[str]:
        """Names of the columns the expression reads."""
        out: set[str] = set()
        for child in self.children():
            out |= child.columns()
        return out

    def children(self) -> tuple[Expr, ...]:
        """The direct sub-expressions."""
        return ()

    def same_as(self, other: object) -> bool:
        """Structural equality (same text)."""
        return isinstance(other, Expr) and repr(self) == repr(other)

    # comparisons
    def _cmp(self, op: Comparison, other: object) -> Compare:
        return Compare(op, self, as_expr(other))

    def __lt__(self, other: object) -> Compare:
        return self._cmp("<", other)

    def __le__(self, other: object) -> Compare:
        return self._cmp("<=", other)

    def __gt__(self, other: object) -> Compare:
        return self._cmp(">", other)

    def __ge__(self, other: object) -> Compare:
        return self._cmp(">=", other)

    def __eq__(self, other: object) -> Compare:  # type: ignore[override]
        return self._cmp("==", other)

    def __ne__(self, other: object) -> Compare:  # type: ignore[override]
        return self._cmp("!=", other)

    # arithmetic
    def __add__(self, other: object) -> Arith:
        return Arith("+", self, as_expr(other))

    def __radd__(self, other: object) -> Arith:
        return Arith("+", as_expr(other), self)

    def __sub__(self, other: object) -> Arith:
        return Arith("-", self, as_expr(other))

    def __rsub__(self, other: object) -> Arith:
        return Arith("-", as_expr(other), self)

    def __mul__(self, other: object) -> Arith:
        return Arith("*", self, as_expr(other))

    def __rmul__(self, other: object) -> Arith:
        return Arith("*", as_expr(other), self)

    def __truediv__(self, other: object) -> Arith:
        return Arith("/", self, as_expr(other))

    def __rtruediv__(self, other: object) -> Arith:
        return Arith("/", as_expr(other), self)

    def __neg__(self) -> Expr:
        if isinstance(self, Lit) and isinstance(self.value, float | int) \
                and not isinstance(self.value, bool):
            return Lit(-self.value)  # -nan is a negative NaN
        return Neg(self)

    # logic
    def __and__(self, other: object) -> And:
        return And(self, as_expr(other))

    def __rand__(self, other: object) -> And:
        return And(as_expr(other), self)

    def __or__(self, other: object) -> Or:
        return Or(self, as_expr(other))

    def __ror__(self, other: object) -> Or:
        return Or(as_expr(other), self)

    def __invert__(self) -> Not:
        return Not(self)

    def __bool__(self) -> bool:
        raise TypeError(
            "a nanstats expression has no truth value; combine predicates with & | ~ "
            "(not 'and', 'or', 'not'), and compare expressions with same_as()"
        )

    # helpers that read like the rest of the language
    def between(self, low: object, high: object) -> And:
        """``low <= self <= high`` (both ends included)."""
        return And(Compare(">=", self, as_expr(low)), Compare("<=", self, as_expr(high)))

    def isin(self, values: Iterable[object]) -> Expr:
        """``self in (values)``: membership, as the engine's profile defines it.

        An OR of ``==`` in SQL engines; a hash lookup in others
        (:mod:`nanstats.prune.profiles`).  False for no values.
        """
        items = tuple(as_expr(v) for v in values)
        if not items:
            return Lit(False)
        for item in items:
            if not isinstance(item, Lit) or isinstance(item.value, bool):
                raise TypeError(f"an in list holds literal values, not {item!r}")
        return In(self, items)  # type: ignore[arg-type]

    def is_nan(self) -> IsNan:
        """True for a NaN of either sign, false for a number or a null."""
        return IsNan(self)

    def is_null(self) -> IsNull:
        """True for a null, never null itself."""
        return IsNull(self)


def _format_literal(v: Scalar) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "-nan" if nan_sign(v) < 0 else "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, bytes):
        return "b" + repr(v)[1:]
    if isinstance(v, str):
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return repr(v)


@dataclass(frozen=True, eq=False, repr=False)
class Col(Expr):
    """A column, by name (a dotted path for a field of a struct)."""

    name: str

    def columns(self) -> set[str]:
        return {self.name}

    def __repr__(self) -> str:
        simple = self.name.replace(".", "").replace("_", "").isalnum() and \
            not self.name[:1].isdigit()
        return self.name if simple and self.name.lower() not in _KEYWORDS else f"`{self.name}`"


@dataclass(frozen=True, eq=False, repr=False)
class Lit(Expr):
    """A constant: a float (NaN of either sign included), int, string, bytes or bool."""

    value: Scalar

    def __repr__(self) -> str:
        return _format_literal(self.value)


@dataclass(frozen=True, eq=False, repr=False)
class Compare(Expr):
    """``left op right``: true, false or null (when either side is null)."""

    op: Comparison
    left: Expr
    right: Expr

    def __post_init__(self) -> None:
        check_comparison(self.op)

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)

    def __repr__(self) -> str:
        return f"({self.left!r} {self.op} {self.right!r})"


@dataclass(frozen=True, eq=False, repr=False)
class In(Expr):
    """``operand in (values)``: membership in a list of literals.

    What matches (an OR of ``==``, or identical bits) and what a null gives
    depend on the engine's profile (:mod:`nanstats.prune.profiles`).
    """

    operand: Expr
    values: tuple[Lit, ...]

    def children(self) -> tuple[Expr, ...]:
        return (self.operand, *self.values)

    def as_equalities(self) -> Expr:
        """The same membership as an OR of ``==`` (what SQL's IN means)."""
        out: Expr = Compare("==", self.operand, self.values[0])
        for v in self.values[1:]:
            out = Or(out, Compare("==", self.operand, v))
        return out

    def __repr__(self) -> str:
        return f"({self.operand!r} in ({', '.join(map(repr, self.values))}))"


@dataclass(frozen=True, eq=False, repr=False)
class Arith(Expr):
    """``left op right`` in double precision: monotonic when one side is a constant.

    A NaN result is the canonical +NaN (IEEE 754 leaves its sign and payload
    open; statistics assume either).
    """

    op: ArithOp
    left: Expr
    right: Expr

    def __post_init__(self) -> None:
        if self.op not in ("+", "-", "*", "/"):
            raise ValueError(f"arithmetic operator must be + - * /, not {self.op!r}")

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)

    def __repr__(self) -> str:
        return f"({self.left!r} {self.op} {self.right!r})"


@dataclass(frozen=True, eq=False, repr=False)
class Neg(Expr):
    """``-operand`` (flips the sign bit, NaN's included)."""

    operand: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)

    def __repr__(self) -> str:
        return f"(-{self.operand!r})"


@dataclass(frozen=True, eq=False, repr=False)
class IsNan(Expr):
    """True for NaN (either sign), false for numbers and for null (as Spark's isnan)."""

    operand: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)

    def __repr__(self) -> str:
        return f"is_nan({self.operand!r})"


@dataclass(frozen=True, eq=False, repr=False)
class IsNull(Expr):
    """True for null, false otherwise."""

    operand: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)

    def __repr__(self) -> str:
        return f"is_null({self.operand!r})"


@dataclass(frozen=True, eq=False, repr=False)
class And(Expr):
    """Three-valued AND."""

    left: Expr
    right: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)

    def __repr__(self) -> str:
        return f"({self.left!r} and {self.right!r})"


@dataclass(frozen=True, eq=False, repr=False)
class Or(Expr):
    """Three-valued OR."""

    left: Expr
    right: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)

    def __repr__(self) -> str:
        return f"({self.left!r} or {self.right!r})"


@dataclass(frozen=True, eq=False, repr=False)
class Not(Expr):
    """Three-valued NOT (null stays null)."""

    operand: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)

    def __repr__(self) -> str:
        return f"(not {self.operand!r})"


_KEYWORDS = {"and", "or", "not", "in", "between", "is", "null", "true", "false", "nan", "inf"}


def as_expr(value: object) -> Expr:
    """An expression as is; a Python scalar as a literal.

    >>> as_expr(1.5), as_expr(float("-nan"))
    (1.5, -nan)
    """
    if isinstance(value, Expr):
        return value
    if isinstance(value, bool | int | float | str | bytes):
        return Lit(value)
    try:
        import numpy as np

        if isinstance(value, np.generic) and value.dtype.kind in "fiub":
            return Lit(value.item())
    except ImportError:  # pragma: no cover
        pass
    raise TypeError(f"cannot use {type(value).__name__} {value!r} in a predicate")


def col(name: str) -> Col:
    """A column of the data, by name (``"s.x"`` for field x of struct s).

    >>> col("price") >= 10
    (price >= 10)
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"a column name must be a non-empty string, not {name!r}")
    return Col(name)


def lit(value: Any) -> Lit:
    """A constant.

    >>> lit(float("nan")) == col("x")
    (nan == x)
    """
    out = as_expr(value)
    if not isinstance(out, Lit):
        raise TypeError(f"lit() takes a scalar, not an expression: {value!r}")
    return out


def is_nan(operand: object) -> IsNan:
    """``is_nan(x)``: true for a NaN of either sign, false for numbers and nulls.

    >>> is_nan(col("x")), is_nan("y")
    (is_nan(x), is_nan(y))
    """
    operand = col(operand) if isinstance(operand, str) else operand
    return IsNan(as_expr(operand))


def is_null(operand: object) -> IsNull:
    """``is_null(x)``: true for a null.

    >>> ~is_null("x")
    (not is_null(x))
    """
    operand = col(operand) if isinstance(operand, str) else operand
    return IsNull(as_expr(operand))
