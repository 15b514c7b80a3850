"""The reading rules (SPEC.md section 4): what a reader may conclude from statistics."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import nanstats
from nanstats.core.abstraction import ColumnAbstract
from nanstats.core.floats import DOUBLE, FLOAT, FLOAT16
from nanstats.core.reading_rules import (
    from_column_stats,
    from_counts,
    from_float_bounds,
    from_value_bounds,
)


def plain(ft, *bits: int) -> list[bytes]:
    return list(ft.bits_to_plain(list(bits)))


@pytest.mark.parametrize(("counts", "expected"), [
    ((None, None, None), (True, True, True)),      # nothing known
    ((0, 0, 5), (False, False, True)),
    ((0, None, 5), (False, True, True)),           # a missing nan_count: NaN may be present
    ((2, 3, 5), (True, True, False)),              # nulls and NaNs are every value
    ((5, None, 5), (True, False, False)),          # all null
    ((0, 0, 0), (False, False, False)),            # an empty scope
    ((None, 1, 5), (True, True, True)),
])
def test_counts(counts, expected) -> None:
    assert from_counts(*counts) == expected


def test_type_order_zero_bounds_may_hide_the_other_zero() -> None:
    lo, hi = plain(DOUBLE, 0x0000000000000000, 0x8000000000000000)  # +0.0, -0.0
    a = from_float_bounds(DOUBLE, "type_order", lo, hi, null_count=0, nan_count=0, num_values=3)
    assert (repr(a.lo), repr(a.hi)) == ("-0.0", "0.0")
    exact = from_float_bounds(DOUBLE, "ieee754", lo, hi, null_count=0, nan_count=0,
                              num_values=3)
    assert (repr(exact.lo), repr(exact.hi)) == ("0.0", "-0.0")  # exact in totalOrder


def test_type_order_ignores_nan_bounds() -> None:
    lo, hi = plain(FLOAT, 0x3F800000, 0x7FC00000)  # 1.0, NaN
    for order in ("type_order", "undefined", "ieee754"):  # one NaN bound: rules broken
        a = from_float_bounds(FLOAT, order, lo, hi, null_count=0, nan_count=None, num_values=4)
        assert a == ColumnAbstract.anything("float", may_null=False), order


def test_total_order_nan_bounds_mark_an_all_nan_scope_with_their_signs() -> None:
    neg, pos = plain(FLOAT16, 0xFE00, 0x7E00)
    both = from_float_bounds(FLOAT16, "ieee754", neg, pos, null_count=0, nan_count=2,
                             num_values=2)
    assert both == ColumnAbstract.only_nan()
    only_pos = from_float_bounds(FLOAT16, "ieee754", pos, pos, null_count=1, nan_count=1,
                                 num_values=2)
    assert only_pos == ColumnAbstract.only_nan(neg=False, may_null=True)
    only_neg = from_float_bounds(FLOAT16, "ieee754", neg, neg, null_count=0, nan_count=1,
                                 num_values=1)
    assert only_neg == ColumnAbstract.only_nan(pos=False)
    # Under TYPE_ORDER the same bounds say nothing.
    assert from_float_bounds(FLOAT16, "type_order", neg, pos, null_count=0, nan_count=2,
                             num_values=2).lo is None


def test_unknown_orders_and_bad_widths_ignore_bounds() -> None:
    lo, hi = plain(DOUBLE, 0x3FF0000000000000, 0x4000000000000000)
    for order, lo_, hi_ in (("other", lo, hi), ("ieee754", lo[:4], hi), ("type_order", None, hi)):
        a = from_float_bounds(DOUBLE, order, lo_, hi_, null_count=0, nan_count=0, num_values=2)
        assert (a.lo, a.hi, a.may_value) == (None, None, True), order
    a = from_float_bounds(DOUBLE, "ieee754", lo, hi, null_count=0, nan_count=0, num_values=2)
    assert (a.lo, a.hi) == (1.0, 2.0)


def test_no_numbers_no_bounds() -> None:
    lo, hi = plain(DOUBLE, 0x3FF0000000000000, 0x4000000000000000)
    a = from_float_bounds(DOUBLE, "ieee754", lo, hi, null_count=1, nan_count=1, num_values=2)
    assert (a.lo, a.hi, a.may_value, a.may_null, a.may_nan) == (None, None, False, True, True)
    b = from_value_bounds("int", "type_order", b"\x01\x00", b"\x02\x00", width=2,
                          null_count=3, num_values=3)
    assert b == ColumnAbstract.only_null("int")


def test_int_bounds_by_width_and_signedness() -> None:
    lo, hi = (-5).to_bytes(8, "little", signed=True), (7).to_bytes(8, "little")
    assert from_value_bounds("int", "type_order", lo, hi, width=8, null_count=0,
                             num_values=2) == ColumnAbstract.of_range(-5, 7)
    unsigned = from_value_bounds("int", "undefined", lo, hi, width=8, signed=False,
                                 null_count=0, num_values=2)
    assert (unsigned.lo, unsigned.hi) == (2**64 - 5, 7)
    wrong = from_value_bounds("int", "type_order", lo, hi, width=4, null_count=0, num_values=2)
    assert (wrong.lo, wrong.hi) == (None, None)
    ieee = from_value_bounds("int", "ieee754", lo, hi, width=8, null_count=0, num_values=2)
    assert (ieee.lo, ieee.hi) == (None, None)  # integers have no totalOrder column order


def test_bytes_and_unknown_kinds() -> None:
    a = from_value_bounds("bytes", "type_order", bytearray(b"ab\x00"), b"b", null_count=None,
                          num_values=3)
    assert (a.lo, a.hi, type(a.lo), a.may_null, a.may_nan) == (b"ab\x00", b"b", bytes, True,
                                                               False)
    assert from_value_bounds("any", "type_order", b"a", b"b", null_count=0,
                             num_values=1) == ColumnAbstract("any", None, None, True, False,
                                                             False, False)


def test_column_stats_know_the_nan_signs() -> None:
    a = from_column_stats(nanstats.summary(np.array([np.nan, 3.0, -0.0], dtype=np.float32)))
    assert a == ColumnAbstract("float", -0.0, 3.0, True, False, True, False)
    assert repr(a.lo) == "-0.0"
    empty = from_column_stats(nanstats.summary(np.array([], dtype=np.float64)))
    assert empty == ColumnAbstract("float", None, None, False, False, False, False)


def test_the_core_imports_no_layer_above_it() -> None:
    core = Path(nanstats.__file__).parent / "core"
    above = ("nanstats.prune", "nanstats.metadata", "nanstats.parquet", "nanstats.lake",
             "nanstats.spark", "nanstats.cli", "nanstats.pandas", "nanstats.arrow")
    bad = []
    for path in core.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            bad += [f"{path.name}: {n}" for n in names if n.startswith(above)]
    assert bad == []
