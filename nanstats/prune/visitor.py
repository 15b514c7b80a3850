"""One way to walk a predicate: a visitor with one method per expression node.

Every evaluator of the predicate language (abstract interpretation,
necessary conditions, the row filter, the Spark SQL translation, the test
oracle) subclasses :class:`ExprVisitor`.  Each node type has an abstract
method, so a visitor that forgets one cannot be instantiated, and adding a
node type to :mod:`nanstats.prune.expressions` means adding its method here,
which every evaluator must then implement.  Dispatch on the node's type goes
through :func:`functools.singledispatch` (cached per type): a node type with
no registered handler fails loudly instead of falling through a chain of
``isinstance`` tests.

>>> from nanstats.prune.expressions import col, is_nan
>>> class Depth(ExprVisitor[int]):
...     def leaf(self, e: Expr) -> int:
...         return 1
...     def node(self, e: Expr) -> int:
...         return 1 + max(self.visit(c) for c in e.children())
...     visit_col = visit_lit = leaf
...     visit_compare = visit_in = visit_arith = visit_neg = node
...     visit_is_nan = visit_is_null = visit_and = visit_or = visit_not = node
>>> Depth().visit((col("x") * 2 > 1.0) | ~is_nan(col("y")))
4
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from functools import singledispatch
from typing import Any, Generic, TypeVar

from nanstats.prune.expressions import (
    And,
    Arith,
    Col,
    Compare,
    Expr,
    In,
    IsNan,
    IsNull,
    Lit,
    Neg,
    Not,
    Or,
)

T = TypeVar("T")


class ExprVisitor(ABC, Generic[T]):
    """Base of every evaluator of expressions: one abstract method per node type.

    Call :meth:`visit` on any expression; it calls the method of the node's
    type, which may visit the children in turn.

    >>> from nanstats.prune.expressions import col
    >>> class Columns(ExprVisitor[list[str]]):
    ...     def visit_col(self, e): return [e.name]
    ...     def visit_lit(self, e): return []
    ...     def pair(self, e): return self.visit(e.left) + self.visit(e.right)
    ...     def one(self, e): return self.visit(e.operand)
    ...     visit_compare = visit_arith = visit_and = visit_or = pair
    ...     def visit_in(self, e): return self.visit(e.operand)
    ...     visit_neg = visit_is_nan = visit_is_null = visit_not = one
    >>> Columns().visit((col("b") > col("a")) & (col("b") < 3))
    ['b', 'a', 'b']
    >>> class Partial(ExprVisitor[str]):
    ...     def visit_col(self, e): return e.name
    >>> Partial()
    Traceback (most recent call last):
    ...
    TypeError: Can't instantiate abstract class Partial with abstract methods ...
    """

    __slots__ = ()

    def visit(self, e: Expr) -> T:
        """The result of the method for ``e``'s node type."""
        result: T = _dispatch(e, self)
        return result

    @abstractmethod
    def visit_col(self, e: Col) -> T: ...

    @abstractmethod
    def visit_lit(self, e: Lit) -> T: ...

    @abstractmethod
    def visit_compare(self, e: Compare) -> T: ...

    @abstractmethod
    def visit_in(self, e: In) -> T: ...

    @abstractmethod
    def visit_arith(self, e: Arith) -> T: ...

    @abstractmethod
    def visit_neg(self, e: Neg) -> T: ...

    @abstractmethod
    def visit_is_nan(self, e: IsNan) -> T: ...

    @abstractmethod
    def visit_is_null(self, e: IsNull) -> T: ...

    @abstractmethod
    def visit_and(self, e: And) -> T: ...

    @abstractmethod
    def visit_or(self, e: Or) -> T: ...

    @abstractmethod
    def visit_not(self, e: Not) -> T: ...


@singledispatch
def _dispatch(e: object, visitor: ExprVisitor[Any]) -> Any:
    kind = f"expression node {type(e).__name__}" if isinstance(e, Expr) else \
        f"{type(e).__name__} {e!r}, not an expression"
    raise TypeError(f"{type(visitor).__name__} cannot visit {kind}: no handler is "
                    "registered for it in nanstats.prune.visitor")


# One registration per node type; NODE_TYPES lists them for the test that
# every concrete Expr subclass has one.
_dispatch.register(Col, lambda e, v: v.visit_col(e))
_dispatch.register(Lit, lambda e, v: v.visit_lit(e))
_dispatch.register(Compare, lambda e, v: v.visit_compare(e))
_dispatch.register(In, lambda e, v: v.visit_in(e))
_dispatch.register(Arith, lambda e, v: v.visit_arith(e))
_dispatch.register(Neg, lambda e, v: v.visit_neg(e))
_dispatch.register(IsNan, lambda e, v: v.visit_is_nan(e))
_dispatch.register(IsNull, lambda e, v: v.visit_is_null(e))
_dispatch.register(And, lambda e, v: v.visit_and(e))
_dispatch.register(Or, lambda e, v: v.visit_or(e))
_dispatch.register(Not, lambda e, v: v.visit_not(e))

#: The node types a visitor handles, in the order of its methods.
NODE_TYPES: tuple[type[Expr], ...] = (Col, Lit, Compare, In, Arith, Neg, IsNan, IsNull, And,
                                      Or, Not)
