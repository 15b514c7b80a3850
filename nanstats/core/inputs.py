"""Turn user arrays into the buffers the kernels read, or say why not.

Kernels read native-endian, contiguous bit patterns.  numpy input that is
already so is read in place (read-only arrays included); big-endian and
strided input is converted with one copy, so it is never misread.  Arrow
data (pyarrow, polars, DuckDB, any ``__arrow_c_array__``/``__arrow_c_stream__``
producer) is read in place through :mod:`nanstats.core.arrow_c`, the one
Arrow reader.  pandas data is recognised by its dtype without importing
pandas.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from nanstats import _kernels
from nanstats.core.arrow_c import import_chunks
from nanstats.core.floats import BY_ARROW_NAME, BY_ITEMSIZE, FloatType
from nanstats.core.kernel_input import NO_VALIDITY, KernelInput
from nanstats.errors import UnsupportedDtypeError

__all__ = ["KernelInput", "as_inputs", "float_type_of", "from_arrow", "from_numpy",
           "from_pandas", "is_supported_pandas_dtype"]

#: What the pandas face reads, for error messages.
PANDAS_SUPPORTED = (
    "numpy float16/float32/float64, pandas Float32/Float64, "
    "or ArrowDtype halffloat/float/double"
)


def float_type_of(dtype: np.dtype[np.generic]) -> FloatType:
    """The FloatType of a numpy float dtype, or UnsupportedDtypeError.

    >>> float_type_of(np.dtype("float32")).physical_type
    'FLOAT'
    """
    if dtype.kind != "f" or dtype.itemsize not in BY_ITEMSIZE:
        raise UnsupportedDtypeError(
            f"nanstats handles float16, float32 and float64 values, not {dtype}"
        )
    return BY_ITEMSIZE[dtype.itemsize]


def from_numpy(
    values: object, mask: object = None, *, null_mask: object = None, name: str = "values"
) -> KernelInput:
    """Kernel input from a numpy float array and an optional bool mask.

    ``mask`` is True where a value is valid (not null); ``null_mask`` is the
    opposite convention (True where null), as numpy masked arrays and pandas
    masked arrays keep it, read as is without inverting it.  A
    ``numpy.ma.MaskedArray`` brings its own mask, combined with ``mask``.

    >>> from_numpy(np.zeros(3), null_mask=np.array([True, False, False])).validity_kind
    3
    """
    if mask is not None and null_mask is not None:
        raise TypeError("give mask (True = valid) or null_mask (True = null), not both")
    if isinstance(values, np.ma.MaskedArray):
        ma_mask = np.ma.getmaskarray(values)
        if mask is None:
            return from_numpy(values.data, null_mask=ma_mask, name=name)
        return from_numpy(values.data, ~ma_mask & _check_mask(mask, ma_mask.shape), name=name)
    if isinstance(values, np.generic):
        values = np.asarray(values)  # a numpy scalar: a 0-d array of one value
    if not isinstance(values, np.ndarray):
        raise TypeError(
            f"{name} must be a numpy array of float16/float32/float64, "
            f"not {type(values).__name__}"
        )
    ft = float_type_of(values.dtype)
    arr = values
    if not arr.dtype.isnative:
        # Byte-swap into native order (one copy) rather than misread.
        arr = arr.astype(arr.dtype.newbyteorder("="))
    # Walk the values in memory order (a view for any contiguous layout; a
    # copy for strided input) and the mask in the same logical order.
    order: Literal["C", "F"] = (
        "F" if arr.ndim > 1 and arr.flags.f_contiguous and not arr.flags.c_contiguous else "C")
    bits = arr.ravel(order=order).view(ft.bits_dtype)
    if null_mask is not None:
        flat_nulls = _check_mask(null_mask, values.shape).ravel(order=order).view(np.uint8)
        return KernelInput(ft, bits, _kernels.VALIDITY_NULL_BYTES, flat_nulls)
    if mask is None:
        return KernelInput(ft, bits, _kernels.VALIDITY_NONE, NO_VALIDITY)
    flat_mask = _check_mask(mask, values.shape).ravel(order=order).view(np.uint8)
    return KernelInput(ft, bits, _kernels.VALIDITY_BYTES, flat_mask)


def _check_mask(mask: object, shape: tuple[int, ...]) -> npt.NDArray[np.bool_]:
    if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
        got = mask.dtype if isinstance(mask, np.ndarray) else type(mask).__name__
        raise TypeError(f"mask must be a numpy bool array (True = valid), not {got}")
    if mask.shape != shape:
        raise ValueError(f"mask has shape {mask.shape}, values have shape {shape}")
    return mask


def from_arrow(array: Any, *, name: str = "values") -> KernelInput:
    """Kernel input read in place from one Arrow array of halffloat/float/double.

    Any object exposing ``__arrow_c_array__`` (a ``pyarrow.Array``, say): the
    data buffer is viewed at the array's element offset; the validity bitmap,
    when there is one, is passed with its bit offset.  No copy.

    >>> import pyarrow as pa
    >>> inp = from_arrow(pa.array([1.0, None, 3.0], pa.float32()).slice(1))
    >>> len(inp), inp.float_type.physical_type, inp.bit_offset
    (2, 'FLOAT', 1)
    """
    if not hasattr(array, "__arrow_c_array__"):
        raise TypeError(f"{name} must be an Arrow array (with __arrow_c_array__), "
                        f"not {type(array).__name__}")
    (chunk,) = import_chunks(_OneArray(array))
    return chunk


class _OneArray:
    """Exposes only an object's ``__arrow_c_array__`` (not its stream)."""

    def __init__(self, array: Any) -> None:
        self.__arrow_c_array__ = array.__arrow_c_array__


def is_supported_pandas_dtype(dtype: Any) -> bool:
    """Whether nanstats reads a pandas (or numpy) dtype; pandas is not imported.

    >>> import pandas as pd
    >>> is_supported_pandas_dtype(pd.Float32Dtype()), is_supported_pandas_dtype(np.dtype("i8"))
    (True, False)
    """
    if isinstance(dtype, np.dtype):
        return dtype.kind == "f" and dtype.itemsize in BY_ITEMSIZE
    kind = type(dtype).__name__
    if kind in ("Float32Dtype", "Float64Dtype"):
        return True
    if kind == "ArrowDtype":
        return str(getattr(dtype, "pyarrow_dtype", "")) in BY_ARROW_NAME
    return False


def from_pandas(values: Any) -> KernelInput:
    """The kernel input of a pandas Series or array, read in place.

    numpy-backed floats are read as numpy (no nulls); masked ``Float32`` /
    ``Float64`` with their null mask as is (True = NA); ``ArrowDtype`` floats
    through the Arrow reader.

    >>> import pandas as pd
    >>> from_pandas(pd.Series([1.0, None], dtype="Float32")).validity_kind
    3
    """
    arr = getattr(values, "array", values)  # a Series holds its array
    dtype = arr.dtype
    if type(dtype).__name__ == "NumpyEADtype":  # a numpy array wrapped by pandas
        dtype = dtype.numpy_dtype
    if not is_supported_pandas_dtype(dtype):
        raise UnsupportedDtypeError(f"nanstats reads {PANDAS_SUPPORTED}, not {dtype}")
    kind = type(dtype).__name__
    if kind == "ArrowDtype":
        chunked = arr.__arrow_array__()
        if chunked.num_chunks != 1:
            chunked = chunked.combine_chunks()
        else:
            chunked = chunked.chunk(0)
        return from_arrow(chunked)
    if kind in ("Float32Dtype", "Float64Dtype"):
        # The masked array's buffers: values and a null mask (True = NA).
        return from_numpy(arr._data, null_mask=arr._mask)
    return from_numpy(np.asarray(arr))


def as_inputs(values: object, mask: object = None) -> list[KernelInput]:
    """Kernel inputs, one per chunk, from numpy, pandas or any Arrow producer.

    numpy and pandas input is one chunk.  A ``pyarrow.ChunkedArray`` or an
    object exposing ``__arrow_c_stream__`` (a polars Series, say) gives one
    input per chunk, each read in place; the statistics functions merge them
    exactly.  With Arrow or pandas input, nulls come from the data; ``mask``
    must then be None.

    >>> import pyarrow as pa
    >>> [len(c) for c in as_inputs(pa.chunked_array([[1.0, 2.0], [3.0]]))]
    [2, 1]
    """
    if isinstance(values, KernelInput):
        return [values]
    if isinstance(values, (np.ndarray, np.generic)):
        return [from_numpy(values, mask)]
    module = type(values).__module__
    if mask is not None and not module.startswith("numpy"):
        raise TypeError(
            f"mask must be None for {type(values).__name__} input; nulls come from the data"
        )
    if module.startswith("pandas"):
        return [from_pandas(values)]
    if hasattr(values, "__arrow_c_stream__") or hasattr(values, "__arrow_c_array__"):
        return import_chunks(values)
    return [from_numpy(values, mask)]
