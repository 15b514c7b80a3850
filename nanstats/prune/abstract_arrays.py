"""Abstract interpretation over many scopes at once: :func:`~nanstats.prune.abstract.truth` on arrays.

The planner judges every segment of a row group (a run of rows in which
each column lies in one page); one :func:`~nanstats.prune.abstract.truth`
call per segment costs tens of microseconds of Python, and a query over an
index of 25,000 pages makes thousands.  Here each column's abstraction is a
set of arrays, one element per scope (:class:`AbstractArrays`: bounds, and
whether a number, a null, a +NaN or a -NaN may occur), and the predicate is
evaluated node by node over those arrays with numpy: the same rules as
:mod:`nanstats.prune.abstract`, written for arrays.  Truth sets become three
boolean arrays (may be true, false, null).

Float columns (and scopes about which nothing is known) are evaluated here;
anything else (integer or byte-string bounds, a literal of another kind) is
:class:`Unsupported`, and the caller falls back to the per-scope path.  The
verdicts are those of ``truth``: ``tests/prune/test_abstract_arrays.py``
compares them on random predicates and pages.

>>> from nanstats.core.abstraction import ColumnAbstract
>>> from nanstats.prune.expressions import col, is_nan
>>> pages = [ColumnAbstract.of_range(1.0, 5.0), ColumnAbstract.of_range(6.0, 9.0),
...          ColumnAbstract.only_nan(neg=False)]
>>> env = {"x": AbstractArrays.of(pages)}
>>> may_be_true(col("x") > 5.5, env, "nan_greatest").tolist()
[False, True, True]
>>> may_be_true(col("x") > 5.5, env, "ieee").tolist()
[False, True, False]
>>> may_be_true(~is_nan(col("x")) & (col("x") * 2 < 4.0), env, "spark").tolist()
[True, False, False]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from nanstats.core.abstraction import ColumnAbstract
from nanstats.core.floats import DOUBLE, nan_sign
from nanstats.prune import expressions as ex
from nanstats.prune.abstract import class_relations
from nanstats.prune.expressions import Expr
from nanstats.prune.profiles import EngineProfile, profile
from nanstats.prune.semantics import TRUE_UNDER, NanSemantics, Relation
from nanstats.prune.visitor import ExprVisitor

__all__ = ["AbstractArrays", "Unsupported", "may_be_true"]

Bools = npt.NDArray[np.bool_]
Floats = npt.NDArray[np.float64]

_RELATIONS: tuple[Relation, ...] = ("lt", "eq", "gt", "un")


class Unsupported(Exception):  # noqa: N818 - a signal to fall back, not an error to report
    """The predicate or a column's abstractions are outside what the arrays express."""


@dataclass(frozen=True)
class AbstractArrays:
    """What may occur in one column (or value expression) over ``n`` scopes.

    ``lo``/``hi`` bound the non-NaN values (float64); where ``lo_known`` /
    ``hi_known`` is False that end is open (the bound means nothing there).

    >>> a = AbstractArrays.of([ColumnAbstract.of_range(-0.0, 2.0, may_null=True),
    ...                        ColumnAbstract.anything("float")])
    >>> a.lo.tolist(), a.lo_known.tolist(), a.may_null.tolist(), a.may_neg_nan.tolist()
    ([-0.0, 0.0], [True, False], [True, True], [False, True])
    """

    lo: Floats
    hi: Floats
    lo_known: Bools
    hi_known: Bools
    may_value: Bools
    may_null: Bools
    may_pos_nan: Bools
    may_neg_nan: Bools

    @classmethod
    def of(cls, abstracts: Sequence[ColumnAbstract]) -> AbstractArrays:
        """The arrays of a sequence of float (or unknown) abstractions; Unsupported for others."""
        n = len(abstracts)
        lo, hi = np.zeros(n), np.zeros(n)
        flags = np.zeros((6, n), dtype=np.bool_)
        for i, a in enumerate(abstracts):
            if a.kind not in ("float", "any"):
                raise Unsupported(f"{a.kind} bounds")
            if a.lo is not None:
                if not isinstance(a.lo, float):
                    raise Unsupported(f"a {type(a.lo).__name__} bound")
                lo[i] = a.lo
                flags[0, i] = True
            if a.hi is not None:
                if not isinstance(a.hi, float):
                    raise Unsupported(f"a {type(a.hi).__name__} bound")
                hi[i] = a.hi
                flags[1, i] = True
            flags[2, i] = a.may_value
            flags[3, i] = a.may_null
            flags[4, i] = a.may_pos_nan
            flags[5, i] = a.may_neg_nan
        return cls(lo, hi, *flags)

    @classmethod
    def constant(cls, a: ColumnAbstract, n: int) -> AbstractArrays:
        """One abstraction repeated over ``n`` scopes."""
        one = cls.of([a])
        return cls(*(np.broadcast_to(getattr(one, f), (n,)) for f in _FIELDS))

    @classmethod
    def concat(cls, parts: Sequence[AbstractArrays]) -> AbstractArrays:
        """The scopes of ``parts``, one after another."""
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in _FIELDS))

    def take(self, index: npt.NDArray[np.intp]) -> AbstractArrays:
        """The scopes at ``index`` (numpy fancy indexing)."""
        return AbstractArrays(*(getattr(self, f)[index] for f in _FIELDS))

    def __len__(self) -> int:
        return len(self.lo)

    @property
    def may_nan(self) -> Bools:
        """Where a NaN of either sign may occur."""
        return self.may_pos_nan | self.may_neg_nan


_FIELDS = ("lo", "hi", "lo_known", "hi_known", "may_value", "may_null", "may_pos_nan",
           "may_neg_nan")


@dataclass(frozen=True)
class _Truths:
    """The truth values a predicate may take, per scope."""

    true: Bools
    false: Bools
    null: Bools

    @property
    def any(self) -> Bools:
        return self.true | self.false | self.null


def _less(a: Floats, b: Floats, total: bool) -> Bools:
    """a < b elementwise; in totalOrder (zeros distinct) when ``total``."""
    if total:  # the float64 arrays' totalOrder keys (core.floats, the one home)
        return DOUBLE.bits_to_keys(a.view(np.uint64)) < DOUBLE.bits_to_keys(b.view(np.uint64))
    return a < b


def _classes(x: AbstractArrays) -> dict[str, Bools]:
    return {"value": x.may_value, "+nan": x.may_pos_nan, "-nan": x.may_neg_nan}


def relations(a: AbstractArrays, b: AbstractArrays, semantics: NanSemantics
              ) -> dict[Relation, Bools]:
    """Per scope, whether each relation may hold between non-null values drawn from a and b."""
    n = len(a)
    out: dict[Relation, Bools] = {r: np.zeros(n, dtype=np.bool_) for r in _RELATIONS}
    total = semantics == "total_order"
    for ca, ma in _classes(a).items():
        for cb, mb in _classes(b).items():
            both = ma & mb
            if ca == "value" and cb == "value":
                open_lt = ~a.lo_known | ~b.hi_known
                open_gt = ~b.lo_known | ~a.hi_known
                out["lt"] |= both & (open_lt | _less(a.lo, b.hi, total))
                out["gt"] |= both & (open_gt | _less(b.lo, a.hi, total))
                out["eq"] |= both & (open_gt | ~_less(a.hi, b.lo, total)) \
                    & (open_lt | ~_less(b.hi, a.lo, total))
            else:
                for r in class_relations(ca, cb, semantics):
                    out[r] |= both
    return out


def _literal(value: object) -> ColumnAbstract:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Unsupported(f"a literal {value!r}")
    if isinstance(value, int):
        value = float(value)  # compared with a float column, as _as_float does
    if math.isnan(value):
        pos = nan_sign(value) > 0
        return ColumnAbstract.only_nan(pos=pos, neg=not pos)
    return ColumnAbstract("float", value, value, True, False, False, False)


def _constant(e: Expr) -> float | None:
    if isinstance(e, ex.Lit) and isinstance(e.value, int | float) and not isinstance(e.value, bool):
        v = float(e.value)
        return v if math.isfinite(v) else None
    return None


class _ValueOf(ExprVisitor[AbstractArrays]):
    __slots__ = ("env", "n", "nan_is_missing")

    def __init__(self, env: dict[str, AbstractArrays], n: int, nan_is_missing: bool) -> None:
        self.env, self.n, self.nan_is_missing = env, n, nan_is_missing

    def visit_col(self, e: ex.Col) -> AbstractArrays:
        try:
            a = self.env[e.name]
        except KeyError:
            raise Unsupported(f"no arrays for column {e.name!r}") from None
        if self.nan_is_missing:
            nulls = a.may_null
            return AbstractArrays(a.lo, a.hi, a.lo_known, a.hi_known, a.may_value,
                                  np.zeros_like(nulls), a.may_pos_nan | nulls,
                                  a.may_neg_nan | nulls)
        return a

    def visit_lit(self, e: ex.Lit) -> AbstractArrays:
        return AbstractArrays.constant(_literal(e.value), self.n)

    def visit_neg(self, e: ex.Neg) -> AbstractArrays:
        a = self.visit(e.operand)
        return AbstractArrays(-a.hi, -a.lo, a.hi_known, a.lo_known, a.may_value, a.may_null,
                              a.may_neg_nan, a.may_pos_nan)

    def visit_arith(self, e: ex.Arith) -> AbstractArrays:
        left, right = self.visit(e.left), self.visit(e.right)
        c_right, c_left = _constant(e.right), _constant(e.left)
        with np.errstate(all="ignore"):
            if c_right is not None:
                c = c_right
                if e.op == "+":
                    return _map(left, left.lo + c, left.hi + c, True)
                if e.op == "-":
                    return _map(left, left.lo - c, left.hi - c, True)
                if e.op == "*" and c != 0:
                    return _map(left, left.lo * c, left.hi * c, c > 0)
                if e.op == "/" and c != 0:
                    return _map(left, left.lo / c, left.hi / c, c > 0)
            elif c_left is not None:
                c = c_left
                if e.op == "+":
                    return _map(right, c + right.lo, c + right.hi, True)
                if e.op == "-":
                    return _map(right, c - right.lo, c - right.hi, False)
                if e.op == "*" and c != 0:
                    return _map(right, c * right.lo, c * right.hi, c > 0)
        may_null = left.may_null | right.may_null
        anything = AbstractArrays.constant(ColumnAbstract.anything("float"), self.n)
        return AbstractArrays(anything.lo, anything.hi, anything.lo_known, anything.hi_known,
                              anything.may_value, may_null, anything.may_pos_nan,
                              anything.may_neg_nan)

    def _predicate(self, e: Expr) -> AbstractArrays:
        raise Unsupported(f"{e!r} is a predicate, not a value")

    visit_compare = visit_in = visit_is_nan = visit_is_null = _predicate
    visit_and = visit_or = visit_not = _predicate


def _map(a: AbstractArrays, lo: Floats, hi: Floats, increasing: bool) -> AbstractArrays:
    """A monotonic map's image (NaN signs become unknown), as ``abstract._map``."""
    nan = a.may_nan
    if increasing:
        return AbstractArrays(lo, hi, a.lo_known, a.hi_known, a.may_value, a.may_null, nan, nan)
    return AbstractArrays(hi, lo, a.hi_known, a.lo_known, a.may_value, a.may_null, nan, nan)


class _TruthOf(ExprVisitor[_Truths]):
    __slots__ = ("env", "n", "profile", "semantics", "values")

    def __init__(self, env: dict[str, AbstractArrays], n: int, prof: EngineProfile) -> None:
        self.env, self.n, self.profile, self.semantics = env, n, prof, prof.order
        self.values = _ValueOf(env, n, prof.nan_is_missing)

    def _none(self) -> Bools:
        return np.zeros(self.n, dtype=np.bool_)

    def visit_compare(self, e: ex.Compare) -> _Truths:
        a, b = self.values.visit(e.left), self.values.visit(e.right)
        if e.left.same_as(e.right):
            rels: dict[Relation, Bools] = {r: self._none() for r in _RELATIONS}
            rels["eq"] = rels["eq"] | a.may_value
            nan_rel: Relation = "un" if self.semantics == "ieee" else "eq"
            rels[nan_rel] = rels[nan_rel] | a.may_nan
        else:
            rels = relations(a, b, self.semantics)
        true, false = self._none(), self._none()
        for r, on in rels.items():
            if r in TRUE_UNDER[e.op]:
                true |= on
            else:
                false |= on
        nonnull_a = a.may_value | a.may_nan
        nonnull_b = b.may_value | b.may_nan
        null = (a.may_null & (nonnull_b | b.may_null)) | (b.may_null & nonnull_a)
        return _Truths(true, false, null)

    def visit_in(self, e: ex.In) -> _Truths:
        p = self.profile
        a = self.values.visit(e.operand)
        nonnull = AbstractArrays(a.lo, a.hi, a.lo_known, a.hi_known, a.may_value,
                                 self._none(), a.may_pos_nan, a.may_neg_nan)
        some = nonnull.may_value | nonnull.may_nan
        true, all_unequal = self._none(), some.copy()
        for v in e.values:
            rels = relations(nonnull, self.values.visit(v), p.membership_order)
            true |= rels["eq"]
            all_unequal &= rels["lt"] | rels["gt"] | rels["un"]
        true &= some
        false = all_unequal & some
        null = self._none()
        if p.null_in is None:
            null = a.may_null.copy()
        else:
            false = false | a.may_null
        return _Truths(true, false, null)

    def visit_is_nan(self, e: ex.IsNan) -> _Truths:
        a = self.values.visit(e.operand)
        if self.profile.is_nan_null == "null":
            return _Truths(a.may_nan.copy(), a.may_value.copy(), a.may_null.copy())
        return _Truths(a.may_nan.copy(), a.may_value | a.may_null, self._none())

    def visit_is_null(self, e: ex.IsNull) -> _Truths:
        a = self.values.visit(e.operand)
        if self.profile.nan_is_missing:
            return _Truths(a.may_nan | a.may_null, a.may_value.copy(), self._none())
        return _Truths(a.may_null.copy(), a.may_value | a.may_nan, self._none())

    def visit_and(self, e: ex.And) -> _Truths:
        a, b = self.visit(e.left), self.visit(e.right)
        a_any, b_any = a.any, b.any
        return _Truths(a.true & b.true,
                       (a.false & b_any) | (b.false & a_any),
                       (a.null & (b.true | b.null)) | (b.null & (a.true | a.null)))

    def visit_or(self, e: ex.Or) -> _Truths:
        a, b = self.visit(e.left), self.visit(e.right)
        a_any, b_any = a.any, b.any
        return _Truths((a.true & b_any) | (b.true & a_any),
                       a.false & b.false,
                       (a.null & (b.false | b.null)) | (b.null & (a.false | a.null)))

    def visit_not(self, e: ex.Not) -> _Truths:
        t = self.visit(e.operand)
        return _Truths(t.false, t.true, t.null)

    def visit_lit(self, e: ex.Lit) -> _Truths:
        if not isinstance(e.value, bool):
            raise Unsupported(f"{e!r} is a value, not a predicate")
        rows = np.ones(self.n, dtype=np.bool_)
        for a in self.env.values():
            rows &= a.may_value | a.may_null | a.may_nan
        none = self._none()
        return _Truths(rows, none, none) if e.value else _Truths(none, rows, none)

    def _value(self, e: Expr) -> _Truths:
        raise Unsupported(f"{e!r} is a value, not a predicate")

    visit_col = visit_arith = visit_neg = _value


def may_be_true(e: Expr, env: dict[str, AbstractArrays],
                semantics: str | EngineProfile) -> Bools:
    """Per scope, whether some row may satisfy the predicate (``True in truth(...)``).

    Every array of ``env`` has one element per scope; Unsupported when the
    predicate holds what the arrays do not express (see the module example).
    """
    lengths = {len(a) for a in env.values()}
    if len(lengths) > 1:
        raise ValueError(f"the columns' arrays differ in length: {sorted(lengths)}")
    n = lengths.pop() if lengths else 1
    return _TruthOf(env, n, profile(semantics)).visit(e).true
