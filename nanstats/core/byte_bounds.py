"""Shortened bounds for BYTE_ARRAY (string) columns.

A lower bound may be replaced by anything smaller, an upper bound by anything
larger (SPEC.md section 5): long strings need not be copied whole into the
page index.  Parquet orders byte arrays (and UTF-8 strings) byte-wise,
unsigned, a shorter prefix first.

``truncate_min`` keeps a prefix: every prefix of a string sorts before it.
``truncate_max`` keeps a prefix and increments its last byte, carrying past
0xFF by dropping trailing 0xFF bytes (``b"ab\\xff"`` becomes ``b"ac"``); the
result sorts after every string that starts with the kept prefix.  A value
of only 0xFF bytes has no shorter upper bound and is returned whole.

Both return ``(bound, exact)``: ``exact`` is True exactly when the bound is
the value itself.

UTF-8 mode (``utf8=True``, for STRING columns) keeps bounds valid UTF-8, as
parquet-java and arrow-rs do for strings: a min is cut at a character
boundary, never inside a multi-byte character; a max has its last kept
*character* incremented (skipping the surrogate block, which UTF-8 cannot
encode), dropping characters from the end while the incremented one would
not fit in ``n`` bytes or is already U+10FFFF; if no character is left the
value is kept whole.  A value that is not valid UTF-8 is truncated byte-wise.
Since UTF-8 byte order is code point order, the bounds stay correct.

Choose one mode per column and derive ``boundary_order`` from the stored
(shortened) bounds.  Byte-wise truncation to a fixed ``n`` keeps sorted lists
sorted (it is monotonic), so pages of sorted data keep an ``ASCENDING``
index.  UTF-8 mode is not monotonic: a cut moved back to a character
boundary can put a neighbour out of order, and then only the stored bounds
tell the truth:

>>> a, b = "aé!".encode(), "a😀".encode()      # a < b
>>> truncate_min(a, 3, utf8=True)[0] > truncate_min(b, 3, utf8=True)[0]
True

>>> truncate_min(b"Slartibartfast", 3)
(b'Sla', False)
>>> truncate_max(b"Slartibartfast", 3)
(b'Slb', False)
>>> truncate_max(b"Sl\\xff\\xffx", 4)
(b'Sm', False)
>>> truncate_max(b"\\xff\\xff\\xff", 2)
(b'\\xff\\xff\\xff', True)
>>> truncate_max(b"Bob", 5)
(b'Bob', True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from nanstats.core.rules import BoundaryOrder, boundary_order

_MAX_CODE_POINT = 0x10FFFF
_SURROGATES = range(0xD800, 0xE000)


def truncate_min(value: bytes, n: int, *, utf8: bool = False) -> tuple[bytes, bool]:
    """A lower bound of at most ``n`` bytes for ``value``, and whether it is exact.

    Byte-wise: the first ``n`` bytes.  ``utf8=True`` with valid UTF-8: the
    longest prefix of whole characters that fits, possibly empty.

    >>> truncate_min(b"Blart Versenwald III", 2)
    (b'Bl', False)
    >>> truncate_min("Zoë".encode(), 3, utf8=True)      # 'ë' takes 2 bytes
    (b'Zo', False)
    >>> truncate_min("Zoë".encode(), 3)
    (b'Zo\\xc3', False)
    >>> truncate_min(b"Ann", 3)
    (b'Ann', True)
    """
    value = _as_bytes(value, n)
    if len(value) <= n:
        return value, True
    cut = n
    if utf8 and _is_utf8(value):
        # Bytes 10xxxxxx continue a character: back off to its lead byte.
        while cut > 0 and value[cut] & 0xC0 == 0x80:
            cut -= 1
    return value[:cut], False


def truncate_max(value: bytes, n: int, *, utf8: bool = False) -> tuple[bytes, bool]:
    """An upper bound of at most ``n`` bytes for ``value``, and whether it is exact.

    The shortest bound this scheme allows: the kept prefix with its last byte
    (``utf8=True``: last character) incremented.  When no such bound exists
    (the prefix is all 0xFF bytes, or all U+10FFFF characters, or ``n`` is 0)
    the value itself is returned, exact.

    >>> truncate_max(b"Blart Versenwald III", 2)
    (b'Bm', False)
    >>> truncate_max("Zoë".encode(), 3, utf8=True)      # 'o' + 1 = 'p'
    (b'Zp', False)
    >>> truncate_max("a\\u07ff\\u07ffb".encode(), 5, utf8=True)   # U+0800 needs 3 bytes
    (b'a\\xe0\\xa0\\x80', False)
    >>> truncate_max("a\\U0010ffffb".encode(), 5, utf8=True)       # U+10FFFF is dropped
    (b'b', False)
    """
    value = _as_bytes(value, n)
    if len(value) <= n:
        return value, True
    if utf8 and _is_utf8(value):
        return _truncate_max_utf8(value, n)
    kept = bytearray(value[:n])
    while kept and kept[-1] == 0xFF:
        kept.pop()
    if not kept:
        return value, True
    kept[-1] += 1
    return bytes(kept), False


def _truncate_max_utf8(value: bytes, n: int) -> tuple[bytes, bool]:
    """``truncate_max`` for valid UTF-8 longer than ``n`` bytes."""
    chars = list(truncate_min(value, n, utf8=True)[0].decode())
    while chars:
        code = ord(chars.pop()) + 1
        if code in _SURROGATES:
            code = _SURROGATES.stop
        if code > _MAX_CODE_POINT:
            continue
        candidate = ("".join(chars) + chr(code)).encode()
        if len(candidate) <= n:
            return candidate, False
    return value, True


def _as_bytes(value: bytes, n: int) -> bytes:
    if isinstance(value, str):
        raise TypeError("truncate byte strings: encode str values first (e.g. value.encode())")
    if not isinstance(value, bytes | bytearray | memoryview):
        raise TypeError(f"value must be bytes, not {type(value).__name__}")
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"truncation length must be a non-negative int, not {n!r}")
    return bytes(value)


def _is_utf8(value: bytes) -> bool:
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@dataclass(frozen=True)
class StringBounds:
    """Counts and truncated bounds of one scope (a page or a chunk).

    ``min_value``/``max_value`` are None when every value is null (or the
    scope is empty); ``min_exact``/``max_exact`` are True exactly when the
    stored bound is the true minimum/maximum itself.

    >>> b = StringBounds(3, 1, b"Art", b"Zaq", True, False)
    >>> b.all_null, b
    (False, StringBounds(num_values=3, null_count=1, min=b'Art', max=b'Zaq' (truncated)))
    """

    num_values: int
    null_count: int
    min_value: bytes | None
    max_value: bytes | None
    min_exact: bool
    max_exact: bool

    @property
    def all_null(self) -> bool:
        """True when the scope holds no non-null value."""
        return self.min_value is None

    def __repr__(self) -> str:
        if self.all_null:
            return f"StringBounds(num_values={self.num_values}, null_count={self.null_count})"

        def show(value: bytes | None, exact: bool) -> str:
            return f"{value!r}" + ("" if exact else " (truncated)")

        return (f"StringBounds(num_values={self.num_values}, null_count={self.null_count}, "
                f"min={show(self.min_value, self.min_exact)}, "
                f"max={show(self.max_value, self.max_exact)})")


@dataclass(frozen=True, eq=False)
class StringChunkStats:
    """Truncated statistics of one string column chunk.

    ``chunk`` covers the whole chunk, ``pages`` has one entry per data page
    (in file order), ``page_starts`` the row at which each data page starts,
    ``n`` the truncation length in bytes.

    >>> import numpy as np
    >>> pages = (StringBounds(2, 0, b"b", b"c", True, True), StringBounds(1, 1, None, None,
    ...          False, False), StringBounds(1, 0, b"a", b"a", True, True))
    >>> StringChunkStats(pages[0], pages, np.array([0, 2, 3]), 4).boundary_order()
    'DESCENDING'
    """

    chunk: StringBounds
    pages: tuple[StringBounds, ...]
    page_starts: npt.NDArray[np.int64]
    n: int

    def boundary_order(self) -> BoundaryOrder:
        """The ColumnIndex boundary order of the stored (truncated) page bounds.

        Null pages are left out; bytes compare as unsigned bytes.
        """
        kept = [p for p in self.pages if not p.all_null]
        mins = np.array([p.min_value for p in kept], dtype=object)
        maxs = np.array([p.max_value for p in kept], dtype=object)
        return boundary_order(mins, maxs)  # works on any ordered values (bytes here)
