"""Exact, row-by-row evaluation of a predicate under a NaN semantics (vectorised).

This is what a reader applies to the rows it did not skip, so that a pruned
read returns exactly the rows an engine with those semantics would.

>>> import pyarrow as pa
>>> from nanstats.prune.expressions import col
>>> t = pa.table({"x": [1.0, float("nan"), None, -0.0]})
>>> filter_mask(col("x") > 0.5, t, "nan_greatest").tolist()
[True, True, False, False]
>>> filter_mask(col("x") > 0.5, t, "ieee").tolist()
[True, False, False, False]
>>> filter_mask(col("x") < 0.0, t, "total_order").tolist()
[False, False, False, True]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from nanstats.core.floats import DOUBLE
from nanstats.prune import expressions as ex
from nanstats.prune.binding import arrow_widths, bind
from nanstats.prune.expressions import Expr
from nanstats.prune.profiles import EngineProfile, profile
from nanstats.prune.semantics import TRUE_UNDER, NanSemantics
from nanstats.prune.visitor import ExprVisitor

Bools = npt.NDArray[np.bool_]


class _Values:
    """A column or computed value: data, null mask and kind ('float', 'int', 'str')."""

    def __init__(self, kind: str, data: Any, null: Bools) -> None:
        self.kind, self.data, self.null = kind, data, null


def _column(table: Any, name: str) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    names = table.column_names
    if name in names:
        arr = table.column(name)
    else:
        head, _, rest = name.partition(".")
        if head not in names or not rest:
            raise KeyError(f"no column {name!r} (columns: {', '.join(names)})")
        arr = table.column(head)
        for field in rest.split("."):
            arr = pc.struct_field(arr, field)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    return arr


def _load(table: Any, name: str) -> _Values:
    import pyarrow as pa

    arr = _column(table, name)
    if pa.types.is_dictionary(arr.type):  # read_dictionary=..., or a categorical
        arr = arr.dictionary_decode()
    t = arr.type
    null = np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool) \
        if arr.null_count else np.zeros(len(arr), dtype=bool) \
        if arr.null_count else np.zeros(len(arr), dtype=bool)
    if pa.types.is_floating(t):
        # Null slots come out as NaN; they are masked by ``null`` anyway.
        with np.errstate(invalid="ignore"):  # signalling NaNs become quiet, signs kept
            data = np.asarray(arr.to_numpy(zero_copy_only=False)).astype(np.float64,
                                                                        copy=False)
        return _Values("float", data, null)
    if pa.types.is_integer(t):
        filled = arr.fill_null(0) if arr.null_count else arr
        return _Values("int", np.asarray(filled.to_numpy(zero_copy_only=False)), null)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        filled = arr.fill_null("") if arr.null_count else arr
        return _Values("str", np.asarray(filled.to_numpy(zero_copy_only=False), dtype=object),
                       null)
    raise TypeError(f"column {name!r} has type {t}; predicates compare float, integer and "
                    "string columns")


class _ValueOf(ExprVisitor[_Values]):
    """A value expression over every row; a predicate is not a value."""

    __slots__ = ("n", "nan_is_missing", "table")

    def __init__(self, table: Any, n: int, nan_is_missing: bool = False) -> None:
        self.table, self.n, self.nan_is_missing = table, n, nan_is_missing

    def visit_col(self, e: ex.Col) -> _Values:
        out = _load(self.table, e.name)
        if self.nan_is_missing and out.null.any():
            if out.kind != "float":
                raise TypeError(f"column {e.name!r}: with NaN as missing, only float columns "
                                "may hold nulls")
            data = out.data.copy()
            data[out.null] = np.nan  # a null is a NaN
            return _Values("float", data, np.zeros(self.n, dtype=bool))
        return out

    def visit_lit(self, e: ex.Lit) -> _Values:
        v, n = e.value, self.n
        no_null = np.zeros(n, dtype=bool)
        if isinstance(v, bool):
            raise TypeError(f"{e!r} is a truth value, not a value")
        if isinstance(v, float):  # a scalar: numpy broadcasts it against the columns
            return _Values("float", np.float64(v), no_null)
        if isinstance(v, int):
            return _Values("int", np.int64(v) if abs(v) < 2**63 else np.full(n, v, dtype=object),
                           no_null)
        s = v.decode("utf-8") if isinstance(v, bytes) else v
        return _Values("str", np.full(n, s, dtype=object), no_null)

    def visit_neg(self, e: ex.Neg) -> _Values:
        a = self.visit(e.operand)
        if a.kind == "str":
            raise TypeError(f"cannot negate strings in {e!r}")
        return _Values("float", -np.asarray(a.data, dtype=np.float64), a.null)

    def visit_arith(self, e: ex.Arith) -> _Values:
        a, b = self.visit(e.left), self.visit(e.right)
        if "str" in (a.kind, b.kind):
            raise TypeError(f"arithmetic on strings in {e!r}")
        x, y = np.asarray(a.data, dtype=np.float64), np.asarray(b.data, dtype=np.float64)
        with np.errstate(all="ignore"):
            data = {"+": np.add, "-": np.subtract, "*": np.multiply,
                    "/": np.divide}[e.op](x, y)
        # IEEE 754 leaves the sign and payload of an arithmetic NaN open (and
        # SIMD and scalar code differ): make it the canonical +NaN.
        data = np.where(np.isnan(data), np.nan, data)  # (of two literals: a 0-d array)
        return _Values("float", data, a.null | b.null)

    def _predicate(self, e: Expr) -> _Values:
        raise TypeError(f"{e!r} is a predicate, not a value")

    visit_compare = visit_in = visit_is_nan = visit_is_null = _predicate
    visit_and = visit_or = visit_not = _predicate


def _keys(x: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    return DOUBLE.bits_to_keys(np.ascontiguousarray(x, dtype=np.float64).view(np.uint64))


def _nan(v: Any) -> Any:
    """NaN flags of a value: an array for a column, a bool for a literal (a scalar)."""
    return bool(np.isnan(v)) if np.ndim(v) == 0 else np.isnan(v)


def _with(base: Any, *terms: Any) -> Any:
    """``base | term | ...``, where a term may be a constant bool (False adds nothing)."""
    for t in terms:
        if t is False:
            continue
        base = np.logical_or(base, t)
    return base


def _both(a: Any, b: Any) -> Any:
    """``a & b`` for flags that may be constant bools."""
    if a is False or b is False:
        return False
    if a is True:
        return b
    if b is True:
        return a
    return a & b


def _no(a: Any) -> Any:
    return (not a) if isinstance(a, bool) else ~a


def _relations(a: _Values, b: _Values, semantics: NanSemantics,
               wanted: frozenset[str] = frozenset({"lt", "eq", "gt", "un"})) -> dict[str, Any]:
    """The relations of ``wanted`` ('lt', 'eq', 'gt', 'un') between two values, row by row
    (a literal is a scalar: numpy broadcasts it)."""
    if (a.kind == "str") != (b.kind == "str"):
        raise TypeError(f"cannot compare {a.kind} values with {b.kind} values")
    if a.kind == "str" or (a.kind == "int" and b.kind == "int"):
        x, y = a.data, b.data
        lt, eq = np.asarray(x < y, dtype=bool), np.asarray(x == y, dtype=bool)
        return {"lt": lt, "eq": eq, "gt": ~lt & ~eq, "un": np.zeros(lt.shape, dtype=bool)}
    x, y = np.asarray(a.data, dtype=np.float64), np.asarray(b.data, dtype=np.float64)
    if semantics == "total_order":
        kx, ky = _keys(x), _keys(y)
        lt, eq = kx < ky, kx == ky
        return {"lt": lt, "eq": eq, "gt": ~lt & ~eq, "un": np.zeros(lt.shape, dtype=bool)}
    out: dict[str, Any] = {}
    # IEEE comparisons are false wherever a NaN is; each semantics adds its NaN rows.
    nan: dict[str, Any] = {}

    def isnan(which: str) -> Any:
        if which not in nan:
            nan[which] = _nan(x if which == "x" else y)
        return nan[which]

    with np.errstate(invalid="ignore"):
        if "lt" in wanted:
            out["lt"] = x < y
        if "gt" in wanted:
            out["gt"] = x > y
        if "eq" in wanted:
            out["eq"] = x == y
    if semantics == "ieee":
        if "un" in wanted:
            out["un"] = _with(np.zeros(np.broadcast(x, y).shape, dtype=bool),
                              isnan("x"), isnan("y"))
        return out
    if "un" in wanted:
        out["un"] = np.zeros(np.broadcast(x, y).shape, dtype=bool)
    # (the flags of a literal first: a literal number rules a term out unread)
    if "eq" in wanted and isnan("y") is not False:
        out["eq"] = _with(out["eq"], _both(isnan("y"), isnan("x")))
    low, high = ("lt", "gt") if semantics == "nan_greatest" else ("gt", "lt")
    if low in wanted and isnan("y") is not False:
        # a number against a NaN: below it (NaN greatest) or above it (NaN least)
        out[low] = _with(out[low], _both(isnan("y"), _no(isnan("x"))))
    if high in wanted and isnan("x") is not False:
        out[high] = _with(out[high], _both(_no(isnan("y")), isnan("x")))
    return out


Masks = tuple[Bools, Bools]


class _TruthOf(ExprVisitor[Masks]):
    """(value, null) masks of a predicate; value is meaningless where null."""

    __slots__ = ("n", "profile", "semantics", "values")

    def __init__(self, table: Any, n: int, prof: EngineProfile) -> None:
        self.n, self.profile, self.semantics = n, prof, prof.order
        self.values = _ValueOf(table, n, prof.nan_is_missing)

    def visit_compare(self, e: ex.Compare) -> Masks:
        a, b = self.values.visit(e.left), self.values.visit(e.right)
        wanted = TRUE_UNDER[e.op]
        rels = _relations(a, b, self.semantics, wanted)
        val: Any = None
        for r in wanted:
            val = rels[r] if val is None else val | rels[r]
        if np.ndim(val) == 0:  # two literals compare to one value
            val = np.full(self.n, bool(val))
        return val, a.null | b.null

    def visit_in(self, e: ex.In) -> Masks:
        a = self.values.visit(e.operand)
        val = np.zeros(self.n, dtype=bool)
        for v in e.values:
            val |= _relations(a, self.values.visit(v), self.profile.membership_order,
                              frozenset({"eq"}))["eq"]
        if self.profile.null_in is None:
            return val, a.null.copy()
        return val & ~a.null, np.zeros(self.n, dtype=bool)

    def _nan(self, a: _Values) -> Bools:
        return np.isnan(a.data) if a.kind == "float" else np.zeros(self.n, dtype=bool)

    def visit_is_nan(self, e: ex.IsNan) -> Masks:
        a = self.values.visit(e.operand)
        null = a.null.copy() if self.profile.is_nan_null == "null" else \
            np.zeros(self.n, dtype=bool)
        return self._nan(a) & ~a.null, null

    def visit_is_null(self, e: ex.IsNull) -> Masks:
        a = self.values.visit(e.operand)
        if self.profile.nan_is_missing:  # isna
            return self._nan(a) | a.null, np.zeros(self.n, dtype=bool)
        return a.null.copy(), np.zeros(self.n, dtype=bool)

    def visit_and(self, e: ex.And) -> Masks:
        (av, an), (bv, bn) = self.visit(e.left), self.visit(e.right)
        if not an.any() and not bn.any():  # no nulls: two-valued logic
            return av & bv, an
        false = (~an & ~av) | (~bn & ~bv)
        null = ~false & (an | bn)
        return ~false & ~null, null

    def visit_or(self, e: ex.Or) -> Masks:
        (av, an), (bv, bn) = self.visit(e.left), self.visit(e.right)
        if not an.any() and not bn.any():  # no nulls: two-valued logic
            return av | bv, an
        true = (~an & av) | (~bn & bv)
        null = ~true & (an | bn)
        return true, null

    def visit_not(self, e: ex.Not) -> Masks:
        v, null = self.visit(e.operand)
        return ~v, null

    def visit_lit(self, e: ex.Lit) -> Masks:
        if isinstance(e.value, bool):
            return np.full(self.n, e.value, dtype=bool), np.zeros(self.n, dtype=bool)
        return self._value(e)

    def _value(self, e: Expr) -> Masks:
        raise TypeError(f"{e!r} is a value, not a predicate")

    visit_col = visit_arith = visit_neg = _value


def filter_mask(predicate: Expr, table: Any,
                semantics: str | EngineProfile = "nan_greatest") -> Bools:
    """True for each row of an Arrow table where the predicate is true (not false, not null).

    ``semantics`` is an engine profile or its name
    (:mod:`nanstats.prune.profiles`).  Literals are first typed against the
    table's float16/float32 columns as the profile says
    (:func:`nanstats.prune.binding.bind`); then floats are compared (and
    computed with) in double precision, and integers compared with doubles
    are converted to doubles.

    >>> import numpy as np, pyarrow as pa
    >>> from nanstats.prune.expressions import col
    >>> t = pa.table({"b": np.array([1.1, 2.0], dtype=np.float32)})
    >>> filter_mask(col("b") == 1.1, t, "duckdb").tolist(), filter_mask(col("b") == 1.1, t, "spark").tolist()
    ([True, False], [False, False])
    """
    prof = profile(semantics)
    predicate = bind(predicate, arrow_widths(table.schema), prof)
    val, null = _TruthOf(table, table.num_rows, prof).visit(predicate)
    return val & ~null
