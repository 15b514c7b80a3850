"""Read float arrays through the Arrow C Data Interface, in place.

Any object with ``__arrow_c_array__`` (one array) or ``__arrow_c_stream__``
(a stream of arrays: a polars Series, a pyarrow ChunkedArray, a DuckDB
result) is read without pyarrow: the capsules' ``ArrowSchema``/``ArrowArray``
structs (a published, stable ABI) give the format, length, offset and the
validity and data buffers.  The buffers are viewed, not copied, and each view
keeps its capsule alive, so the producer frees nothing while we read.

Only the float formats are accepted: ``e`` (float16), ``f`` (float32) and
``g`` (float64); a struct's children and dictionaries are refused.  This is
nanstats' one Arrow reader.  pyarrow float arrays and chunked arrays give the
same fields from their own attributes (no structs or capsules to build), and
both kinds of fields go through one set of checks and views.

>>> import polars as pl
>>> chunks = import_chunks(pl.Series([1.0, None, -0.0]))
>>> [(len(c), c.float_type.physical_type, c.validity_kind) for c in chunks]
[(3, 'DOUBLE', 2)]
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from nanstats import _kernels
from nanstats.core.floats import BY_ARROW_NAME, BY_C_FORMAT, FloatType
from nanstats.core.kernel_input import NO_VALIDITY, KernelInput
from nanstats.errors import UnsupportedDtypeError


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_void_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.c_void_p),
    ("dictionary", ctypes.c_void_p),
    ("release", ctypes.c_void_p),
    ("private_data", ctypes.c_void_p),
]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.c_void_p),
    ("dictionary", ctypes.c_void_p),
    ("release", ctypes.c_void_p),
    ("private_data", ctypes.c_void_p),
]


class ArrowArrayStream(ctypes.Structure):
    pass


_GET_SCHEMA = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                               ctypes.POINTER(ArrowSchema))
_GET_NEXT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                             ctypes.POINTER(ArrowArray))
_GET_LAST_ERROR = ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))
_RELEASE_ARRAY = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))
_RELEASE_SCHEMA = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))

ArrowArrayStream._fields_ = [
    ("get_schema", _GET_SCHEMA),
    ("get_next", _GET_NEXT),
    ("get_last_error", _GET_LAST_ERROR),
    ("release", ctypes.c_void_p),
    ("private_data", ctypes.c_void_p),
]

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class _Owned:
    """Releases a struct we own (moved out of a stream) when dropped."""

    def __init__(self, struct: Any, release_type: Any) -> None:
        self.struct = struct
        self._release_type = release_type

    def __del__(self) -> None:
        if self.struct.release:
            self._release_type(self.struct.release)(ctypes.byref(self.struct))


#: Names of the common non-float formats, for error messages.
_OTHER_NAMES = {b"n": "null", b"b": "bool", b"c": "int8", b"C": "uint8", b"s": "int16",
                b"S": "uint16", b"i": "int32", b"I": "uint32", b"l": "int64", b"L": "uint64",
                b"u": "string", b"U": "large_string", b"z": "binary", b"Z": "large_binary"}


class ArrowInterfaceError(ValueError):
    """A producer handed over C Data Interface structs that break the interface.

    What a consumer can check is checked before any buffer is read: a released
    struct, NULL callbacks of a stream, the buffer count, NULL buffers behind a
    non-empty array, counts that cannot be.  (The interface does not carry
    buffer sizes, so a producer that lies about those cannot be caught here.)
    """


def _float_type(schema: ArrowSchema) -> FloatType:
    if not schema.release:
        raise ArrowInterfaceError("the Arrow schema is released (its release callback is NULL)")
    fmt = schema.format or b""
    ft = BY_C_FORMAT.get(fmt)
    if ft is None or schema.dictionary:
        text = fmt.decode(errors="replace")
        name = _OTHER_NAMES.get(fmt)
        what = f"{name} (format {text!r})" if name else f"format {text!r}"
        if fmt == b"+s":  # a table, a record batch, a polars or DuckDB frame
            what = (f"a table or struct (format {text!r}); for one row per float column "
                    "use nanstats.arrow.summary_table(data, by=...)")
        raise UnsupportedDtypeError(
            "nanstats reads Arrow float16/float32/float64 arrays (formats 'e', 'f', 'g'), "
            f"not {what}")
    if schema.n_children != 0:
        raise ArrowInterfaceError(f"an Arrow {ft.physical_type.lower()} schema with "
                                  f"{schema.n_children} children")
    return ft


class _Memory:
    """Foreign memory as numpy sees it (``__array_interface__``), holding its owner.

    A numpy array made from it keeps it, and so the owner, alive.  Unlike a
    ctypes array of the same bytes, it makes no new type per length: a
    ctypes array type costs tens of microseconds to build, each call, since
    the views (and with them the types) die with the call.
    """

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, pointer: int, dtype: np.dtype[Any], count: int, owner: object) -> None:
        self.__array_interface__ = {"data": (pointer, True), "shape": (count,),
                                    "typestr": dtype.str, "version": 3}
        self.owner = owner


def _view(pointer: int, dtype: np.dtype[Any], count: int, owner: object) -> np.ndarray:
    """A read-only numpy view of ``count`` items at ``pointer``, keeping ``owner`` alive."""
    if count == 0:
        return np.zeros(0, dtype=dtype)
    arr: np.ndarray = np.asarray(_Memory(pointer, dtype, count, owner))
    return arr


# Lengths and offsets past this would overflow byte counts (int64, 8-byte values).
_MAX_ITEMS = 2**60


def _what(ft: FloatType, n: int, off: int) -> str:
    return f"Arrow {ft.physical_type.lower()} array (length {n}, offset {off})"


def _kernel_input(ft: FloatType, array: ArrowArray, owner: object) -> KernelInput:
    n, off = array.length, array.offset
    what = _what(ft, n, off)
    if not array.release:
        raise ArrowInterfaceError(f"the {what} is released (its release callback is NULL)")
    if array.n_buffers != 2 or not array.buffers:
        raise ArrowInterfaceError(f"the {what} has {array.n_buffers} buffers"
                                  f"{'' if array.buffers else ' (NULL)'}; a float array has 2")
    if array.n_children != 0 or array.dictionary:
        raise ArrowInterfaceError(f"the {what} has children or a dictionary")
    return _viewed(ft, n, off, array.null_count, array.buffers[1], array.buffers[0], owner)


def _viewed(ft: FloatType, n: int, off: int, nulls: int, data: int | None,
            validity: int | None, owner: object) -> KernelInput:
    """The input of an Arrow float array given by its fields (buffers as addresses)."""
    if n < 0 or off < 0 or n + off > _MAX_ITEMS:
        raise ArrowInterfaceError(f"malformed {_what(ft, n, off)}")
    if nulls < -1 or nulls > n:
        raise ArrowInterfaceError(f"the {_what(ft, n, off)} has null_count {nulls}")
    if n > 0 and not data:
        raise ArrowInterfaceError(f"the {_what(ft, n, off)} has a NULL data buffer")
    if nulls > 0 and not validity:
        raise ArrowInterfaceError(f"the {_what(ft, n, off)} has {nulls} nulls and a NULL "
                                  "validity buffer")
    bits = (_view(data, ft.bits_dtype, off + n, owner)[off:] if n > 0 and data
            else np.zeros(0, ft.bits_dtype))
    if not validity or nulls == 0:
        return KernelInput(ft, bits, _kernels.VALIDITY_NONE, NO_VALIDITY)
    bitmap = _view(validity, np.dtype(np.uint8), (off + n + 7) // 8, owner)
    return KernelInput(ft, bits, _kernels.VALIDITY_BITMAP, bitmap[off // 8:], off % 8)


# pyarrow's float array classes, read from their own attributes (the same
# fields the C Data Interface would export, without building its structs
# and capsules through ctypes: about 4 us a call less, several times that
# right after a scan has streamed the caches full).
_PYARROW_ARRAYS = {"HalfFloatArray", "FloatArray", "DoubleArray"}


def _pyarrow_chunks(obj: Any) -> list[KernelInput] | None:
    """The inputs of a pyarrow float Array or ChunkedArray; None for anything else."""
    cls = type(obj)
    if cls.__module__ != "pyarrow.lib":
        return None
    if cls.__name__ == "ChunkedArray":
        ft = BY_ARROW_NAME.get(str(obj.type))
        if ft is None:
            return None
        return [_pyarrow_input(ft, c) for c in obj.chunks] or [KernelInput.empty(ft)]
    if cls.__name__ in _PYARROW_ARRAYS:
        return [_pyarrow_input(BY_ARROW_NAME[str(obj.type)], obj)]
    return None


def _pyarrow_input(ft: FloatType, arr: Any) -> KernelInput:
    n, off = len(arr), arr.offset
    validity, data = arr.buffers()
    return _viewed(ft, n, off, arr.null_count, data.address if data is not None else None,
                   validity.address if validity is not None else None, arr)


def import_chunks(obj: Any) -> list[KernelInput]:
    """The float chunks of an object exposing the Arrow PyCapsule interface.

    A stream of no chunks gives one empty input of the stream's float type.
    """
    fast = _pyarrow_chunks(obj)
    if fast is not None:
        return fast
    if hasattr(obj, "__arrow_c_array__"):
        schema_capsule, array_capsule = obj.__arrow_c_array__()
        schema = ArrowSchema.from_address(_capsule_pointer(schema_capsule, b"arrow_schema"))
        array = ArrowArray.from_address(_capsule_pointer(array_capsule, b"arrow_array"))
        return [_kernel_input(_float_type(schema), array, (schema_capsule, array_capsule))]
    if hasattr(obj, "__arrow_c_stream__"):
        capsule = obj.__arrow_c_stream__()
        stream = ArrowArrayStream.from_address(
            _capsule_pointer(capsule, b"arrow_array_stream"))
        if not stream.release:
            raise ArrowInterfaceError("the Arrow stream is released (its release callback "
                                      "is NULL)")
        if not stream.get_schema or not stream.get_next:
            raise ArrowInterfaceError("the Arrow stream has a NULL get_schema or get_next "
                                      "callback")
        owned_schema = _Owned(ArrowSchema(), _RELEASE_SCHEMA)
        _check(stream, stream.get_schema(ctypes.byref(stream),
                                         ctypes.byref(owned_schema.struct)))
        ft = _float_type(owned_schema.struct)
        chunks = []
        while True:
            owned = _Owned(ArrowArray(), _RELEASE_ARRAY)
            _check(stream, stream.get_next(ctypes.byref(stream), ctypes.byref(owned.struct)))
            if not owned.struct.release:  # end of stream
                break
            chunks.append(_kernel_input(ft, owned.struct, (capsule, owned)))
        return chunks or [KernelInput.empty(ft)]
    raise TypeError(f"{type(obj).__name__} exposes neither __arrow_c_array__ nor "
                    "__arrow_c_stream__")


def _check(stream: ArrowArrayStream, code: int) -> None:
    if code != 0:
        msg = stream.get_last_error(ctypes.byref(stream)) if stream.get_last_error else None
        raise RuntimeError(f"Arrow stream error {code}: "
                           f"{(msg or b'').decode(errors='replace')}")
