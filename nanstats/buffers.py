"""Turn user arrays into the buffers the kernels read, or say why not.

Kernels read native-endian, contiguous bit patterns.  numpy input that is
already so is read in place (read-only arrays included); big-endian and
strided input is converted with one copy, so it is never misread.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from nanstats import _kernels
from nanstats.errors import UnsupportedDtypeError
from nanstats.float_types import BY_ITEMSIZE, FloatType

_NO_VALIDITY = np.zeros(0, dtype=np.uint8)


@dataclass(frozen=True)
class KernelInput:
    """What one kernel call reads: bits, validity and its kind."""

    float_type: FloatType
    bits: npt.NDArray[np.unsignedinteger]
    validity_kind: int
    validity: npt.NDArray[np.uint8]
    bit_offset: int = 0

    def __len__(self) -> int:
        return int(self.bits.shape[0])


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
    order = "F" if arr.ndim > 1 and arr.flags.f_contiguous and not arr.flags.c_contiguous else "C"
    bits = arr.ravel(order=order).view(ft.bits_dtype)
    if null_mask is not None:
        flat_nulls = _check_mask(null_mask, values.shape).ravel(order=order).view(np.uint8)
        return KernelInput(ft, bits, _kernels.VALIDITY_NULL_BYTES, flat_nulls)
    if mask is None:
        return KernelInput(ft, bits, _kernels.VALIDITY_NONE, _NO_VALIDITY)
    flat_mask = _check_mask(mask, values.shape).ravel(order=order).view(np.uint8)
    return KernelInput(ft, bits, _kernels.VALIDITY_BYTES, flat_mask)


def _check_mask(mask: object, shape: tuple[int, ...]) -> npt.NDArray[np.bool_]:
    if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
        got = mask.dtype if isinstance(mask, np.ndarray) else type(mask).__name__
        raise TypeError(f"mask must be a numpy bool array (True = valid), not {got}")
    if mask.shape != shape:
        raise ValueError(f"mask has shape {mask.shape}, values have shape {shape}")
    return mask


_ARROW_FLOATS = {"halffloat": np.uint16, "float": np.uint32, "double": np.uint64}


def from_arrow(array: object, *, name: str = "values") -> KernelInput:
    """Kernel input read in place from a ``pyarrow.Array`` of halffloat/float/double.

    The data buffer is viewed at the array's element offset; the validity
    bitmap, when there is one, is passed with its bit offset.  No copy.

    >>> import pyarrow as pa
    >>> inp = from_arrow(pa.array([1.0, None, 3.0], pa.float32()).slice(1))
    >>> len(inp), inp.float_type.physical_type, inp.bit_offset
    (2, 'FLOAT', 1)
    """
    import pyarrow as pa

    if not isinstance(array, pa.Array):
        raise TypeError(f"{name} must be a pyarrow.Array, not {type(array).__name__}")
    type_name = str(array.type)
    if type_name not in _ARROW_FLOATS:
        raise UnsupportedDtypeError(
            f"nanstats handles halffloat, float and double Arrow arrays, not {array.type}"
        )
    bits_dtype = np.dtype(_ARROW_FLOATS[type_name])
    ft = BY_ITEMSIZE[bits_dtype.itemsize]
    n, off = len(array), array.offset
    validity_buf, data_buf = array.buffers()[:2]
    if data_buf is None:  # possible only when the array is empty or all null
        bits = np.zeros(n, dtype=bits_dtype)
    else:
        bits = np.frombuffer(data_buf, dtype=bits_dtype, count=off + n)[off:]
    if validity_buf is None or array.null_count == 0:
        return KernelInput(ft, bits, _kernels.VALIDITY_NONE, _NO_VALIDITY)
    validity = np.frombuffer(validity_buf, dtype=np.uint8, count=(off + n + 7) // 8)
    return KernelInput(ft, bits, _kernels.VALIDITY_BITMAP, validity[off // 8 :], off % 8)


def as_input(values: object, mask: object = None) -> KernelInput:
    """Kernel input from numpy or pyarrow values (the one entry point the API uses).

    pandas Series and arrays go through :func:`nanstats.pandas.kernel_input`.
    A ``pyarrow.ChunkedArray`` is combined into one array first (a copy when
    it has several chunks).  With Arrow input, nulls come from the array's
    validity; ``mask`` must then be None.
    """
    if isinstance(values, KernelInput):
        if mask is not None:
            raise TypeError("mask must be None for a KernelInput")
        return values
    module = type(values).__module__
    if module.startswith("pandas"):
        from nanstats.pandas import kernel_input

        if mask is not None:
            raise TypeError("mask must be None for pandas input; nulls come from its dtype")
        return kernel_input(values)
    if module.startswith("pyarrow"):
        import pyarrow as pa

        if mask is not None:
            raise TypeError("mask must be None for pyarrow input; nulls come from its validity")
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
        return from_arrow(values)
    return from_numpy(values, mask)
