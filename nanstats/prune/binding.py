"""Literal typing: a predicate's literals as the engine types them against its columns.

An engine that compares a float32 column with ``1.1`` at float32 precision
matches the rows holding float32(1.1); one that promotes the column to
float64 matches none.  :func:`bind` rewrites each literal that meets a float16
or float32 column directly (``col op literal``, ``col in (...)``) to the value
the engine compares with, as the profile says; every evaluator then works in
float64 alone.  Binding twice changes nothing.

>>> from nanstats.prune.expressions import col
>>> bind(col("b") == 1.1, {"b": 32}, "duckdb")
(b == 1.100000023841858)
>>> bind(col("b") == 1.1, {"b": 32}, "spark")
(b == 1.1)
>>> bind(col("b").isin([16777217]), {"b": 32}, "duckdb")
(b in (16777216.0))
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from nanstats.prune import expressions as ex
from nanstats.prune.expressions import Expr
from nanstats.prune.profiles import EngineProfile, profile
from nanstats.prune.visitor import ExprVisitor

_DTYPES: dict[int, type[np.floating[Any]]] = {16: np.float16, 32: np.float32}


def _round(value: float | int, width: int) -> float:
    with np.errstate(over="ignore"):
        return float(_DTYPES[width](value))


def typed_literal(value: object, width: int, typing: str) -> object:
    """A literal's value compared with a float column of ``width`` bits under ``typing``.

    ``typing`` is a profile's literal typing: 'double', 'column' or
    'column_exact' (which refuses a value the column type cannot hold).

    >>> typed_literal(16777217, 32, "column"), typed_literal(0.1, 64, "column")
    (16777216.0, 0.1)
    >>> typed_literal(16777217, 32, "column_exact")
    Traceback (most recent call last):
    ...
    ValueError: 16777217 is not exactly a float32, and the engine refuses to compare it with a float32 column
    """
    if width >= 64 or typing == "double" or isinstance(value, bool) \
            or not isinstance(value, int | float):
        return value
    if isinstance(value, float) and math.isnan(value):
        return value  # keeps its sign (and its payload: only the bits differ)
    rounded = _round(value, width)
    if typing == "column_exact" and rounded != value:
        raise ValueError(f"{value!r} is not exactly a float{width}, and the engine refuses to "
                         f"compare it with a float{width} column")
    return rounded


class _Bind(ExprVisitor[Expr]):
    __slots__ = ("profile", "widths")

    def __init__(self, widths: Mapping[str, int], prof: EngineProfile) -> None:
        self.widths, self.profile = widths, prof

    def _width(self, e: Expr) -> int:
        return self.widths.get(e.name, 64) if isinstance(e, ex.Col) else 64

    def _lit(self, e: Expr, width: int, in_list: bool = False) -> Expr:
        if not isinstance(e, ex.Lit):
            return self.visit(e)
        p = self.profile
        typing: str
        if in_list:
            typing = p.in_literal
        else:
            typing = p.int_literal if isinstance(e.value, int) else p.float_literal
        return ex.Lit(typed_literal(e.value, width, typing))  # type: ignore[arg-type]

    def visit_compare(self, e: ex.Compare) -> Expr:
        left = self._lit(e.left, self._width(e.right))
        right = self._lit(e.right, self._width(e.left))
        return ex.Compare(e.op, left, right)

    def visit_in(self, e: ex.In) -> Expr:
        w = self._width(e.operand)
        return ex.In(self.visit(e.operand),
                     tuple(self._lit(v, w, in_list=True) for v in e.values))  # type: ignore[misc]

    def visit_col(self, e: ex.Col) -> Expr:
        return e

    def visit_lit(self, e: ex.Lit) -> Expr:
        return e

    def visit_arith(self, e: ex.Arith) -> Expr:
        return ex.Arith(e.op, self.visit(e.left), self.visit(e.right))

    def visit_neg(self, e: ex.Neg) -> Expr:
        return ex.Neg(self.visit(e.operand))

    def visit_is_nan(self, e: ex.IsNan) -> Expr:
        return ex.IsNan(self.visit(e.operand))

    def visit_is_null(self, e: ex.IsNull) -> Expr:
        return ex.IsNull(self.visit(e.operand))

    def visit_and(self, e: ex.And) -> Expr:
        return ex.And(self.visit(e.left), self.visit(e.right))

    def visit_or(self, e: ex.Or) -> Expr:
        return ex.Or(self.visit(e.left), self.visit(e.right))

    def visit_not(self, e: ex.Not) -> Expr:
        return ex.Not(self.visit(e.operand))


def bind(predicate: Expr, widths: Mapping[str, int], semantics: str | EngineProfile) -> Expr:
    """The predicate with its literals typed against float16/float32 columns.

    ``widths`` maps float column names to their width in bits (16, 32 or
    64); other columns are left out.

    >>> from nanstats.prune.expressions import col
    >>> bind((col("h") > 0.1) & (col("d") > 0.1), {"h": 16, "d": 64}, "polars")
    ((h > 0.0999755859375) and (d > 0.1))
    """
    return _Bind(widths, profile(semantics)).visit(predicate)


def arrow_widths(schema: object) -> dict[str, int]:
    """Float column widths of an Arrow schema (top-level and struct fields, dotted).

    >>> import pyarrow as pa
    >>> arrow_widths(pa.schema([("a", pa.float32()), ("s", pa.struct([("h", pa.float16())]))]))
    {'a': 32, 's.h': 16}
    """
    import pyarrow as pa

    out: dict[str, int] = {}

    def walk(prefix: str, t: pa.DataType) -> None:
        if pa.types.is_floating(t):
            out[prefix] = t.bit_width
        elif pa.types.is_struct(t):
            for i in range(t.num_fields):
                walk(f"{prefix}.{t.field(i).name}", t.field(i).type)
        elif pa.types.is_dictionary(t):
            walk(prefix, t.value_type)

    for field in schema:  # type: ignore[attr-defined]
        walk(field.name, field.type)
    return out
