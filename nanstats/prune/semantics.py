"""How an engine compares floats: the four NaN semantics of SPEC.md section 6.

Every comparison is reduced to the *relation* of its two operands, one of
``lt``, ``eq``, ``gt`` or ``un`` (unordered, IEEE 754 comparisons involving
NaN).  An operator is then the set of relations that make it true, the same
for every semantics; what differs is which relation two values are in.

============== ========================================= ========= ==========
semantics      NaN against numbers                       NaN = NaN -0.0 = +0.0
============== ========================================= ========= ==========
``ieee``       unordered: every comparison false, != true false     true
``nan_greatest`` above +inf (either sign)                true      true
``nan_least``  below -inf (either sign)                  true      true
``total_order`` -NaN lowest, +NaN highest                by bits   false
============== ========================================= ========= ==========

>>> relation(float("nan"), 1.0, "nan_greatest"), relation(float("nan"), 1.0, "ieee")
('gt', 'un')
>>> holds(">", relation(-0.0, 0.0, "total_order")), holds("==", relation(-0.0, 0.0, "ieee"))
(False, True)
"""

from __future__ import annotations

from typing import Literal, get_args

from nanstats.core.floats import float_key, nan_sign

NanSemantics = Literal["ieee", "nan_greatest", "nan_least", "total_order"]
Relation = Literal["lt", "eq", "gt", "un"]
Comparison = Literal["<", "<=", ">", ">=", "==", "!="]

SEMANTICS: tuple[NanSemantics, ...] = get_args(NanSemantics)
COMPARISONS: tuple[Comparison, ...] = get_args(Comparison)
DEFAULT_SEMANTICS: NanSemantics = "nan_greatest"

# Which engine does what, beyond NaN order: nanstats.prune.profiles (measured).

#: The relations under which each comparison is true.
TRUE_UNDER: dict[Comparison, frozenset[Relation]] = {
    "<": frozenset({"lt"}),
    "<=": frozenset({"lt", "eq"}),
    ">": frozenset({"gt"}),
    ">=": frozenset({"gt", "eq"}),
    "==": frozenset({"eq"}),
    "!=": frozenset({"lt", "gt", "un"}),
}

#: The comparison that holds with its operands swapped.
SWAPPED: dict[Comparison, Comparison] = {
    "<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!=",
}

#: The comparison that holds exactly when this one fails (for ordered operands).
NEGATED: dict[Comparison, Comparison] = {
    "<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "==",
}


def check_semantics(semantics: object) -> NanSemantics:
    """Validate a semantics name.

    >>> check_semantics("spark")
    Traceback (most recent call last):
    ...
    ValueError: semantics must be one of ('ieee', 'nan_greatest', 'nan_least', 'total_order'), not 'spark'
    """
    if semantics not in SEMANTICS:
        raise ValueError(f"semantics must be one of {SEMANTICS}, not {semantics!r}")
    return semantics


def check_comparison(op: object) -> Comparison:
    """Validate a comparison operator.

    >>> check_comparison("<=")
    '<='
    >>> check_comparison("=<")
    Traceback (most recent call last):
    ...
    ValueError: comparison must be one of ('<', '<=', '>', '>=', '==', '!='), not '=<'
    """
    if op not in COMPARISONS:
        raise ValueError(f"comparison must be one of {COMPARISONS}, not {op!r}")
    return op


def holds(op: Comparison, rel: Relation) -> bool:
    """Whether ``a op b`` is true when a and b are in relation ``rel``.

    >>> holds("!=", "un"), holds("<=", "un"), holds("<=", "eq")
    (True, False, True)
    """
    return rel in TRUE_UNDER[op]


def _ordinal(x: object, semantics: NanSemantics) -> int:
    """Where a value sits among the three bands: NaN below (-1), numbers (0), NaN above (1)."""
    if isinstance(x, float) and x != x:
        if semantics == "nan_greatest":
            return 1
        if semantics == "nan_least":
            return -1
        return nan_sign(x)  # total_order
    return 0


def relation(a: object, b: object, semantics: NanSemantics) -> Relation:
    """The relation of two scalar values under a semantics (the slow reference).

    Floats, ints and strings compare as themselves; NaN and the two zeros
    as the semantics says.

    >>> [relation(x, y, "total_order") for x, y in [(-0.0, 0.0), (float("-nan"), -1e308)]]
    ['lt', 'lt']
    """
    a_nan = isinstance(a, float) and a != a
    b_nan = isinstance(b, float) and b != b
    if semantics == "ieee" and (a_nan or b_nan):
        return "un"
    oa, ob = _ordinal(a, semantics), _ordinal(b, semantics)
    if oa != ob:
        return "lt" if oa < ob else "gt"
    if semantics == "total_order" and isinstance(a, float) and isinstance(b, float):
        ka, kb = float_key(a), float_key(b)
        return "lt" if ka < kb else "gt" if ka > kb else "eq"
    if a_nan and b_nan:  # nan_greatest / nan_least: all NaNs are equal
        return "eq"
    return "lt" if a < b else "gt" if a > b else "eq"  # type: ignore[operator]
