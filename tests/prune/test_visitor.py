"""The visitor base: every node type has a handler, every evaluator handles every node."""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from pathlib import Path

import pytest

import nanstats
from nanstats.prune import abstract, constraints, expressions, row_filter
from nanstats.prune.expressions import Expr, col, is_nan, is_null, lit
from nanstats.prune.visitor import NODE_TYPES, ExprVisitor
from nanstats.spark import sql
from nanstats.testing import predicate_oracle

EVALUATOR_MODULES = (abstract, constraints, row_filter, sql, predicate_oracle)


def _node_types() -> set[type[Expr]]:
    return {obj for obj in vars(expressions).values()
            if inspect.isclass(obj) and issubclass(obj, Expr) and obj is not Expr}


class _Names(ExprVisitor[str]):
    """Names the method that ran, to check the dispatch."""

    def visit_col(self, e): return "col"
    def visit_lit(self, e): return "lit"
    def visit_compare(self, e): return "compare"
    def visit_in(self, e): return "in"
    def visit_arith(self, e): return "arith"
    def visit_neg(self, e): return "neg"
    def visit_is_nan(self, e): return "is_nan"
    def visit_is_null(self, e): return "is_null"
    def visit_and(self, e): return "and"
    def visit_or(self, e): return "or"
    def visit_not(self, e): return "not"


def test_every_node_type_has_one_abstract_method() -> None:
    assert set(NODE_TYPES) == _node_types()
    assert len(ExprVisitor.__abstractmethods__) == len(NODE_TYPES) == 11


def test_dispatch_reaches_the_method_of_each_node_type() -> None:
    x = col("x")
    cases = {"col": x, "lit": lit(1.0), "compare": x > 1, "in": x.isin([1, 2]), "arith": x + 1, "neg": -x,
             "is_nan": is_nan(x), "is_null": is_null(x), "and": (x > 1) & (x < 2),
             "or": (x > 1) | (x < 2), "not": ~(x > 1)}
    assert {name: _Names().visit(e) for name, e in cases.items()} == \
        {name: name for name in cases}
    assert {type(e) for e in cases.values()} == set(NODE_TYPES)


def test_a_visitor_missing_a_method_cannot_be_instantiated() -> None:
    class NoNot(ExprVisitor[str]):
        visit_col = visit_lit = visit_compare = visit_in = visit_arith = _Names.visit_col
        visit_neg = _Names.visit_col
        visit_is_nan = visit_is_null = visit_and = visit_or = _Names.visit_col

    with pytest.raises(TypeError, match="abstract .*visit_not"):
        NoNot()  # type: ignore[abstract]


def test_a_node_type_without_a_handler_fails_loudly() -> None:
    @dataclass(frozen=True, eq=False, repr=False)
    class Between(Expr):
        operand: Expr

    with pytest.raises(TypeError, match="_Names cannot visit expression node Between"):
        _Names().visit(Between(col("x")))
    with pytest.raises(TypeError, match="cannot visit str 'x', not an expression"):
        _Names().visit("x")  # type: ignore[arg-type]
    # Each evaluator raises alike, through the same dispatch.
    with pytest.raises(TypeError, match="cannot visit expression node Between"):
        abstract.truth(Between(col("x")), {}, "ieee")
    with pytest.raises(TypeError, match="cannot visit expression node Between"):
        sql.to_spark_sql(Between(col("x")))


def test_every_evaluator_is_a_complete_visitor() -> None:
    visitors = [obj for m in EVALUATOR_MODULES for obj in vars(m).values()
                if inspect.isclass(obj) and issubclass(obj, ExprVisitor)
                and obj is not ExprVisitor]
    # abstract: value and truth; constraints: necessary; row filter: value and
    # truth; Spark SQL; the oracle: value and truth.
    assert len(visitors) == 8
    for v in visitors:
        assert not inspect.isabstract(v), v


def _tested_node_types(path: Path) -> set[str]:
    """Node types a module tests with isinstance (a ladder would test many)."""
    names = {t.__name__ for t in NODE_TYPES}
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
            for n in ast.walk(node.args[1]):
                name = n.id if isinstance(n, ast.Name) else \
                    n.attr if isinstance(n, ast.Attribute) else None
                if name in names:
                    found.add(name)
    return found


def test_no_isinstance_ladder_over_expression_types_remains() -> None:
    root = Path(nanstats.__file__).parent
    ladders = {}
    for path in root.rglob("*.py"):
        if path.name in ("visitor.py", "expressions.py"):
            continue
        tested = _tested_node_types(path)
        # Pattern matches on operands (a column compared with a literal, a
        # literal constant) test two types at most; a dispatch tests more.
        if len(tested) > 2:
            ladders[str(path.relative_to(root))] = sorted(tested)
    assert ladders == {}
    assert _tested_node_types(root / "spark" / "sql.py") == set()
    assert _tested_node_types(root / "testing" / "predicate_oracle.py") == set()
