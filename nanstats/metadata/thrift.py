"""Thrift compact encoding of the Parquet metadata structures.

The structures come from our IDL, ``parquet_metadata.thrift``, loaded by
thriftpy2.  Decoding and encoding use Apache Thrift's C-accelerated compact
codec (``thrift.protocol.fastbinary``), about ten times faster than a pure
Python codec on a large footer; when it is not installed, thriftpy2's own
compact protocol does the same job more slowly.  Either way the objects are
thriftpy2 structs, compared with ``==`` and printed field by field.

Every decode is bounded: strings and lists can be no longer than the bytes
they are read from, nesting is limited, the structures built are paid for by
the bytes read (see :data:`STRUCTS_PER_BYTE`), and any failure becomes a
:class:`~nanstats.errors.ParquetFormatError` naming the file and offset.

>>> ph = pq.PageHeader(type=pq.PAGE_DATA, uncompressed_page_size=8, compressed_page_size=8)
>>> raw = encode(ph)
>>> decode(pq.PageHeader, raw + b"page bytes")
(PageHeader(type=0, uncompressed_page_size=8, compressed_page_size=8, crc=None, data_page_header=None, index_page_header=None, dictionary_page_header=None, data_page_header_v2=None), 7)
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any, TypeVar

import thriftpy2

from nanstats.errors import ParquetFormatError

_IDL = os.path.join(os.path.dirname(__file__), "parquet_metadata.thrift")

if TYPE_CHECKING:
    # The structures' types, generated from the IDL by tools/thrift_stub.py.
    from nanstats.metadata import parquet_idl

    pq = parquet_idl
else:
    #: The loaded IDL: ``pq.FileMetaData``, ``pq.Statistics``, ``pq.TYPE_FLOAT``, ...
    pq = thriftpy2.load(_IDL, module_name="nanstats_parquet_thrift")

T = TypeVar("T")

try:  # Apache Thrift's C codec; optional
    from thrift.protocol import fastbinary as _fastbinary
    from thrift.protocol.TCompactProtocol import TCompactProtocolAccelerated as _FastProtocol
    from thrift.transport.TTransport import TMemoryBuffer as _FastBuffer
except ImportError:  # pragma: no cover - exercised by the fallback test
    _fastbinary = None

_BINARY_THRIFTPY = 18  # thriftpy2's TType.BINARY; on the wire it is a STRING
_STRING, _STRUCT, _LIST = 11, 12, 15

_specs: dict[type, tuple[Any, ...]] = {}

#: At most one structure per this many bytes read (plus :data:`_STRUCT_SLACK`).
#: A structure takes one byte at least (its stop byte) but costs a few hundred
#: bytes of Python objects; a list of millions of empty structures would cost
#: gigabytes before any check could see it is absurd.  Valid metadata stays
#: far below one structure per two bytes (an empty ``TypeDefinedOrder`` in
#: its ``ColumnOrder`` takes 3 bytes for 2 structures, but each such column
#: also has its schema element, at least 5 bytes; a column chunk with its
#: metadata takes 20 bytes at the very least).
STRUCTS_PER_BYTE = 2
_STRUCT_SLACK = 1024


class _Budget:
    """The structures one decode may still build, checked against the bytes read."""

    __slots__ = ("built", "next_check", "tell", "start")

    def __init__(self, tell: Any, start: int) -> None:
        self.built = 0
        self.next_check = _STRUCT_SLACK
        self.tell = tell
        self.start = start

    def check(self) -> None:
        allowed = (self.tell() - self.start) // STRUCTS_PER_BYTE + _STRUCT_SLACK
        if self.built > allowed:
            raise _TooManyStructs(self.built, self.tell() - self.start)
        self.next_check = allowed


class _TooManyStructs(Exception):
    def __init__(self, built: int, used: int) -> None:
        super().__init__(f"{built} structures in its first {used} bytes: more than valid "
                         "metadata holds (a list of empty structures?)")
        self.used = used


_state = threading.local()


def _budgeted(cls: type) -> type:
    """A stand-in for ``cls`` that the C codec calls to build each struct.

    It counts the structure against the running decode's budget, then builds
    the thriftpy2 struct itself (so callers see ``cls`` instances only).
    """
    def __new__(_: type, **fields: Any) -> Any:
        budget = _state.budget
        budget.built += 1
        if budget.built > budget.next_check:
            budget.check()
        return cls(**fields)

    return type(f"Budgeted{cls.__name__}", (), {"__new__": __new__})


def _type_args(ttype: int, arg: Any) -> Any:
    if ttype == _STRUCT:
        return [_budgeted(arg), _spec(arg)]
    if ttype == _LIST:
        elem_type, elem_arg = arg if isinstance(arg, tuple) else (arg, None)
        elem_type = _STRING if elem_type == _BINARY_THRIFTPY else elem_type
        return (elem_type, _type_args(elem_type, elem_arg), False)
    if ttype == _STRING:
        return "BINARY"
    return None


def _spec(cls: type) -> tuple[Any, ...]:
    """Apache Thrift's spec tuple for a thriftpy2 struct class (cached)."""
    spec = _specs.get(cls)
    if spec is None:
        fields = cls.thrift_spec  # type: ignore[attr-defined]
        slots: list[Any] = [None] * (max(fields, default=0) + 1)
        for fid, entry in fields.items():
            ttype = _STRING if entry[0] == _BINARY_THRIFTPY else entry[0]
            arg = entry[2] if len(entry) == 4 else None
            slots[fid] = (fid, ttype, entry[1], _type_args(ttype, arg), None)
        spec = _specs[cls] = tuple(slots)
    return spec


def decode(
    cls: type[T],
    data: bytes | memoryview,
    *,
    path: object = None,
    offset: int | None = None,
    what: str | None = None,
) -> tuple[T, int]:
    """Decode one ``cls`` struct from the start of ``data``.

    Returns the struct and the number of bytes it took.  ``path`` and
    ``offset`` (where ``data`` starts in the file) only label errors.
    """
    name = what or cls.__name__
    data = bytes(data)
    limit = max(len(data), 1)
    try:
        if _fastbinary is not None:
            buf = _FastBuffer(data)
            prot = _FastProtocol(buf, string_length_limit=limit, container_length_limit=limit)
            _state.budget = _Budget(buf._buffer.tell, 0)
            obj = _fastbinary.decode_compact(None, prot, [cls, _spec(cls)])
            used = buf._buffer.tell()
        else:  # pragma: no cover - exercised by the fallback test
            obj, used = _decode_pure(cls, data)
    except _TooManyStructs as exc:
        raise ParquetFormatError(f"{name}: {exc}", path=path,
                                 offset=None if offset is None else offset + exc.used) from None
    except RecursionError:
        raise ParquetFormatError(f"{name}: nesting too deep", path=path, offset=offset) from None
    except Exception as exc:  # noqa: BLE001 - any codec failure means a corrupt structure
        raise ParquetFormatError(
            f"cannot decode {name} ({type(exc).__name__}: {exc})", path=path, offset=offset
        ) from None
    finally:
        _state.budget = None  # let the buffer go
    return obj, used


class RegionDecoder:
    """Decode many structs from one buffer without per-struct set-up.

    ``decode_at(cls, offset, length)`` decodes the struct that starts at
    ``offset`` (relative to the buffer) and must end within ``length`` bytes.
    ``base`` is the buffer's offset in the file, for error messages.
    """

    def __init__(self, data: bytes | memoryview, *, base: int = 0, path: object = None) -> None:
        self.data = bytes(data)
        self.base = base
        self.path = path
        self._buf = _FastBuffer(self.data) if _fastbinary is not None else None
        limit = max(len(self.data), 1)
        self._prot = (_FastProtocol(self._buf, string_length_limit=limit,
                                    container_length_limit=limit)
                      if self._buf is not None else None)

    def decode_at(self, cls: type[T], offset: int, length: int, *, what: str | None = None
                  ) -> T:
        """The struct at ``offset``; ParquetFormatError if it does not fit in ``length``."""
        where = self.base + offset
        if self._prot is None:  # pragma: no cover - without the C codec
            obj, used = decode(cls, self.data[offset:offset + length], path=self.path,
                               offset=where, what=what)
            return obj
        name = what or cls.__name__
        assert self._buf is not None
        try:
            self._buf._buffer.seek(offset)
            _state.budget = _Budget(self._buf._buffer.tell, offset)
            obj = _fastbinary.decode_compact(None, self._prot, [cls, _spec(cls)])
            used = self._buf._buffer.tell() - offset
        except _TooManyStructs as exc:
            raise ParquetFormatError(f"{name}: {exc}", path=self.path,
                                     offset=where + exc.used) from None
        except RecursionError:
            raise ParquetFormatError(f"{name}: nesting too deep", path=self.path,
                                     offset=where) from None
        except Exception as exc:  # noqa: BLE001 - any codec failure means a corrupt structure
            raise ParquetFormatError(f"cannot decode {name} ({type(exc).__name__}: {exc})",
                                     path=self.path, offset=where) from None
        finally:
            _state.budget = None
        if used > length:
            raise ParquetFormatError(f"{name} takes {used} bytes, more than its {length}",
                                     path=self.path, offset=where)
        return obj


def _decode_pure(cls: type[T], data: bytes) -> tuple[T, int]:
    import io

    from thriftpy2.protocol import TCompactProtocol

    buf = io.BytesIO(data)
    obj = cls()
    TCompactProtocol(buf).read_struct(obj)  # type: ignore[no-untyped-call]
    return obj, buf.tell()


def encode(obj: Any) -> bytes:
    """The compact encoding of a struct."""
    if _fastbinary is not None:
        return bytes(_fastbinary.encode_compact(obj, [type(obj), _spec(type(obj))]))
    from thriftpy2.protocol import TCompactProtocolFactory  # pragma: no cover
    from thriftpy2.utils import serialize  # pragma: no cover

    factory = TCompactProtocolFactory()  # type: ignore[no-untyped-call]  # pragma: no cover
    return bytes(serialize(obj, factory))  # pragma: no cover
