"""Turn user arrays into the buffers the kernels read, or say why not.

Kernels read native-endian, contiguous bit patterns.  numpy input that is
already so is read in place (read-only arrays included); big-endian and
strided input is converted with one copy, so it is never misread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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

    def slice(self, start: int, stop: int) -> KernelInput:
        """Rows ``[start, stop)`` as another input, without copying.

        >>> import numpy as np
        >>> inp = from_numpy(np.arange(10.0), np.arange(10) % 3 > 0)
        >>> part = inp.slice(4, 9)
        >>> len(part), part.validity.tolist()
        (5, [1, 1, 0, 1, 1])
        """
        if not 0 <= start <= stop <= len(self):
            raise ValueError(f"rows [{start}, {stop}) are not within the {len(self)} rows")
        validity, bit_offset = self.validity, self.bit_offset
        if self.validity_kind == _kernels.VALIDITY_BITMAP:
            bit_offset += start
        elif self.validity_kind != _kernels.VALIDITY_NONE:
            validity = validity[start:stop]
        return KernelInput(self.float_type, self.bits[start:stop], self.validity_kind,
                           validity, bit_offset)


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


def as_inputs(values: object, mask: object = None) -> list[KernelInput]:
    """Kernel inputs, one per chunk, from numpy, pandas, pyarrow or any Arrow producer.

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
        chunks = [values]
    elif isinstance(values, (np.ndarray, np.generic)):
        return [from_numpy(values, mask)]
    else:
        module = type(values).__module__
        if mask is not None and not module.startswith("numpy"):
            raise TypeError(
                f"mask must be None for {type(values).__name__} input; nulls come from the data"
            )
        if module.startswith("pandas"):
            from nanstats.pandas import kernel_input

            chunks = [kernel_input(values)]
        elif module.startswith("pyarrow") and hasattr(values, "num_chunks"):
            chunks = [from_arrow(c) for c in values.chunks]  # type: ignore[attr-defined]
            if not chunks:
                chunks = [from_arrow(_empty_arrow(values))]
        elif module.startswith("pyarrow") and not hasattr(values, "__arrow_c_stream__") and \
                hasattr(values, "buffers"):
            chunks = [from_arrow(values)]
        elif hasattr(values, "__arrow_c_array__") or hasattr(values, "__arrow_c_stream__"):
            from nanstats.arrow_c import import_chunks

            chunks = import_chunks(values)
            if not chunks:
                raise ValueError(f"{type(values).__name__} holds no Arrow chunk, not even an "
                                 "empty one; its float type is unknown")
        else:
            return [from_numpy(values, mask)]
    kinds = {c.float_type.physical_type for c in chunks}
    if len(kinds) > 1:
        raise TypeError(f"chunks of different float types: {sorted(kinds)}")
    return chunks


def _empty_arrow(chunked: object) -> object:
    import pyarrow as pa

    return pa.array([], type=chunked.type)  # type: ignore[attr-defined]


def as_input(values: object, mask: object = None) -> KernelInput:
    """One kernel input: chunked input is combined into one array (a copy)."""
    chunks = as_inputs(values, mask)
    if len(chunks) == 1:
        return chunks[0]
    ft = chunks[0].float_type
    bits = np.concatenate([c.bits for c in chunks])
    valid = np.concatenate([_valid_bytes(c) for c in chunks])
    return KernelInput(ft, bits, _kernels.VALIDITY_BYTES, valid.view(np.uint8))


def _valid_bytes(c: KernelInput) -> npt.NDArray[np.bool_]:
    n = len(c)
    if c.validity_kind == _kernels.VALIDITY_NONE:
        return np.ones(n, bool)
    if c.validity_kind == _kernels.VALIDITY_BYTES:
        return c.validity.view(bool)
    if c.validity_kind == _kernels.VALIDITY_NULL_BYTES:
        return np.asarray(c.validity == 0, dtype=bool)
    bits = np.unpackbits(c.validity, bitorder="little")
    return bits[c.bit_offset : c.bit_offset + n].astype(bool)
