"""The Thrift compact encoding in Python, keeping every field the IDL does not know.

Apache Thrift's C codec (:mod:`nanstats.metadata.thrift` decodes with it)
skips a field whose id the IDL does not declare, or whose wire type is not
the declared one, and so does any reader built from an IDL: the value is
gone.  A newer writer's field (a new ``LogicalType`` member, a vendor's
field in ``ColumnMetaData``) would then be lost by a rewrite.  This reader
keeps each such field, as its id, its wire type and its encoded value, on
the structure that held it (:func:`unknown_fields`); the writer puts them
back among the known fields in field-id order.  A structure holding unknown
fields, or holding one that does (at any depth), carries the attribute
:data:`UNKNOWN`; :func:`replace` and :func:`copy.copy` keep it, a structure
built anew does not.

Every read is bounded: a length or count must fit in the bytes left,
nesting is limited to :data:`MAX_DEPTH`, and a malformed encoding raises
:class:`WireError` at its byte.

>>> from nanstats.metadata.thrift import pq
>>> raw = bytes([0x18, 1, 0x78, 0x18, 1, 0x79]) + bytes([0x58, 2, 0x68, 0x69, 0])
>>> kv = read_struct(pq.KeyValue, raw)[0]        # key 'x', value 'y', field 7 'hi' (unknown)
>>> kv.key, kv.value, unknown_fields(kv)
(b'x', b'y', ((7, 8, b'\\x02hi'),))
>>> write_struct(kv) == raw
True
"""

from __future__ import annotations

import operator
import struct
from collections.abc import Callable
from typing import Any, TypeVar

from thriftpy2.thrift import TType

#: The attribute of a structure holding its unknown fields (a tuple of
#: :data:`RawField`, empty when only structures below it hold some).
UNKNOWN = "_unknown"

#: A field kept as read: (field id, compact wire type, the encoded value).
RawField = tuple[int, int, bytes]

#: Nesting of structures and containers allowed (the C codec's limit too).
MAX_DEPTH = 64

T = TypeVar("T")

# Compact wire types.
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY = 1, 2, 3, 4, 5, 6, 7, 8
_LIST, _SET, _MAP, _STRUCT, _UUID = 9, 10, 11, 12, 13
_FIXED = {_BYTE: 1, _DOUBLE: 8, _UUID: 16}  # wire types of a fixed size (bool: 1 in containers)

#: The compact wire type of each thriftpy2 type (bool: the ``true`` code).
_WIRE = {TType.BOOL: _TRUE, TType.BYTE: _BYTE, TType.I16: _I16, TType.I32: _I32,
         TType.I64: _I64, TType.DOUBLE: _DOUBLE, TType.STRING: _BINARY, TType.BINARY: _BINARY,
         TType.LIST: _LIST, TType.STRUCT: _STRUCT}
_INT_BITS = {_I16: 16, _I32: 32, _I64: 64}
_VARINT_BYTES = {16: 3, 32: 5, 64: 10}


class WireError(Exception):
    """A malformed compact encoding: what is wrong, and at which byte of the buffer."""

    def __init__(self, reason: str, pos: int) -> None:
        super().__init__(f"{reason} (byte {pos})")
        self.reason = reason
        self.pos = pos


class _Field:
    """One declared field: its id, attribute name, thriftpy2 type and argument."""

    __slots__ = ("fid", "name", "ttype", "wire", "arg")

    def __init__(self, fid: int, name: str, ttype: int, arg: Any) -> None:
        if ttype not in _WIRE:
            raise NotImplementedError(f"field {name}: thrift type {ttype} is not supported")
        self.fid, self.name, self.ttype, self.wire, self.arg = fid, name, ttype, _WIRE[ttype], arg


_tables: dict[type, tuple[dict[int, _Field], tuple[_Field, ...]]] = {}


def _table(cls: type) -> tuple[dict[int, _Field], tuple[_Field, ...]]:
    """The declared fields of a thriftpy2 struct class, by id and in id order (cached)."""
    table = _tables.get(cls)
    if table is None:
        fields = {fid: _Field(fid, entry[1], entry[0], entry[2] if len(entry) == 4 else None)
                  for fid, entry in cls.thrift_spec.items()}  # type: ignore[attr-defined]
        table = _tables[cls] = (fields, tuple(fields[f] for f in sorted(fields)))
    return table


def _element(arg: Any) -> tuple[int, Any]:
    """A list's element type and argument, from thriftpy2's spec."""
    return arg if isinstance(arg, tuple) else (arg, None)


def unknown_fields(obj: Any) -> tuple[RawField, ...]:
    """The fields of a decoded structure that the IDL does not know, as read.

    >>> from nanstats.metadata.thrift import pq
    >>> unknown_fields(pq.KeyValue(key=b"k"))
    ()
    """
    fields: tuple[RawField, ...] = vars(obj).get(UNKNOWN, ())
    return fields


def replace(obj: T, **changes: Any) -> T:
    """A copy of a structure with some fields changed; all others kept, unknown fields too.

    >>> from nanstats.metadata.thrift import pq
    >>> loc = read_struct(pq.PageLocation, bytes([0x16, 8, 0x05, 0xa0, 0x1f, 0x02, 0]))[0]
    >>> moved = replace(loc, offset=100)
    >>> moved.offset, unknown_fields(moved)
    (100, ((2000, 5, b'\\x02'),))
    """
    new = object.__new__(type(obj))  # copy.copy, without its generic machinery
    vars(new).update(vars(obj))
    vars(new).update(changes)
    return new


def keep_unknown(new: T, old: Any) -> T:
    """Give ``new`` (a structure built anew in place of ``old``) the unknown fields of ``old``.

    >>> from nanstats.metadata.thrift import pq
    >>> old = read_struct(pq.KeyValue, bytes([0x05, 0xd0, 0x0f, 0x02, 0]))[0]
    >>> unknown_fields(keep_unknown(pq.KeyValue(key=b"new"), old))
    ((1000, 5, b'\\x02'),)
    """
    held = vars(old).get(UNKNOWN)
    if held is not None:
        vars(new)[UNKNOWN] = held
    return new


def _holds_unknown(value: Any, field: _Field) -> bool:
    if field.ttype == TType.STRUCT:
        return UNKNOWN in vars(value)
    if field.ttype == TType.LIST and _element(field.arg)[0] == TType.STRUCT:
        return any(UNKNOWN in vars(v) for v in value)
    return False


# ----------------------------------------------------------------------- reading


class _Mismatch(Exception):
    """A declared list whose elements are not of the declared type: kept raw instead."""


class Reader:
    """Reads structures from ``data``, starting at ``pos``.

    ``fast(cls, pos)`` may decode a whole structure at once (the C codec):
    it returns the structure and where it ends only when nothing of it was
    lost, else None; ``fast_list(arg, fid, header, pos)`` the same for a
    declared list (thriftpy2's element spec ``arg``) whose field header at
    ``header`` reads as field ``fid`` on its own, its value at ``pos``.
    ``counted(pos)`` is called for each structure built here, with the
    position reached (to bound what a decode builds).
    """

    def __init__(self, data: bytes, pos: int = 0, *,
                 fast: Callable[[type, int], tuple[Any, int] | None] | None = None,
                 fast_list: Callable[[Any, int, int, int], tuple[list[Any], int] | None]
                 | None = None,
                 counted: Callable[[int], None] | None = None) -> None:
        self.data = data
        self.pos = pos
        self.end = len(data)
        self.fast = fast
        self.fast_list = fast_list
        self.counted = counted

    # -- primitives

    def _take(self, n: int) -> int:
        """Advance by ``n`` bytes; the position they start at."""
        pos = self.pos
        if n > self.end - pos:
            raise WireError(f"{n} bytes needed, {self.end - pos} left", pos)
        self.pos = pos + n
        return pos

    def _byte(self) -> int:
        return self.data[self._take(1)]

    def _varint(self, bits: int) -> int:
        """An unsigned varint, cut to ``bits`` bits as the C codec does."""
        data, pos, end = self.data, self.pos, self.end
        result = shift = 0
        for _ in range(_VARINT_BYTES[bits]):
            if pos >= end:
                raise WireError("the data ends inside a varint", pos)
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                self.pos = pos
                return result & ((1 << bits) - 1)
            shift += 7
        raise WireError(f"a varint longer than {_VARINT_BYTES[bits]} bytes", self.pos)

    def _int(self, bits: int) -> int:
        u = self._varint(bits)
        return (u >> 1) ^ -(u & 1)

    def _size(self, least: int, what: str) -> int:
        """A length or count, checked against the bytes left (``least`` bytes per item)."""
        at = self.pos
        n = self._varint(32)
        if n * least > self.end - self.pos:
            raise WireError(f"{what} {n} does not fit in the {self.end - self.pos} bytes "
                            "left", at)
        return n

    def _list_header(self) -> tuple[int, int]:
        at = self.pos
        b = self._byte()
        wire = b & 0x0F
        if wire > _UUID:
            raise WireError(f"a list of unknown wire type {wire}", at)
        n = b >> 4
        if n == 15:
            n = self._size(1, "a list of length")
        elif n > self.end - self.pos:
            raise WireError(f"a list of length {n} does not fit in the {self.end - self.pos} "
                            "bytes left", at)
        return n, wire

    # -- structures

    def struct(self, cls: type[T], depth: int = 0, *, fast: bool = True) -> T:
        """Read one structure of ``cls`` (``fast``: try the C codec first)."""
        if depth >= MAX_DEPTH:
            raise WireError("nesting too deep", self.pos)
        if fast and self.fast is not None:
            got = self.fast(cls, self.pos)
            if got is not None:
                obj, self.pos = got
                return obj  # type: ignore[no-any-return]
        by_id, _ = _table(cls)
        values: dict[str, Any] = {}
        unknown: list[RawField] = []
        below = False
        last = 0
        while True:
            at = self.pos
            b = self._byte()
            wire = b & 0x0F
            if wire == 0:
                break
            if wire > _UUID:
                raise WireError(f"a field of unknown wire type {wire}", at)
            delta = b >> 4
            fid = ((last + delta + 0x8000) & 0xFFFF) - 0x8000 if delta else self._int(16)
            last = fid
            field = by_id.get(fid)
            start = self.pos
            if field is not None and (field.wire == wire or
                                      (field.wire == _TRUE and wire == _FALSE)):
                if wire == _LIST and self.fast_list is not None:
                    got = self.fast_list(field.arg, delta or fid, at, start)
                    if got is not None:  # the C codec's: nothing unknown inside
                        values[field.name], self.pos = got
                        continue
                try:
                    value = self._value(field.ttype, field.arg, wire, depth)
                except _Mismatch:
                    self.pos = start
                else:
                    values[field.name] = value
                    below = below or (field.wire in (_STRUCT, _LIST) and
                                      _holds_unknown(value, field))
                    continue
            self._skip(wire, depth, in_field=True)
            unknown.append((fid, wire, self.data[start:self.pos]))
        obj = cls(**values)
        if unknown or below:
            vars(obj)[UNKNOWN] = tuple(unknown)
        if self.counted is not None:
            self.counted(self.pos)
        return obj

    def _value(self, ttype: int, arg: Any, wire: int, depth: int) -> Any:
        if ttype == TType.BOOL:
            return wire == _TRUE
        if wire in _INT_BITS:
            return self._int(_INT_BITS[wire])
        if ttype == TType.STRUCT:
            return self.struct(arg, depth + 1)
        if ttype == TType.BYTE:
            b = self._byte()
            return b - 256 if b > 127 else b
        if ttype == TType.DOUBLE:
            return struct.unpack_from("<d", self.data, self._take(8))[0]
        if ttype in (TType.STRING, TType.BINARY):
            n = self._size(1, "a string of length")
            return self.data[self._take(n):self.pos]
        # A list.
        if depth + 1 >= MAX_DEPTH:
            raise WireError("nesting too deep", self.pos)
        n, elem_wire = self._list_header()
        elem_type, elem_arg = _element(arg)
        expected = _WIRE[elem_type]
        if n and not (elem_wire == expected or (expected == _TRUE and elem_wire == _FALSE)):
            raise _Mismatch
        if elem_type == TType.BOOL:
            return [b == _TRUE for b in self.data[self._take(n):self.pos]]
        return [self._value(elem_type, elem_arg, expected, depth + 1) for _ in range(n)]

    def _skip(self, wire: int, depth: int, *, in_field: bool = False) -> None:
        """Pass over one value of a wire type, checking its structure."""
        if wire in (_TRUE, _FALSE):
            if not in_field:
                self._take(1)
        elif wire in _FIXED:
            self._take(_FIXED[wire])
        elif wire in _INT_BITS:
            self._varint(_INT_BITS[wire])
        elif wire == _BINARY:
            self._take(self._size(1, "a string of length"))
        elif depth + 1 >= MAX_DEPTH:
            raise WireError("nesting too deep", self.pos)
        elif wire in (_LIST, _SET):
            n, elem = self._list_header()
            if not n:
                return
            if elem == 0:
                raise WireError("a list of wire type 0", self.pos)
            if elem in (_TRUE, _FALSE) or elem in _FIXED:
                self._take(n * _FIXED.get(elem, 1))
            elif elem == _STRUCT:
                data, end = self.data, self.end
                for _ in range(n):
                    if self.pos < end and data[self.pos] == 0:  # an empty struct
                        self.pos += 1
                    else:
                        self._skip(_STRUCT, depth + 1)
            else:
                for _ in range(n):
                    self._skip(elem, depth + 1)
        elif wire == _MAP:
            n = self._size(2, "a map of size")
            if not n:
                return
            at = self.pos
            kv = self._byte()
            key, value = kv >> 4, kv & 0x0F
            if not (0 < key <= _UUID and 0 < value <= _UUID):
                raise WireError(f"a map of wire types {key} and {value}", at)
            for _ in range(n):
                self._skip(key, depth + 1)
                self._skip(value, depth + 1)
        elif wire == _STRUCT:
            while True:
                at = self.pos
                b = self._byte()
                inner = b & 0x0F
                if inner == 0:
                    return
                if inner > _UUID:
                    raise WireError(f"a field of unknown wire type {inner}", at)
                if not b >> 4:
                    self._varint(16)
                self._skip(inner, depth + 1, in_field=True)
        else:  # pragma: no cover - callers pass wire types 1..13
            raise WireError(f"unknown wire type {wire}", self.pos)


def read_struct(cls: type[T], data: bytes, pos: int = 0) -> tuple[T, int]:
    """One structure of ``cls`` at ``pos`` (Python only), and where it ends.

    >>> from nanstats.metadata.thrift import pq
    >>> read_struct(pq.KeyValue, bytes([0x18, 1, 0x6b, 0]))
    (KeyValue(key=b'k', value=None), 4)
    """
    reader = Reader(data, pos)
    return reader.struct(cls), reader.pos


# ----------------------------------------------------------------------- writing


def _varint(out: bytearray, u: int) -> None:
    while u > 0x7F:
        out.append((u & 0x7F) | 0x80)
        u >>= 7
    out.append(u)


def _zigzag(out: bytearray, value: Any, bits: int) -> None:
    v = operator.index(value)
    if not -(1 << (bits - 1)) <= v < (1 << (bits - 1)):
        raise OverflowError(f"{v} does not fit in i{bits}")
    _varint(out, (v << 1) ^ (v >> (bits - 1)))


def _header(out: bytearray, last: int, fid: int, wire: int) -> None:
    delta = fid - last
    if 0 < delta <= 15:
        out.append(delta << 4 | wire)
    else:
        out.append(wire)
        _zigzag(out, fid, 16)


def write_struct(obj: Any, cls: type | None = None, *,
                 fast: Callable[[Any, type], bytes] | None = None) -> bytes:
    """The compact encoding of a structure, its unknown fields among the known ones.

    ``fast(obj, cls)`` encodes a structure that holds no unknown field (the
    C codec); without it everything is written here.  A known field that is
    set replaces an unknown field of the same id (one read with another
    wire type).

    >>> from nanstats.metadata.thrift import pq
    >>> write_struct(pq.KeyValue(key=b"k"))
    b'\\x18\\x01k\\x00'
    """
    out = bytearray()
    _write_struct(out, obj, type(obj) if cls is None else cls, fast)
    return bytes(out)


def _write_struct(out: bytearray, obj: Any, cls: type,
                  fast: Callable[[Any, type], bytes] | None) -> None:
    held = vars(obj).get(UNKNOWN)
    if held is None and fast is not None:
        out += fast(obj, cls)
        return
    by_id, ordered = _table(cls)
    items: list[tuple[int, int, Any]] = []
    for field in ordered:
        value = getattr(obj, field.name, None)
        if value is not None:
            items.append((field.fid, 0, (field, value)))
    if held:
        known = {fid for fid, _, _ in items}
        items.extend((fid, 1, (wire, raw)) for fid, wire, raw in held if fid not in known)
        items.sort(key=lambda item: (item[0], item[1]))
    last = 0
    for fid, kind, payload in items:
        if kind:
            wire, raw = payload
            _header(out, last, fid, wire)
            out += raw
        else:
            field, value = payload
            if field.ttype == TType.BOOL:
                _header(out, last, fid, _TRUE if value else _FALSE)
            else:
                _header(out, last, fid, field.wire)
                _write_value(out, field.ttype, field.arg, value, fast)
        last = fid
    out.append(0)


def _write_value(out: bytearray, ttype: int, arg: Any, value: Any,
                 fast: Callable[[Any, type], bytes] | None) -> None:
    if ttype == TType.STRUCT:
        _write_struct(out, value, arg, fast)
    elif ttype == TType.I32:
        _zigzag(out, value, 32)
    elif ttype == TType.I64:
        _zigzag(out, value, 64)
    elif ttype in (TType.STRING, TType.BINARY):
        raw = value.encode("utf-8") if isinstance(value, str) else bytes(memoryview(value))
        _varint(out, len(raw))
        out += raw
    elif ttype == TType.LIST:
        elem_type, elem_arg = _element(arg)
        n = len(value)
        wire = _WIRE[elem_type]
        if n <= 14:
            out.append(n << 4 | wire)
        else:
            out.append(0xF0 | wire)
            _varint(out, n)
        for item in value:
            _write_value(out, elem_type, elem_arg, item, fast)
    elif ttype == TType.BOOL:  # in a list (a field's bool is in its header)
        out.append(_TRUE if value else _FALSE)
    elif ttype == TType.I16:
        _zigzag(out, value, 16)
    elif ttype == TType.BYTE:
        v = operator.index(value)
        if not -128 <= v <= 127:
            raise OverflowError(f"{v} does not fit in a byte")
        out.append(v & 0xFF)
    else:  # DOUBLE
        out += struct.pack("<d", value)
