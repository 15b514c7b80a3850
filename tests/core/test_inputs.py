"""What summary() accepts, what it converts, and what it refuses."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given

import nanstats
from nanstats import UnsupportedDtypeError
from tests.strategies import columns


@pytest.fixture
def data() -> np.ndarray:
    rng = np.random.default_rng(1)
    v = rng.normal(size=101)
    v[[3, 50]] = np.nan
    v[7] = -np.nan
    v[9] = -0.0
    return v


@pytest.mark.parametrize("dtype", ["<f2", "<f4", "<f8"])
def test_big_endian_is_read_correctly(data, dtype) -> None:
    native = data.astype(dtype)
    swapped = native.astype(np.dtype(dtype).newbyteorder(">"))
    assert nanstats.summary(swapped) == nanstats.summary(native)
    assert nanstats.page_stats(swapped, page_rows=7) == nanstats.page_stats(native, page_rows=7)


def test_strided_input_is_read_correctly(data) -> None:
    strided = data[::3]
    assert not strided.flags.c_contiguous
    assert nanstats.summary(strided) == nanstats.summary(np.ascontiguousarray(strided))
    mask = np.arange(data.size) % 4 != 0
    assert nanstats.summary(strided, mask[::3]) == nanstats.summary(
        np.ascontiguousarray(strided), np.ascontiguousarray(mask[::3])
    )


def test_reversed_view(data) -> None:
    assert nanstats.summary(data[::-1]) == nanstats.summary(data)


def test_two_dimensional_any_layout(data) -> None:
    v = data[:100].reshape(10, 10)
    mask = (np.arange(100) % 3 != 0).reshape(10, 10)
    expected = nanstats.summary(v.ravel(), mask.ravel())
    assert nanstats.summary(v, mask) == expected
    assert nanstats.summary(np.asfortranarray(v), mask) == expected
    assert nanstats.summary(np.asfortranarray(v), np.asfortranarray(mask)) == expected
    assert nanstats.summary(v.T, mask.T) == expected


def test_read_only_input_is_fine(data) -> None:
    ro = data.copy()
    ro.flags.writeable = False
    mask = np.ones(ro.size, bool)
    mask.flags.writeable = False
    assert nanstats.summary(ro, mask) == nanstats.summary(data)


def test_masked_array_nulls(data) -> None:
    ma = np.ma.masked_array(data, mask=np.arange(data.size) < 10)
    expected = nanstats.summary(data, np.arange(data.size) >= 10)
    assert nanstats.summary(ma) == expected
    extra = np.arange(data.size) != 50
    assert nanstats.summary(ma, extra) == nanstats.summary(data, (np.arange(data.size) >= 10) & extra)


def test_scalar_and_empty() -> None:
    assert nanstats.summary(np.float32(2.0)).num_values == 1
    assert nanstats.summary(np.array(-0.0, np.float16)).min_bits == 0x8000
    s = nanstats.summary(np.array([], np.float64))
    assert (s.num_values, s.min, s.is_all_null, s.is_all_nan) == (0, None, True, False)


@pytest.mark.parametrize(
    "values, match",
    [
        (np.arange(3), "not int64"),
        (np.zeros(3, np.complex128), "not complex128"),
        (np.zeros(3, np.longdouble), "not float128"),
        (np.array(["a"]), "not <U1"),
        (np.array([1.0], dtype=object), "not object"),
    ],
)
def test_unsupported_dtypes(values, match) -> None:
    with pytest.raises(UnsupportedDtypeError, match=match):
        nanstats.summary(values)
    with pytest.raises(TypeError):  # UnsupportedDtypeError is a TypeError too
        nanstats.page_stats(values)


def test_not_an_array() -> None:
    with pytest.raises(TypeError, match="numpy array of float16/float32/float64, not list"):
        nanstats.summary([1.0, 2.0])


def test_bad_masks(data) -> None:
    with pytest.raises(TypeError, match="bool array"):
        nanstats.summary(data, np.ones(data.size, np.uint8))
    with pytest.raises(TypeError, match="bool array"):
        nanstats.summary(data, [True] * data.size)
    with pytest.raises(ValueError, match=r"mask has shape \(3,\), values have shape \(101,\)"):
        nanstats.summary(data, np.ones(3, bool))


def test_input_is_not_modified(data) -> None:
    before = data.copy()
    nanstats.column_index(data, page_rows=10)
    assert before.tobytes() == data.tobytes()


def _arrow_of(col):
    """The column as a sliced pyarrow array (validity bitmap at a bit offset)."""
    import pyarrow as pa

    arrow_type = {2: pa.float16(), 4: pa.float32(), 8: pa.float64()}[col.ft.nbytes]
    pad = [0] * col.offset
    bits = np.array(pad + col.bits, dtype=col.ft.bits_dtype)
    valid = [True] * col.offset + (col.valid if col.valid is not None else [True] * len(col.bits))
    full = pa.Array.from_buffers(
        arrow_type, len(bits), [pa.py_buffer(np.packbits(np.array(valid, dtype=bool), bitorder="little").tobytes()),
                                pa.py_buffer(bits.tobytes())])
    return full.slice(col.offset)


@given(columns())
def test_arrow_input_equals_numpy_input(col) -> None:
    arr = _arrow_of(col)
    assert nanstats.summary(arr) == nanstats.summary(col.values(), col.mask())
    assert nanstats.page_stats(arr, page_starts=col.page_starts) == nanstats.page_stats(
        col.values(), col.mask(), page_starts=col.page_starts)


def test_arrow_chunked_and_errors() -> None:
    import pyarrow as pa

    a = pa.array([1.0, None, float("nan")])
    both = nanstats.summary(pa.chunked_array([a, a]))
    assert (both.num_values, both.null_count, both.nan_count) == (6, 2, 2)
    assert nanstats.summary(pa.chunked_array([], pa.float32())).num_values == 0
    with pytest.raises(TypeError, match="not int64"):
        nanstats.summary(pa.array([1, 2]))
    with pytest.raises(TypeError, match="mask must be None"):
        nanstats.summary(a, np.ones(3, bool))
