"""Thrift compact encoding of the Parquet metadata structures.

The structures come from our IDL, ``parquet_metadata.thrift``, loaded by
thriftpy2.  Decoding and encoding use Apache Thrift's C-accelerated compact
codec (``thrift.protocol.fastbinary``), about ten times faster than a pure
Python codec on a large footer; when it is not installed, the Python codec
of :mod:`~nanstats.metadata.compact` does the same job more slowly.  Either
way the objects are thriftpy2 structs, compared with ``==`` and printed
field by field.

Nothing a writer set is lost: a field the IDL does not know (a newer
``LogicalType`` member, a vendor's field), or knows with another type, is
kept as read on the structure that held it, and :func:`encode` writes it
back (see :mod:`~nanstats.metadata.compact`).  The C codec would skip it, so
a structure it decoded is kept only if encoding it again gives back the
very bytes read; otherwise that structure is read by the Python codec,
which still hands every structure inside it to the C codec first.

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
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import thriftpy2

from nanstats.errors import ParquetFormatError
from nanstats.metadata import compact

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
        self.tell = tell  # the C codec's position (None without it)
        self.start = start

    def check(self, pos: int) -> None:
        allowed = (pos - self.start) // STRUCTS_PER_BYTE + _STRUCT_SLACK
        if self.built > allowed:
            raise _TooManyStructs(self.built, pos - self.start)
        self.next_check = allowed

    def count(self, pos: int) -> None:
        """One more structure, built by the Python reader at ``pos``."""
        self.built += 1
        if self.built > self.next_check:
            self.check(pos)


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
            budget.check(budget.tell())
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


_arg_lists: dict[type, list[Any]] = {}


def _args(cls: type) -> list[Any]:
    """The C codec's argument for a struct class: ``[cls, spec]`` (cached)."""
    args = _arg_lists.get(cls)
    if args is None:
        args = _arg_lists[cls] = [cls, _spec(cls)]
    return args


_plain_arg_lists: dict[type, list[Any] | None] = {}


def _holds_struct_lists(cls: type, seen: frozenset[type] = frozenset()) -> bool:
    """Whether a struct class holds, at any depth, a list of structures."""
    for entry in cls.thrift_spec.values():  # type: ignore[attr-defined]
        ttype = entry[0]
        arg: Any = entry[2] if len(entry) == 4 else None
        if ttype == _STRUCT:
            if arg not in seen and _holds_struct_lists(arg, seen | {cls}):
                return True
        elif ttype == _LIST:
            elem = arg[0] if isinstance(arg, tuple) else arg
            if elem in (_STRUCT, _LIST):
                return True
    return False


def _plain_args(cls: type) -> list[Any] | None:
    """The C codec's argument to decode a ``cls`` with nothing to count, or None (cached).

    A structure that holds no list of structures, at any depth, is built
    by the C codec straight from the IDL's classes: it cannot hold more
    structures than it has declared fields (a field read twice replaces the
    first), so the structures it builds need no counting.  Others (None)
    go through :func:`_budgeted` stand-ins (:func:`_args`).
    """
    if cls not in _plain_arg_lists:
        _plain_arg_lists[cls] = None if _holds_struct_lists(cls) else [cls, _plain_spec(cls)]
    return _plain_arg_lists[cls]


def _fast_args(cls: type) -> list[Any]:
    """The C codec's argument to decode a ``cls`` whole: :func:`_plain_args` when
    there is nothing to count, else :func:`_args`."""
    return _plain_args(cls) or _args(cls)


def _plain_spec(cls: type) -> tuple[Any, ...]:
    """As :func:`_spec`, building the IDL's classes themselves (no budget)."""
    fields = cls.thrift_spec  # type: ignore[attr-defined]
    slots: list[Any] = [None] * (max(fields, default=0) + 1)
    for fid, entry in fields.items():
        ttype = _STRING if entry[0] == _BINARY_THRIFTPY else entry[0]
        arg: Any = entry[2] if len(entry) == 4 else None
        targ = [arg, _plain_spec(arg)] if ttype == _STRUCT else _type_args(ttype, arg)
        slots[fid] = (fid, ttype, entry[1], targ, None)
    return tuple(slots)


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


class _Holder:
    """A structure of one field, ``v``: how the C codec reads a list on its own."""

    __slots__ = ("v",)

    def __init__(self, v: Any = None) -> None:
        self.v = v


#: Lists read whole by the C codec when their field header reads as a field
#: id up to this (a short header always does).
_HOLDER_FIDS = 64
_holders: dict[tuple[Any, int], list[Any]] = {}


def _holder_args(arg: Any, fid: int) -> list[Any]:
    """The C codec's argument for a _Holder whose field ``fid`` is a list of ``arg``."""
    key = (arg, fid)
    args = _holders.get(key)
    if args is None:
        spec: list[Any] = [None] * (fid + 1)
        spec[fid] = (fid, _LIST, "v", _type_args(_LIST, arg), None)
        args = _holders[key] = [_Holder, tuple(spec)]
    return args


def _header_length(fid: int) -> int:
    """Bytes of the header the C codec writes for field ``fid``, the first of a structure."""
    if fid <= 15:
        return 1
    zigzag = fid << 1
    return 1 + (1 if zigzag < 0x80 else 2 if zigzag < 0x4000 else 3)


#: Failed tries of the C codec on one kind of structure after which a buffer
#: reads that kind in Python only (unless the C codec read one whole).
_GIVE_UP = 8


class _Wire:
    """A buffer to decode structures from: the C codec where it loses nothing.

    The C codec skips what the IDL does not know; a structure it decoded is
    kept only when encoding it again gives back exactly the bytes it was
    read from (then nothing was skipped).  Otherwise the Python reader of
    :mod:`~nanstats.metadata.compact` reads that structure, keeping what is
    unknown, and tries the C codec again on each structure inside it: only
    the structures on the way to an unknown field are read in Python.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.budget = _Budget(None, 0)
        self.misses: dict[Any, int] = {}
        self.hits: set[Any] = set()
        if _fastbinary is not None:
            limit = max(len(data), 1)
            buf = _FastBuffer(data)
            self.stream = buf._buffer
            self.budget.tell = self.stream.tell
            self.prot = _FastProtocol(buf, string_length_limit=limit,
                                      container_length_limit=limit)

    def _worth_trying(self, key: Any) -> bool:
        """False once the C codec lost something of ``key`` (a class, a list's
        element spec) :data:`_GIVE_UP` times and never read one whole: a
        writer that adds a field to a structure adds it to every one."""
        return self.misses.get(key, 0) < _GIVE_UP or key in self.hits

    def _scored(self, key: Any, hit: bool) -> None:
        if hit:
            self.hits.add(key)
        else:
            self.misses[key] = self.misses.get(key, 0) + 1

    def _whole(self, cls: type, pos: int) -> tuple[Any, int] | None:
        """The structure at ``pos`` and its end, if the C codec decodes it whole."""
        budget = self.budget
        built, next_check = budget.built, budget.next_check
        args = _fast_args(cls)
        stream = self.stream
        stream.seek(pos)
        try:
            obj = _fastbinary.decode_compact(None, self.prot, args)
        except _TooManyStructs:
            raise
        except Exception:  # noqa: BLE001 - the Python reader says what is wrong
            obj = None
        if obj is not None:
            end = stream.tell()
            again = _fastbinary.encode_compact(obj, args)
            if len(again) == end - pos and self.data.startswith(again, pos):
                return obj, end
        budget.built, budget.next_check = built, next_check  # not kept: not counted
        return None

    def _lossless(self, args: list[Any], pos: int) -> tuple[Any, int] | None:
        """As ``_whole`` for a structure that holds no list of structures (``args``
        from :func:`_plain_args`): nothing to count, nothing to undo."""
        stream = self.stream
        stream.seek(pos)
        try:
            obj = _fastbinary.decode_compact(None, self.prot, args)
        except Exception:  # noqa: BLE001 - the Python reader says what is wrong
            return None
        end = stream.tell()
        again = _fastbinary.encode_compact(obj, args)
        if len(again) == end - pos and self.data.startswith(again, pos):
            return obj, end
        return None

    def fast(self, cls: type, pos: int) -> tuple[Any, int] | None:
        """As ``_whole``, for a structure inside one the Python reader reads."""
        if not self._worth_trying(cls):
            return None
        got = self._whole(cls, pos)
        if got is not None:
            self.budget.count(got[1])  # the structures inside it are counted as built
        self._scored(cls, got is not None)
        return got

    def fast_list(self, arg: Any, fid: int, header: int, pos: int) -> tuple[list[Any], int] | None:
        """A declared list at ``pos`` (its field header at ``header``, read alone as
        field ``fid``) and its end, if the C codec decodes it whole.

        The C codec decodes structures only: it reads one whose field ``fid``
        is the list, from the field header on (then passes over the rest of
        the enclosing structure), and the list is kept when encoding it again
        gives back the bytes read.
        """
        if not 0 < fid <= _HOLDER_FIDS or not self._worth_trying(arg):
            return None
        args = _holder_args(arg, fid)
        budget = self.budget
        built, next_check = budget.built, budget.next_check
        self.stream.seek(header)
        try:
            value = _fastbinary.decode_compact(None, self.prot, args).v
        except _TooManyStructs:
            raise
        except Exception:  # noqa: BLE001 - read element by element instead
            value = None
        if value is not None:
            again = _fastbinary.encode_compact(_Holder(v=value), args)
            body = again[_header_length(fid):-1]
            if self.data.startswith(body, pos):
                self._scored(arg, True)
                return value, pos + len(body)
        budget.built, budget.next_check = built, next_check
        self._scored(arg, False)
        return None

    def decode(self, cls: type[T], pos: int, name: str, path: object, base: int) -> tuple[T, int]:
        """The structure at ``pos`` and where it ends; ParquetFormatError naming ``base + pos``."""
        tried = False
        if _fastbinary is not None:
            args = _plain_args(cls)
            if args is not None:  # nothing to count: no budget to set up
                got = self._lossless(args, pos)
                if got is not None:
                    return got
                tried = True
        budget = self.budget
        budget.built, budget.next_check, budget.start = 0, _STRUCT_SLACK, pos
        _state.budget = budget
        try:
            if _fastbinary is not None and not tried:
                got = self._whole(cls, pos)
                if got is not None:
                    return got
            c = _fastbinary is not None
            reader = compact.Reader(self.data, pos, counted=budget.count,
                                    fast=self.fast if c else None,
                                    fast_list=self.fast_list if c else None)
            obj = reader.struct(cls, fast=False)
            return obj, reader.pos
        except _TooManyStructs as exc:
            raise ParquetFormatError(f"{name}: {exc}", path=path, offset=base + pos + exc.used
                                     ) from None
        except compact.WireError as exc:
            if exc.reason == "nesting too deep":
                raise ParquetFormatError(f"{name}: nesting too deep", path=path,
                                         offset=base + pos) from None
            raise ParquetFormatError(f"cannot decode {name}: {exc.reason}", path=path,
                                     offset=base + exc.pos) from None
        finally:
            _state.budget = None


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
    Fields the IDL does not know are kept (:mod:`~nanstats.metadata.compact`)
    and :func:`encode` writes them back.

    >>> kv = pq.KeyValue(key=b"k", value=b"v")
    >>> decode(pq.KeyValue, encode(kv) + b"more") == (kv, 7)
    True
    >>> decode(pq.KeyValue, b"\\x18\\x05k", path="f.parquet", offset=100)
    Traceback (most recent call last):
    ...
    nanstats.errors.ParquetFormatError: f.parquet: byte 101: cannot decode KeyValue: a string of length 5 does not fit in the 1 bytes left
    """
    return _Wire(bytes(data)).decode(cls, 0, what or cls.__name__, path, offset or 0)


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
        self._wire = _Wire(self.data)

    def decode_from(self, cls: type[T], offset: int, *, what: str | None = None
                    ) -> tuple[T, int]:
        """The struct at ``offset`` and the offset just past it (relative to the buffer).

        >>> kv = pq.KeyValue(key=b"k")
        >>> region = RegionDecoder(encode(kv) * 2, base=100)
        >>> region.decode_from(pq.KeyValue, 4) == (kv, 8)
        True
        """
        return self._wire.decode(cls, offset, what or cls.__name__, self.path, self.base)

    def decode_at(self, cls: type[T], offset: int, length: int, *, what: str | None = None
                  ) -> T:
        """The struct at ``offset``; ParquetFormatError if it does not fit in ``length``."""
        name = what or cls.__name__
        obj, end = self._wire.decode(cls, offset, name, self.path, self.base)
        if end - offset > length:
            raise ParquetFormatError(f"{name} takes {end - offset} bytes, more than its {length}",
                                     path=self.path, offset=self.base + offset)
        return obj


def _fast_encode(obj: Any, cls: type) -> bytes:
    return bytes(_fastbinary.encode_compact(obj, _args(cls)))


def encode_each(objs: Sequence[Any]) -> list[bytes]:
    """:func:`encode` of every structure, in one call (no set-up per structure).

    >>> encode_each([pq.KeyValue(key=b"k"), pq.KeyValue(value=b"v")])
    [b'\\x18\\x01k\\x00', b'(\\x01v\\x00']
    """
    if _fastbinary is None:  # pragma: no cover - exercised by the fallback test
        return [compact.write_struct(obj) for obj in objs]
    fast_encode = _fastbinary.encode_compact
    out: list[bytes] = []
    cls: type | None = None
    args: list[Any] = []
    for obj in objs:
        if compact.UNKNOWN in vars(obj):
            out.append(compact.write_struct(obj, fast=_fast_encode))
            continue
        if type(obj) is not cls:
            cls = type(obj)
            args = _args(cls)
        out.append(fast_encode(obj, args))
    return out


def encode(obj: Any) -> bytes:
    """The compact encoding of a struct, with the unknown fields it was decoded with.

    >>> encode(pq.KeyValue(key=b"k"))
    b'\\x18\\x01k\\x00'
    """
    if _fastbinary is None:  # pragma: no cover - exercised by the fallback test
        return compact.write_struct(obj)
    if compact.UNKNOWN in vars(obj):
        return compact.write_struct(obj, fast=_fast_encode)
    return bytes(_fastbinary.encode_compact(obj, _args(type(obj))))
