"""nanstats predicates as Spark SQL expressions (for Spark's own scan of the same filter).

Spark compares doubles with NaN greatest and equal to itself, and -0.0 equal
to 0.0, types literals as double against float columns, gives false for
``isnan(NULL)`` and means an OR of ``=`` by ``IN``: the ``spark`` profile
(:mod:`nanstats.prune.profiles`).  The translation reads the profile it is
given: ``is_nan(null)`` as null becomes a CASE, literals typed at a column's
precision must be bound first (:func:`nanstats.prune.binding.bind`; they are
then exact doubles), and what Spark SQL cannot say (another NaN order, a
hash membership, NaN as missing) is refused.  Spark's division by zero is
NULL (or an error under ANSI mode) where nanstats computes IEEE 754
infinities, so predicates that divide by a column or by zero differ.

>>> from nanstats.prune.parser import parse
>>> to_spark_sql(parse("x > 1.5 and not is_nan(y) or z is null"))
'(((`x` > 1.5D) AND (NOT isnan(`y`))) OR (`z` IS NULL))'
>>> to_spark_sql(parse("x == -nan"))
"(`x` = (- CAST('NaN' AS DOUBLE)))"
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from nanstats.core.floats import nan_sign
from nanstats.prune import expressions as ex
from nanstats.prune.expressions import Expr
from nanstats.prune.profiles import EngineProfile, profile
from nanstats.prune.visitor import ExprVisitor

_OPS = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "=", "!=": "!="}


def _literal(v: object) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, float):
        if math.isnan(v):
            # Spark compares every NaN alike (nan_greatest): the sign only matters
            # to the bits it returns.
            return "(- CAST('NaN' AS DOUBLE))" if nan_sign(v) < 0 else \
                "CAST('NaN' AS DOUBLE)"
        if math.isinf(v):
            return "CAST('Infinity' AS DOUBLE)" if v > 0 else "CAST('-Infinity' AS DOUBLE)"
        return f"{v!r}D"
    if isinstance(v, int):
        return f"{v}L" if abs(v) >= 2**31 else str(v)
    if isinstance(v, bytes):
        v = v.decode("utf-8")
    if isinstance(v, str):
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    raise TypeError(f"cannot write {v!r} in Spark SQL")


class _SparkSql(ExprVisitor[str]):
    """The Spark SQL text of each node."""

    __slots__ = ("opaque", "profile")

    def __init__(self, prof: EngineProfile, opaque: frozenset[str] = frozenset()) -> None:
        self.profile = prof
        self.opaque = opaque

    def visit_col(self, e: ex.Col) -> str:
        name = ".".join(f"`{part}`" for part in e.name.split("."))
        # x + 0.0 is x for every comparison, isnan and IS NULL in Spark (-0.0 = 0.0
        # there), but it is not a column: Spark does not push it to the reader.
        return f"({name} + 0.0D)" if e.name in self.opaque else name

    def visit_lit(self, e: ex.Lit) -> str:
        return _literal(e.value)

    def visit_compare(self, e: ex.Compare) -> str:
        return f"({self.visit(e.left)} {_OPS[e.op]} {self.visit(e.right)})"

    def visit_in(self, e: ex.In) -> str:
        p = self.profile
        if p.membership != "equal":
            raise ValueError(f"Spark SQL's IN is an OR of =; it cannot evaluate membership "
                             f"under {p.name!r} ({p.membership})")
        return f"({self.visit(e.operand)} IN ({', '.join(self.visit(v) for v in e.values)}))"

    def visit_arith(self, e: ex.Arith) -> str:
        return f"({self.visit(e.left)} {e.op} {self.visit(e.right)})"

    def visit_neg(self, e: ex.Neg) -> str:
        return f"(- {self.visit(e.operand)})"

    def visit_is_nan(self, e: ex.IsNan) -> str:
        x = self.visit(e.operand)
        if self.profile.is_nan_null == "null":
            return f"(CASE WHEN {x} IS NULL THEN NULL ELSE isnan({x}) END)"
        return f"isnan({x})"

    def visit_is_null(self, e: ex.IsNull) -> str:
        return f"({self.visit(e.operand)} IS NULL)"

    def visit_and(self, e: ex.And) -> str:
        return f"({self.visit(e.left)} AND {self.visit(e.right)})"

    def visit_or(self, e: ex.Or) -> str:
        return f"({self.visit(e.left)} OR {self.visit(e.right)})"

    def visit_not(self, e: ex.Not) -> str:
        return f"(NOT {self.visit(e.operand)})"


def to_spark_sql(e: Expr, semantics: str | EngineProfile = "spark", *,
                 opaque: Iterable[str] = ()) -> str:
    """The Spark SQL text of a predicate or value expression, under an engine profile.

    Columns named in ``opaque`` (float columns whose statistics Spark must
    not trust) are written as ``(x + 0.0D)``: the same value in every
    comparison, but no longer a plain column, so Spark's Parquet reader is
    not given the condition to skip row groups and pages with.

    >>> from nanstats.prune.expressions import col, is_nan
    >>> to_spark_sql(-col("s.x") / 2 <= 1)
    '(((- `s`.`x`) / 2) <= 1)'
    >>> to_spark_sql(~is_nan(col("x")), "duckdb")
    '(NOT (CASE WHEN `x` IS NULL THEN NULL ELSE isnan(`x`) END))'
    >>> to_spark_sql((col("x") > 1) & (col("n") == 2), opaque=["x"])
    '(((`x` + 0.0D) > 1) AND (`n` = 2))'
    >>> to_spark_sql(col("x") > 1, "ieee")
    Traceback (most recent call last):
    ...
    ValueError: Spark SQL orders NaN greatest; it cannot evaluate a predicate under 'ieee'
    """
    prof = profile(semantics)
    if prof.order != "nan_greatest":
        raise ValueError(f"Spark SQL orders NaN greatest; it cannot evaluate a predicate "
                         f"under {prof.name!r}")
    if prof.nan_is_missing:
        raise ValueError(f"Spark SQL tells NaN from null; it cannot evaluate a predicate "
                         f"under {prof.name!r}")
    return _SparkSql(prof, frozenset(opaque)).visit(e)
