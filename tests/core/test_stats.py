"""ColumnStats: merging, the writing rules of both orders, and repr/to_dict."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nanstats
from nanstats.core.stats import ColumnStats
from nanstats.testing import oracle
from tests.strategies import Column, columns


def f32(*bits: int) -> np.ndarray:
    return np.array(bits, dtype=np.uint32).view(np.float32)


def le32(x: float) -> bytes:
    return struct.pack("<f", x)


def le32_bits(b: int) -> bytes:
    return struct.pack("<I", b)


# --- merge -----------------------------------------------------------------

@given(columns(), st.data())
def test_merge_is_a_homomorphism(col: Column, data: st.DataObject) -> None:
    values, mask = col.values(), col.mask()
    cut = data.draw(st.integers(0, len(values)))
    whole = nanstats.summary(values, mask)
    left = nanstats.summary(values[:cut], None if mask is None else mask[:cut])
    right = nanstats.summary(values[cut:], None if mask is None else mask[cut:])
    assert left.merge(right) == whole
    assert right.merge(left) == whole  # the statistics do not depend on order


@given(columns())
def test_merged_pages_equal_the_whole(col: Column) -> None:
    pages = nanstats.page_stats(col.values(), col.mask(), page_starts=col.page_starts)
    merged = pages[0]
    for p in pages[1:]:
        merged = merged.merge(p)
    assert merged == nanstats.summary(col.values(), col.mask())


def test_merge_refuses_other_types() -> None:
    a = nanstats.summary(np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="FLOAT statistics with DOUBLE"):
        a.merge(nanstats.summary(np.zeros(2)))
    with pytest.raises(TypeError, match="ColumnStats"):
        a.merge(3)  # type: ignore[arg-type]


# --- the writing rules, against the oracle ----------------------------------

@given(columns(), st.sampled_from(["ieee754", "type_order"]), st.sampled_from(["safe", "format_minimum"]))
def test_statistics_match_oracle(col: Column, order: str, policy: str) -> None:
    s = nanstats.summary(col.values(), col.mask())
    enc = s.statistics(order, policy=policy)
    lo, hi = oracle.encoded_statistics(
        oracle.scope_stats(col.ft.physical_type, col.bits, col.valid), order, policy
    )
    def to_bytes(b: int | None) -> bytes | None:
        return None if b is None else b.to_bytes(col.ft.nbytes, "little")

    assert (enc.min_value, enc.max_value) == (to_bytes(lo), to_bytes(hi))
    assert enc.null_count == s.null_count and enc.nan_count == s.nan_count
    if order == "type_order" and enc.min_value is not None:
        # TYPE_ORDER bounds never hold NaN.
        assert not col.ft.is_nan_bits(lo) and not col.ft.is_nan_bits(hi)


# --- hand-computed vectors, one per rule of SPEC.md section 3 -----------------

NAN_PAYLOADS = (0x7FC00001, 0xFFC00000, 0xFF800001, 0x7F800002)


@pytest.mark.parametrize(
    "values, order, policy, expected_min, expected_max, nulls, nans",
    [
        # no NaN: both orders write the plain extremes
        (f32(0x3F800000, 0xC0000000), "ieee754", "safe", le32(-2.0), le32(1.0), 0, 0),
        (f32(0x3F800000, 0xC0000000), "type_order", "safe", le32(-2.0), le32(1.0), 0, 0),
        # mixed NaN: ieee754 keeps the non-NaN bounds; legacy-safe drops them
        (np.float32([np.nan, 3.0, -1.0]), "ieee754", "safe", le32(-1.0), le32(3.0), 0, 1),
        (np.float32([np.nan, 3.0, -1.0]), "type_order", "safe", None, None, 0, 1),
        (np.float32([np.nan, 3.0, -1.0]), "type_order", "format_minimum", le32(-1.0), le32(3.0), 0, 1),
        # all NaN, both signs, several payloads: the NaN extremes in totalOrder
        (f32(*NAN_PAYLOADS), "ieee754", "safe", le32_bits(0xFFC00000), le32_bits(0x7FC00001), 0, 4),
        (f32(*NAN_PAYLOADS), "type_order", "safe", None, None, 0, 4),
        (f32(*NAN_PAYLOADS), "type_order", "format_minimum", None, None, 0, 4),
        # zero minimum: ieee754 writes the zero that occurred; type_order -0.0
        (np.float32([0.0, 5.0]), "ieee754", "safe", le32(0.0), le32(5.0), 0, 0),
        (np.float32([0.0, 5.0]), "type_order", "safe", le32(-0.0), le32(5.0), 0, 0),
        # zero maximum: type_order writes +0.0 although only -0.0 occurred
        (np.float32([-0.0, -3.0]), "ieee754", "safe", le32(-3.0), le32(-0.0), 0, 0),
        (np.float32([-0.0, -3.0]), "type_order", "safe", le32(-3.0), le32(0.0), 0, 0),
        # both zeros: min -0.0 and max +0.0 in both orders
        (np.float32([0.0, -0.0]), "ieee754", "safe", le32(-0.0), le32(0.0), 0, 0),
        (np.float32([0.0, -0.0]), "type_order", "safe", le32(-0.0), le32(0.0), 0, 0),
        # infinities are values, not NaN
        (np.float32([np.inf, -np.inf]), "type_order", "safe", le32(-np.inf), le32(np.inf), 0, 0),
    ],
)
def test_hand_computed_vectors(values, order, policy, expected_min, expected_max, nulls, nans):
    enc = nanstats.summary(values).statistics(order, policy=policy)
    assert enc.min_value == expected_min
    assert enc.max_value == expected_max
    assert (enc.null_count, enc.nan_count) == (nulls, nans)


def test_all_null_writes_no_bounds_but_counts() -> None:
    s = nanstats.summary(np.float64([1.0, np.nan]), mask=np.array([False, False]))
    for order in ("ieee754", "type_order"):
        enc = s.statistics(order)
        assert (enc.min_value, enc.max_value, enc.null_count, enc.nan_count) == (None, None, 2, 0)


def test_float16_and_double_bytes() -> None:
    s16 = nanstats.summary(np.float16([1.0, -0.5]))
    assert s16.statistics().min_value == b"\x00\xb8" and s16.statistics().max_value == b"\x00\x3c"
    s64 = nanstats.summary(np.float64([-0.0]))
    assert s64.statistics("type_order").max_value == bytes(8)
    assert s64.statistics("type_order").min_value == bytes(7) + b"\x80"


def test_bad_order_and_policy() -> None:
    s = nanstats.summary(np.zeros(1))
    with pytest.raises(ValueError, match="order must be one of"):
        s.statistics("TYPE_ORDER")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="policy must be one of"):
        s.statistics("type_order", policy="lenient")  # type: ignore[arg-type]


# --- presentation ------------------------------------------------------------

def test_repr_and_to_dict_show_nan_signs_and_bits() -> None:
    s = nanstats.summary(f32(0xFFC00000, 0x7FC00001), mask=np.array([True, True]))
    assert repr(s) == (
        "ColumnStats(FLOAT, num_values=2, null_count=0, nan_count=2 (+1/-1), "
        "min=-nan(0xffc00000), max=+nan(0x7fc00001))"
    )
    d = s.to_dict()
    assert d["min_bits"] == 0xFFC00000 and d["is_all_nan"] and not d["is_all_null"]
    assert d["nan_count"] == 2 and np.isnan(d["max"])
    assert ColumnStats(**{k: d[k] for k in ColumnStats.__dataclass_fields__}) == s
