"""Hypothesis strategies that favour the hard cases of float statistics."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from nanstats.core.floats import DOUBLE, FLOAT, FLOAT16, FloatType

FLOAT_TYPES = (FLOAT16, FLOAT, DOUBLE)


def special_bits(ft: FloatType) -> list[int]:
    """Every edge of the format, both signs."""
    mant = {16: 10, 32: 23, 64: 52}[ft.width]
    quiet = 1 << (mant - 1)
    positives = [
        0,  # +0
        1,  # smallest subnormal
        quiet - 1,  # a subnormal
        (1 << mant) - 1,  # largest subnormal
        1 << mant,  # smallest normal
        ft.inf_bits - 1,  # largest finite
        ft.inf_bits,  # inf
        ft.inf_bits | 1,  # signalling NaN, smallest payload
        ft.inf_bits | quiet,  # the canonical quiet NaN
        ft.inf_bits | (quiet - 1),  # signalling NaN, largest payload
        ft.abs_mask,  # quiet NaN, every payload bit set
        ft.inf_bits | quiet | 0x15,  # quiet NaN with a payload
    ]
    return positives + [b | ft.sign_mask for b in positives]


def nan_bits(ft: FloatType) -> st.SearchStrategy[int]:
    """NaNs of both signs: the edges, and random payloads."""
    payload = st.integers(1, ft.inf_bits ^ ft.abs_mask).map(lambda m: ft.inf_bits | m)
    random_nan = st.tuples(payload, st.booleans()).map(
        lambda t: t[0] | (ft.sign_mask if t[1] else 0)
    )
    return st.one_of(st.sampled_from([b for b in special_bits(ft) if ft.is_nan_bits(b)]),
                     random_nan)


def bit_patterns(ft: FloatType) -> st.SearchStrategy[int]:
    """Edges, NaNs with random payloads, and random patterns."""
    return st.one_of(
        st.sampled_from(special_bits(ft)),
        nan_bits(ft),
        st.integers(0, (1 << ft.width) - 1),
        st.integers(0, 64).map(lambda v: int(np.array(float(v)).astype(ft.float_dtype).view(ft.bits_dtype))),
    )


@dataclass
class Column:
    """A generated column: bits, optional validity, page starts, a slice offset."""

    ft: FloatType
    bits: list[int]
    valid: list[bool] | None
    page_starts: list[int]
    offset: int  # the array handed over is a slice starting here

    def values(self) -> np.ndarray:
        """The float array (a slice at ``offset`` of a larger buffer)."""
        padded = np.array([0x1234 & ((1 << self.ft.width) - 1)] * self.offset + self.bits,
                          dtype=self.ft.bits_dtype)
        return padded.view(self.ft.float_dtype)[self.offset:]

    def mask(self) -> np.ndarray | None:
        if self.valid is None:
            return None
        padded = np.array([True] * self.offset + self.valid, dtype=bool)
        return padded[self.offset:]


@st.composite
def columns(draw: st.DrawFn, max_size: int = 200, kind: str = "any") -> Column:
    """A column of any float type; ``kind`` biases it to all-NaN / all-null."""
    ft = draw(st.sampled_from(FLOAT_TYPES))
    if kind == "all_nan":
        elem = nan_bits(ft)
    else:
        elem = bit_patterns(ft)
    n = draw(st.integers(0, max_size))
    bits = draw(st.lists(elem, min_size=n, max_size=n))
    mask_kind = draw(st.sampled_from(["none", "random", "all_null", "all_valid"]))
    if kind == "all_null":
        mask_kind = "all_null"
    valid: list[bool] | None
    if mask_kind == "none":
        valid = None
    elif mask_kind == "random":
        valid = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    else:
        valid = [mask_kind == "all_valid"] * n
    if n == 0:
        starts = [0]
    else:
        extra = draw(st.sets(st.integers(1, n - 1), max_size=min(n - 1, 12))) if n > 1 else set()
        if draw(st.booleans()) and n > 1:
            extra = set(range(1, n))  # one-row pages
        starts = [0, *sorted(extra)]
    offset = draw(st.integers(0, 9))
    return Column(ft, bits, valid, starts, offset)
