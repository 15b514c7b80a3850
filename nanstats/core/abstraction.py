"""What statistics allow in one column over one scope: the record the reading rules give.

A :class:`ColumnAbstract` is the abstraction of a column (file, row group or
page) that pruning evaluates predicates over: a range of its non-NaN values
in IEEE 754 totalOrder, and whether a number, a null, a +NaN and a -NaN may
occur.  :mod:`nanstats.core.reading_rules` builds them from statistics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ValueKind = Literal["float", "int", "bytes", "any"]
Bound = float | int | bytes | None


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
