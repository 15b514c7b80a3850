"""nanstats predicates as Spark SQL expressions (for Spark's own scan of the same filter).

Spark compares doubles with NaN greatest and equal to itself, and -0.0 equal
to 0.0: the ``nan_greatest`` semantics.  Two differences to know: Spark's
``isnan(NULL)`` is false, as nanstats' ``is_nan``; Spark's division by zero
is NULL (or an error under ANSI mode) where nanstats computes IEEE 754
infinities, so predicates that divide by a column or by zero differ.

>>> from nanstats.prune.parser import parse
>>> to_spark_sql(parse("x > 1.5 and not is_nan(y) or z is null"))
'(((`x` > 1.5D) AND (NOT isnan(`y`))) OR (`z` IS NULL))'
>>> to_spark_sql(parse("x == -nan"))
"(`x` = (- CAST('NaN' AS DOUBLE)))"
"""

from __future__ import annotations

import math

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

_OPS = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "=", "!=": "!="}


def _literal(v: object) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, float):
        if math.isnan(v):
            # Spark compares every NaN alike (nan_greatest): the sign only matters
            # to the bits it returns.
            return "(- CAST('NaN' AS DOUBLE))" if math.copysign(1, v) < 0 else \
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


def to_spark_sql(e: Expr) -> str:
    """The Spark SQL text of a predicate or value expression."""
    if isinstance(e, Col):
        return ".".join(f"`{part}`" for part in e.name.split("."))
    if isinstance(e, Lit):
        return _literal(e.value)
    if isinstance(e, Compare):
        return f"({to_spark_sql(e.left)} {_OPS[e.op]} {to_spark_sql(e.right)})"
    if isinstance(e, Arith):
        return f"({to_spark_sql(e.left)} {e.op} {to_spark_sql(e.right)})"
    if isinstance(e, Neg):
        return f"(- {to_spark_sql(e.operand)})"
    if isinstance(e, IsNan):
        return f"isnan({to_spark_sql(e.operand)})"
    if isinstance(e, IsNull):
        return f"({to_spark_sql(e.operand)} IS NULL)"
    if isinstance(e, And):
        return f"({to_spark_sql(e.left)} AND {to_spark_sql(e.right)})"
    if isinstance(e, Or):
        return f"({to_spark_sql(e.left)} OR {to_spark_sql(e.right)})"
    if isinstance(e, Not):
        return f"(NOT {to_spark_sql(e.operand)})"
    raise TypeError(f"cannot translate {e!r} to Spark SQL")
