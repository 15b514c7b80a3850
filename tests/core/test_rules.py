"""The checking form of the float rules (core.rules), against the writing form."""

from __future__ import annotations

import numpy as np
import pytest

from nanstats.core.floats import DOUBLE, FLOAT, FLOAT16
from nanstats.core.inputs import from_numpy
from nanstats.core.rules import (
    bounds_to_write,
    bounds_within_rules,
    breaks_zero_rule,
    claimed_order_holds,
    excludes_extreme,
    numeric_keys,
    order_keys,
)
from nanstats.core.table import page_starts_for, scan

NEG_ZERO, POS_ZERO = 0x8000000000000000, 0
ONE, TWO = 0x3FF0000000000000, 0x4000000000000000
NAN, NEG_NAN = 0x7FF8000000000000, 0xFFF8000000000000


def pages(values, page_rows):
    return scan(from_numpy(np.array(values)), page_starts_for(len(values), page_rows=page_rows))


@pytest.mark.parametrize("ft", [FLOAT16, FLOAT, DOUBLE])
def test_numeric_keys_equal_zeros_keep_the_rest_in_order(ft) -> None:
    values = np.array([-np.inf, -1.0, -0.0, 0.0, 1.0, np.inf], dtype=ft.float_dtype)
    keys = numeric_keys(ft, values.view(ft.bits_dtype))
    assert keys[2] == keys[3]
    assert (np.diff(np.delete(keys, 2)) > 0).all()
    # Away from zero it is the totalOrder key, computed once in core.floats.
    assert keys[1] == ft.key(int(values[1:2].view(ft.bits_dtype)[0]))


def test_excludes_extreme_and_zero_rule() -> None:
    assert excludes_extreme(DOUBLE, [TWO, ONE, NEG_ZERO], [ONE, ONE, POS_ZERO], True).tolist() \
        == [True, False, False]
    assert excludes_extreme(DOUBLE, [ONE, TWO], [TWO, TWO], False).tolist() == [True, False]
    # a zero min must be -0.0, a zero max +0.0; non-zero extremes have no zero rule
    assert breaks_zero_rule(DOUBLE, [POS_ZERO, NEG_ZERO], [NEG_ZERO, POS_ZERO], True).tolist() \
        == [True, False]
    assert breaks_zero_rule(DOUBLE, [NEG_ZERO, POS_ZERO], [POS_ZERO, NEG_ZERO], False).tolist() \
        == [True, False]
    assert not breaks_zero_rule(DOUBLE, [POS_ZERO], [ONE], True)[0]


@pytest.mark.parametrize("order", ["ieee754", "type_order"])
@pytest.mark.parametrize("policy", ["safe", "format_minimum"])
def test_what_a_writer_writes_is_within_the_rules(order, policy) -> None:
    t = pages([1.0, -0.0, np.nan, 0.0, 2.0, np.nan, np.nan, -3.0], 2)
    b = bounds_to_write(t, order, policy)
    for is_min, bits in ((True, b.min_bits), (False, b.max_bits)):
        ok = bounds_within_rules(t, order, bits, np.ones(len(t), dtype=bool), is_min)
        assert (ok[b.present]).all()


def test_bounds_within_rules_type_order() -> None:
    t = pages([1.0, 2.0, -0.0, 5.0, np.nan, np.nan], 2)
    ok = np.ones(3, dtype=bool)
    mins = np.array([ONE, POS_ZERO, ONE], dtype=np.uint64)
    # page 1: +0.0 for a -0.0 minimum breaks the zero rule; page 2: all NaN
    assert bounds_within_rules(t, "type_order", mins, ok, True).tolist() == [True, False, False]
    wider = np.array([0xBFF0000000000000, NEG_ZERO, ONE], dtype=np.uint64)  # -1.0 allowed
    assert bounds_within_rules(t, "type_order", wider, ok, True).tolist() == [True, True, False]
    nan_min = np.array([NAN, NEG_ZERO, ONE], dtype=np.uint64)
    assert not bounds_within_rules(t, "type_order", nan_min, ok, True)[0]
    malformed = np.array([False, True, True])
    assert not bounds_within_rules(t, "type_order", mins, malformed, True)[0]


def test_bounds_within_rules_ieee754_is_exact() -> None:
    t = pages([1.0, 2.0, np.nan, np.nan], 2)
    ok = np.ones(2, dtype=bool)
    exact = bounds_to_write(t, "ieee754").max_bits
    assert bounds_within_rules(t, "ieee754", exact, ok, False).tolist() == [True, True]
    wider = np.array([0x4010000000000000, exact[1]], dtype=np.uint64)
    assert bounds_within_rules(t, "ieee754", wider, ok, False).tolist() == [False, True]


def test_order_keys_and_claims() -> None:
    lo = np.array([NEG_NAN, NEG_ZERO, ONE, NAN], dtype=np.uint64)
    used = np.array([True, True, True, True])
    k_lo, k_hi = order_keys(DOUBLE, "ieee754", lo, lo, used)
    assert len(k_lo) == 4 and claimed_order_holds("ASCENDING", k_lo, k_hi)
    assert not claimed_order_holds("DESCENDING", k_lo, k_hi)
    k_lo, _ = order_keys(DOUBLE, "type_order", lo, lo, used)
    assert k_lo.tolist() == numeric_keys(DOUBLE, lo[1:3]).tolist()
    k_lo, _ = order_keys(DOUBLE, "ieee754", lo, lo, np.array([True, False, True, False]))
    assert len(k_lo) == 2
    assert claimed_order_holds("UNORDERED", np.array([2, 1]), np.array([2, 1]))
