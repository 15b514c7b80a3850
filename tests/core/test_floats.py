"""Bit-pattern helpers: keys order exactly as totalOrder, conversions round-trip."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nanstats.core.floats import BY_ITEMSIZE, BY_PHYSICAL_TYPE, DOUBLE, FLOAT, FLOAT16, FloatType
from nanstats.testing import oracle
from tests.strategies import FLOAT_TYPES, special_bits

MANTISSA = {16: 10, 32: 23, 64: 52}


def any_bits(ft: FloatType) -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from(special_bits(ft)), st.integers(0, (1 << ft.width) - 1))


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@given(data=st.data())
def test_keys_order_as_total_order(ft: FloatType, data: st.DataObject) -> None:
    bits = data.draw(st.lists(any_bits(ft), min_size=1, max_size=50))
    keys = ft.bits_to_keys(np.array(bits, dtype=ft.bits_dtype)).tolist()
    ranks = [oracle.total_order_rank(b, ft.width) for b in bits]
    assert sorted(range(len(bits)), key=keys.__getitem__) == sorted(
        range(len(bits)), key=ranks.__getitem__
    )
    assert ft.keys_to_bits(np.array(keys, dtype=np.int64)).tolist() == bits
    assert [ft.key(b) for b in bits] == keys  # the scalar forms agree with the vectorised
    assert [ft.key_to_bits(k) for k in keys] == bits


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.physical_type)
@given(data=st.data())
def test_nan_test_and_plain_bytes(ft: FloatType, data: st.DataObject) -> None:
    b = data.draw(any_bits(ft))
    assert ft.is_nan_bits(b) == oracle.is_nan(b, ft.width, MANTISSA[ft.width])
    (plain,) = ft.bits_to_plain(np.array([b], dtype=ft.bits_dtype))
    assert plain == b.to_bytes(ft.nbytes, "little")
    assert ft.plain_to_bits(plain) == b


def test_format_bits_keeps_nan_sign_and_payload() -> None:
    assert FLOAT.format_bits(0xFFC00001) == "-nan(0xffc00001)"
    assert FLOAT16.format_bits(0x7C01) == "+nan(0x7c01)"
    assert DOUBLE.format_bits(0x8000000000000000) == "-0.0"
    assert FLOAT16.format_bits(0x3C00) == "1.0"


def test_lookup_tables() -> None:
    assert BY_PHYSICAL_TYPE["FLOAT16"] is FLOAT16 and BY_ITEMSIZE[8] is DOUBLE
    assert [t.nbytes for t in FLOAT_TYPES] == [2, 4, 8]
    with pytest.raises(ValueError, match="2 bytes"):
        FLOAT16.plain_to_bits(b"\x00")
