"""The floor probes read what they should: min and max of the valid rows, per page."""

from __future__ import annotations

import numpy as np
import pytest
from bench_support import floor

from nanstats import _kernels


def expected(values: np.ndarray, valid: np.ndarray, page_rows: int) -> list[list[int]]:
    out = []
    step = page_rows or len(values)
    for start in range(0, len(values), step):
        v = values[start:start + step][valid[start:start + step]]
        out.append([int(v.min()), int(v.max())] if len(v) else [32767, -32768])
    return out


def test_available_where_the_avx2_level_is() -> None:
    assert floor.available() == ("avx2" in _kernels.simd_levels())


@pytest.mark.parametrize("page_rows", [0, 1, 7, 16, 33, 1000])
@pytest.mark.parametrize("n", [1, 15, 16, 31, 32, 100, 2049])
def test_bitmap16_gives_the_valid_extremes_of_each_page(n: int, page_rows: int) -> None:
    rng = np.random.default_rng(n * 1000 + page_rows)
    values = rng.integers(-32768, 32768, n).astype(np.int16)
    valid = rng.random(n) < 0.8
    bits = np.packbits(valid, bitorder="little")
    if not floor.available():
        with pytest.raises(floor.FloorUnavailable):
            floor.bitmap16(values, bits, page_rows)
        return
    assert floor.bitmap16(values, bits, page_rows).tolist() == expected(values, valid, page_rows)
    assert floor.read2(values, bits) == (int(values.min()), int(values.max()))


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="16-bit"):
        floor.bitmap16(np.zeros(4, np.float32), np.zeros(1, np.uint8))
    with pytest.raises(ValueError, match="too short"):
        floor.bitmap16(np.zeros(9, np.int16), np.zeros(1, np.uint8))


@pytest.mark.parametrize("n", [0, 1, 7, 8, 127, 128, 129, 1000, 100_003])
def test_read_or_is_the_or_of_every_byte(n: int) -> None:
    from bench_support.compositions import read_ceiling

    rng = np.random.default_rng(n)
    values = rng.integers(0, 256, n, dtype=np.uint8)
    if not floor.available():
        with pytest.raises(floor.FloorUnavailable):
            floor.read_or(values)
        return
    want = read_ceiling(values, None)
    assert floor.read_or(values) == want
    # One bit set anywhere, the rest zero: found wherever it is (head, body, tail).
    for at in {0, n // 2, n - 1} if n else set():
        one = np.zeros(n, np.uint8)
        one[at] = 0x40
        assert floor.read_or(one) == read_ceiling(one, None) != 0


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 1000, 100_003])
def test_read_or2_is_the_or_of_each_stream(n: int, dtype: type) -> None:
    from bench_support.compositions import read_ceiling

    rng = np.random.default_rng(n)
    values = rng.integers(0, 256, n * np.dtype(dtype).itemsize, dtype=np.uint8).view(dtype)
    mask = rng.random(n) < 0.5
    if not floor.available():
        with pytest.raises(floor.FloorUnavailable):
            floor.read_or2(values, mask)
        return
    assert floor.read_or2(values, mask) == (read_ceiling(values, None),
                                            read_ceiling(mask.view(np.uint8), None))
    # One bit set anywhere in either stream, the rest zero: found wherever it is.
    for at in {0, n // 2, n - 1} if n else set():
        one, bit = np.zeros_like(values), np.zeros(n, bool)
        one.view(np.uint8)[at * one.itemsize] = 0x40
        bit[at] = True
        assert floor.read_or2(one, np.zeros(n, bool)) == (read_ceiling(one, None), 0) != (0, 0)
        assert floor.read_or2(np.zeros_like(values), bit) == (
            0, read_ceiling(bit.view(np.uint8), None)) != (0, 0)


def test_read_or2_names_a_mask_that_does_not_fit() -> None:
    with pytest.raises(ValueError, match="a mask of 3 bytes for 4 values"):
        floor.read_or2(np.zeros(4), np.zeros(3, bool))
