# cython: language_level=3, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""Parquet page headers walked straight from bytes, and rewritten with new statistics.

A column chunk is a run of pages, each a Thrift compact ``PageHeader``
followed by its payload.  :class:`Walk` reads the headers of a window of the
chunk at a time and keeps, per page, the few fields an upgrade needs in
int64 columns (no Python object per page) and the header bytes themselves,
back to back.  It reads only the fields it needs; every other field, known
to the IDL or not, is passed over with its structure checked as the Python
reader of ``nanstats.metadata.compact`` checks it (lengths and counts
bounded by the bytes left, nesting at most 64 deep).  The checks a page
must pass are made here, page by page in file order, and the first that
fails stops the walk with a code the caller turns into an error message.

:func:`rewrite_headers` puts new encoded ``Statistics`` into data page
headers: every byte of a header that is not its statistics field is copied
as read.  :func:`interleave` lays new headers and the payloads out as
they go to the output.  :func:`encode_float_statistics` and
:func:`encode_page_locations` encode the per-page structures an upgrade
writes, exactly as the Thrift C codec encodes them.

The caller (``nanstats.metadata.page_walk``) owns the messages; this
module raises nothing but MemoryError.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from libc.stdint cimport INT64_MIN, int64_t, uint8_t, uint64_t
from libc.string cimport memcpy

import numpy as np

cimport numpy as cnp

cnp.import_array()

cdef int64_t NONE = INT64_MIN
#: Marks an absent field in the int64 columns.
ABSENT = NONE

# Columns of a walk, in the order of ``Walk.columns()``.
COLUMNS = ("offset", "header_length", "type", "uncompressed_page_size",
           "compressed_page_size", "num_values", "num_rows", "num_nulls", "encoding",
           "def_levels_length", "rep_levels_length", "has_sub", "stats_lo", "stats_hi",
           "stats_prev", "next_byte", "header_at")
cdef enum:
    C_OFFSET = 0
    C_HLEN = 1
    C_TYPE = 2
    C_UNCOMP = 3
    C_COMP = 4
    C_NVALUES = 5
    C_NROWS = 6
    C_NNULLS = 7
    C_ENCODING = 8
    C_DEFLEN = 9
    C_REPLEN = 10
    C_HAS_SUB = 11
    C_STATS_LO = 12
    C_STATS_HI = 13
    C_STATS_PREV = 14
    C_NEXT_BYTE = 15
    C_HEADER_AT = 16
    NCOLS = 17

# Outcomes of Walk.walk (the caller's messages are keyed by them).
WALKED = 0          # every page of the window walked; ``pos`` is where to read next
DECODE_ERROR = 1    # the header at ``pos`` does not decode (reason, at)
BAD_SIZES = 2       # the last page: a size absent or negative
BAD_V2_COUNTS = 3   # the last page: DATA_PAGE_V2 num_rows absent or negative, num_nulls < 0
BAD_V2_LEVELS = 4   # the last page: DATA_PAGE_V2 level bytes negative or past the page
UNKNOWN_TYPE = 5    # the last page: a page type the format does not define
NO_SUB_HEADER = 6   # the last page: its type-specific header is missing
BAD_NUM_VALUES = 7  # the last page: num_values absent or negative
PAST_CHUNK = 8      # the last page ends past the chunk
LATE_DICTIONARY = 9  # the last page is a dictionary page, not first
REPEATED_FIELD = 10  # the header at ``pos`` holds a field it reads twice (reason)

cdef enum:
    T_TRUE = 1
    T_FALSE = 2
    T_BYTE = 3
    T_I16 = 4
    T_I32 = 5
    T_I64 = 6
    T_DOUBLE = 7
    T_BINARY = 8
    T_LIST = 9
    T_SET = 10
    T_MAP = 11
    T_STRUCT = 12
    T_UUID = 13
    MAX_DEPTH = 64

# Reasons of a decode error (formatted by the caller with ``n`` and ``m``).
cdef enum:
    R_NEEDED = 1       # n bytes needed, m left
    R_VARINT_END = 2   # the data ends inside a varint
    R_VARINT_LONG = 3  # a varint longer than n bytes
    R_STRING = 4       # a string of length n does not fit in the m bytes left
    R_LIST_WIRE = 5    # a list of unknown wire type n
    R_LIST_LEN = 6     # a list of length n does not fit in the m bytes left
    R_FIELD_WIRE = 7   # a field of unknown wire type n
    R_LIST_ZERO = 8    # a list of wire type 0
    R_MAP_SIZE = 9     # a map of size n does not fit in the m bytes left
    R_MAP_WIRE = 10    # a map of wire types n and m
    R_DEPTH = 11       # nesting too deep
    R_REPEATED = 12    # field n of sub-structure m read twice


def reason_text(int code, int64_t n, int64_t m):
    """The text of a decode error, worded as ``nanstats.metadata.compact`` words it.

    >>> reason_text(4, 5, 1)
    'a string of length 5 does not fit in the 1 bytes left'
    """
    if code == R_NEEDED:
        return f"{n} bytes needed, {m} left"
    if code == R_VARINT_END:
        return "the data ends inside a varint"
    if code == R_VARINT_LONG:
        return f"a varint longer than {n} bytes"
    if code == R_STRING:
        return f"a string of length {n} does not fit in the {m} bytes left"
    if code == R_LIST_WIRE:
        return f"a list of unknown wire type {n}"
    if code == R_LIST_LEN:
        return f"a list of length {n} does not fit in the {m} bytes left"
    if code == R_FIELD_WIRE:
        return f"a field of unknown wire type {n}"
    if code == R_LIST_ZERO:
        return "a list of wire type 0"
    if code == R_MAP_SIZE:
        return f"a map of size {n} does not fit in the {m} bytes left"
    if code == R_MAP_WIRE:
        return f"a map of wire types {n} and {m}"
    if code == R_DEPTH:
        return "nesting too deep"
    if code == R_REPEATED:
        names = {5: "data_page_header", 7: "dictionary_page_header", 8: "data_page_header_v2",
                 0: "PageHeader"}
        return f"field {n} of {names.get(m, m)} appears twice"
    return f"error {code}"


cdef struct Cur:
    const uint8_t *data
    Py_ssize_t pos
    Py_ssize_t end
    int reason
    int64_t rn
    int64_t rm
    Py_ssize_t rpos


cdef inline int fail(Cur *c, int reason, int64_t n, int64_t m, Py_ssize_t at) noexcept nogil:
    c.reason = reason
    c.rn = n
    c.rm = m
    c.rpos = at
    return -1


cdef inline int take(Cur *c, int64_t n) noexcept nogil:
    if n > c.end - c.pos:
        return fail(c, R_NEEDED, n, c.end - c.pos, c.pos)
    c.pos += n
    return 0


cdef inline int varint(Cur *c, int bits, uint64_t *out) noexcept nogil:
    """An unsigned varint cut to ``bits`` bits (at most 3, 5 or 10 bytes)."""
    cdef int most = 3 if bits == 16 else (5 if bits == 32 else 10)
    cdef uint64_t result = 0
    cdef int shift = 0
    cdef int _i
    cdef uint8_t b
    cdef Py_ssize_t p = c.pos
    for _i in range(most):
        if p >= c.end:
            return fail(c, R_VARINT_END, 0, 0, p)
        b = c.data[p]
        p += 1
        if shift < 64:
            result |= (<uint64_t>(b & 0x7F)) << shift
        if not (b & 0x80):
            c.pos = p
            if bits < 64:
                result &= ((<uint64_t>1) << bits) - 1
            out[0] = result
            return 0
        shift += 7
    return fail(c, R_VARINT_LONG, most, 0, c.pos)


cdef inline int zigzag(Cur *c, int bits, int64_t *out) noexcept nogil:
    cdef uint64_t u
    if varint(c, bits, &u) < 0:
        return -1
    out[0] = <int64_t>(u >> 1) ^ -(<int64_t>(u & 1))
    return 0


cdef inline int size(Cur *c, int least, int what, int64_t *out) noexcept nogil:
    cdef Py_ssize_t at = c.pos
    cdef uint64_t n
    if varint(c, 32, &n) < 0:
        return -1
    if <int64_t>n * least > c.end - c.pos:
        return fail(c, what, <int64_t>n, c.end - c.pos, at)
    out[0] = <int64_t>n
    return 0


cdef int list_header(Cur *c, int64_t *n, int *wire) noexcept nogil:
    cdef Py_ssize_t at = c.pos
    cdef uint8_t b
    if c.pos >= c.end:
        return fail(c, R_NEEDED, 1, 0, c.pos)
    b = c.data[c.pos]
    c.pos += 1
    wire[0] = b & 0x0F
    if wire[0] > T_UUID:
        return fail(c, R_LIST_WIRE, wire[0], 0, at)
    n[0] = b >> 4
    if n[0] == 15:
        return size(c, 1, R_LIST_LEN, n)
    if n[0] > c.end - c.pos:
        return fail(c, R_LIST_LEN, n[0], c.end - c.pos, at)
    return 0


cdef inline int fixed_size(int wire) noexcept nogil:
    if wire == T_BYTE:
        return 1
    if wire == T_DOUBLE:
        return 8
    if wire == T_UUID:
        return 16
    return 0


cdef int skip(Cur *c, int wire, int depth, bint in_field) noexcept nogil:
    """Pass over one value of a wire type, checking its structure (compact._skip)."""
    cdef int64_t n, _i
    cdef int elem, key, value, inner
    cdef uint64_t u
    cdef uint8_t b
    cdef Py_ssize_t at
    if wire == T_TRUE or wire == T_FALSE:
        if not in_field:
            return take(c, 1)
        return 0
    if fixed_size(wire):
        return take(c, fixed_size(wire))
    if wire == T_I16:
        return varint(c, 16, &u)
    if wire == T_I32:
        return varint(c, 32, &u)
    if wire == T_I64:
        return varint(c, 64, &u)
    if wire == T_BINARY:
        if size(c, 1, R_STRING, &n) < 0:
            return -1
        return take(c, n)
    if depth + 1 >= MAX_DEPTH:
        return fail(c, R_DEPTH, 0, 0, c.pos)
    if wire == T_LIST or wire == T_SET:
        if list_header(c, &n, &elem) < 0:
            return -1
        if n == 0:
            return 0
        if elem == 0:
            return fail(c, R_LIST_ZERO, 0, 0, c.pos)
        if elem == T_TRUE or elem == T_FALSE:
            return take(c, n)
        if fixed_size(elem):
            return take(c, n * fixed_size(elem))
        if elem == T_STRUCT:
            for _i in range(n):
                if c.pos < c.end and c.data[c.pos] == 0:  # an empty struct
                    c.pos += 1
                elif skip(c, T_STRUCT, depth + 1, False) < 0:
                    return -1
            return 0
        for _i in range(n):
            if skip(c, elem, depth + 1, False) < 0:
                return -1
        return 0
    if wire == T_MAP:
        if size(c, 2, R_MAP_SIZE, &n) < 0:
            return -1
        if n == 0:
            return 0
        at = c.pos
        if c.pos >= c.end:
            return fail(c, R_NEEDED, 1, 0, c.pos)
        b = c.data[c.pos]
        c.pos += 1
        key = b >> 4
        value = b & 0x0F
        if not (0 < key <= T_UUID and 0 < value <= T_UUID):
            return fail(c, R_MAP_WIRE, key, value, at)
        for _i in range(n):
            if skip(c, key, depth + 1, False) < 0 or skip(c, value, depth + 1, False) < 0:
                return -1
        return 0
    # A struct.
    while True:
        at = c.pos
        if c.pos >= c.end:
            return fail(c, R_NEEDED, 1, 0, c.pos)
        b = c.data[c.pos]
        c.pos += 1
        inner = b & 0x0F
        if inner == 0:
            return 0
        if inner > T_UUID:
            return fail(c, R_FIELD_WIRE, inner, 0, at)
        if not (b >> 4):
            if varint(c, 16, &u) < 0:
                return -1
        if skip(c, inner, depth + 1, True) < 0:
            return -1


cdef inline int field_header(Cur *c, int *last, int *fid, int *wire, bint *short) noexcept nogil:
    """Read a field header; wire 0 is the stop byte."""
    cdef Py_ssize_t at = c.pos
    cdef uint8_t b
    cdef int delta
    cdef int64_t v
    if c.pos >= c.end:
        return fail(c, R_NEEDED, 1, 0, c.pos)
    b = c.data[c.pos]
    c.pos += 1
    wire[0] = b & 0x0F
    if wire[0] == 0:
        return 0
    if wire[0] > T_UUID:
        return fail(c, R_FIELD_WIRE, wire[0], 0, at)
    delta = b >> 4
    short[0] = delta != 0
    if delta:
        fid[0] = ((last[0] + delta + 0x8000) & 0xFFFF) - 0x8000
    else:
        if zigzag(c, 16, &v) < 0:
            return -1
        fid[0] = <int>v
    last[0] = fid[0]
    return 0


cdef struct Sub:
    # A type-specific header as read: its i32 fields (ABSENT when not set), the
    # span of its statistics field (or where one goes) and what the field
    # header after it becomes when one is put in.
    bint present
    int64_t f[8]          # fields 1..7 by id - 1 (i32 fields only)
    Py_ssize_t stats_lo
    Py_ssize_t stats_hi
    int stats_prev
    int next_byte
    bint has_stats


cdef int read_sub(Cur *c, Sub *s, int stats_fid, int nfields, int depth,
                  int which) noexcept nogil:
    """A DataPageHeader, DataPageHeaderV2 or DictionaryPageHeader: its i32 fields
    1..``nfields`` and the span of field ``stats_fid`` (0: none), the rest skipped."""
    cdef int last = 0, fid = 0, wire = 0, i
    cdef int prev = 0
    cdef bint short = False
    cdef bint placed = False
    cdef Py_ssize_t at
    cdef int64_t v
    if depth >= MAX_DEPTH:
        return fail(c, R_DEPTH, 0, 0, c.pos)
    s.present = True
    for i in range(8):
        s.f[i] = NONE
    s.has_stats = False
    s.stats_lo = s.stats_hi = -1
    s.stats_prev = 0
    s.next_byte = -1
    while True:
        at = c.pos
        prev = last
        if field_header(c, &last, &fid, &wire, &short) < 0:
            return -1
        if stats_fid and not s.has_stats and not placed and (wire == 0 or fid > stats_fid):
            # No statistics so far: they would go here, before the first
            # field of a larger id (or the stop byte).
            placed = True
            s.stats_lo = s.stats_hi = at
            s.stats_prev = prev
            if wire != 0 and short:
                s.next_byte = ((fid - stats_fid) << 4) | wire
        if wire == 0:
            break
        if stats_fid and fid == stats_fid:
            if s.has_stats:
                return fail(c, R_REPEATED, fid, which, at)
            # (Statistics after a field of a larger id are replaced where they are.)
            s.has_stats = True
            s.stats_lo = at
            s.stats_prev = prev
            s.next_byte = -1
            if skip(c, wire, depth, True) < 0:
                return -1
            s.stats_hi = c.pos
            continue
        if 1 <= fid <= nfields and wire == T_I32:
            if zigzag(c, 32, &v) < 0:
                return -1
            s.f[fid - 1] = v  # set twice: the last one counts
            continue
        if skip(c, wire, depth, True) < 0:
            return -1
    if stats_fid and s.has_stats:
        s.next_byte = -1
    return 0


cdef class Walk:
    """The pages of one column chunk as its windows are walked.

    ``walk(window, base, pos, end, first)`` walks the pages whose headers lie
    in ``window`` (the file's bytes from ``base``), from file offset ``pos``,
    the chunk ending at ``end``; returns ``(outcome, pos, reason, at)``.
    ``columns()`` gives the int64 columns (:data:`COLUMNS`) and
    ``headers()`` the header bytes, back to back (``header_at`` is where
    each starts there).

    >>> w = Walk()
    >>> w.walk(bytes([0x15, 0, 0x15, 0, 0x15, 0, 0x2c, 0x15, 0, 0, 0]), 4, 4, 15)
    (0, 15, None, -1)
    >>> cols = w.columns()
    >>> int(cols["type"][0]), int(cols["header_length"][0]), int(cols["num_values"][0])
    (0, 11, 0)
    """

    cdef object _cols
    cdef int64_t[:, ::1] cols
    cdef Py_ssize_t n
    cdef Py_ssize_t cap
    cdef bytearray hdrs
    cdef Py_ssize_t hlen

    def __cinit__(self):
        self.cap = 64
        self._cols = np.empty((self.cap, NCOLS), dtype=np.int64)
        self.cols = self._cols
        self.n = 0
        self.hdrs = bytearray(1024)
        self.hlen = 0

    cdef int _grow(self) except -1:
        cdef object bigger = np.empty((self.cap * 2, NCOLS), dtype=np.int64)
        bigger[:self.n] = self._cols[:self.n]
        self._cols = bigger
        self.cols = bigger
        self.cap *= 2
        return 0

    cdef int _keep_header(self, const uint8_t *src, Py_ssize_t length) except -1:
        cdef Py_ssize_t need = self.hlen + length
        cdef Py_ssize_t have = len(self.hdrs)
        cdef char *dst
        if need > have:
            self.hdrs.extend(bytes(max(need, 2 * have) - have))
        dst = self.hdrs
        memcpy(dst + self.hlen, src, length)
        self.hlen = need
        return 0

    @property
    def count(self):
        """Pages walked so far."""
        return self.n

    def walk(self, const uint8_t[::1] window, int64_t base, int64_t pos, int64_t end):
        cdef Cur c
        cdef Sub v1, d, v2
        cdef Sub *sub
        cdef int last, fid, wire, depth = 0
        cdef bint short
        cdef int64_t ptype, uncomp, comp, page_end, levels
        cdef int64_t v
        cdef Py_ssize_t hstart, wend = window.shape[0]
        cdef int64_t *row
        cdef int i, stats_fid
        cdef Py_ssize_t at
        if wend == 0:
            return (WALKED, pos, None, -1)
        c.data = &window[0]
        c.end = wend
        while pos < end:
            hstart = pos - base
            if hstart >= wend:
                return (WALKED, pos, None, -1)
            c.pos = hstart
            c.reason = 0
            v1.present = d.present = v2.present = False
            ptype = uncomp = comp = NONE
            last = 0
            while True:
                at = c.pos
                if field_header(&c, &last, &fid, &wire, &short) < 0:
                    return self._error(c, base, pos)
                if wire == 0:
                    break
                if 1 <= fid <= 3 and wire == T_I32:
                    if zigzag(&c, 32, &v) < 0:
                        return self._error(c, base, pos)
                    if fid == 1:  # a field set twice: the last one counts, as decoders read it
                        ptype = v
                    elif fid == 2:
                        uncomp = v
                    else:
                        comp = v
                    continue
                if wire == T_STRUCT and (fid == 5 or fid == 7 or fid == 8):
                    sub = &v1 if fid == 5 else (&d if fid == 7 else &v2)
                    if sub.present:
                        fail(&c, R_REPEATED, fid, 0, at)
                        return self._error(c, base, pos)
                    if fid == 5:
                        i = read_sub(&c, sub, 5, 4, depth + 1, 5)
                    elif fid == 7:
                        i = read_sub(&c, sub, 0, 2, depth + 1, 7)
                    else:
                        i = read_sub(&c, sub, 8, 6, depth + 1, 8)
                    if i < 0:
                        return self._error(c, base, pos)
                    continue
                if skip(&c, wire, depth, True) < 0:
                    return self._error(c, base, pos)
            # A page: recorded, then checked (the caller names the last page).
            if self.n == self.cap:
                self._grow()
            row = &self.cols[self.n, 0]
            self.n += 1
            row[C_OFFSET] = pos
            row[C_HLEN] = c.pos - hstart
            row[C_TYPE] = ptype
            row[C_UNCOMP] = uncomp
            row[C_COMP] = comp
            row[C_NVALUES] = NONE
            row[C_NROWS] = NONE
            row[C_NNULLS] = NONE
            row[C_ENCODING] = NONE
            row[C_DEFLEN] = NONE
            row[C_REPLEN] = NONE
            row[C_HAS_SUB] = 0
            row[C_STATS_LO] = -1
            row[C_STATS_HI] = -1
            row[C_STATS_PREV] = 0
            row[C_NEXT_BYTE] = -1
            row[C_HEADER_AT] = self.hlen
            self._keep_header(c.data + hstart, c.pos - hstart)
            if comp == NONE or uncomp == NONE or comp < 0 or uncomp < 0:
                return (BAD_SIZES, pos, None, -1)
            stats_fid = 0
            sub = NULL
            if ptype == 0:
                sub = &v1
                stats_fid = 5
            elif ptype == 3:
                sub = &v2
                stats_fid = 8
            elif ptype == 2:
                sub = &d
            elif ptype == 1:
                row[C_HAS_SUB] = 1
            else:
                return (UNKNOWN_TYPE, pos, None, -1)
            if sub != NULL and sub.present:
                row[C_HAS_SUB] = 1
                row[C_NVALUES] = sub.f[0]
                if ptype == 3:
                    row[C_NNULLS] = sub.f[1]
                    row[C_NROWS] = sub.f[2]
                    row[C_ENCODING] = sub.f[3]
                    row[C_DEFLEN] = sub.f[4]
                    row[C_REPLEN] = sub.f[5]
                else:
                    row[C_ENCODING] = sub.f[1]
                if stats_fid:
                    row[C_STATS_LO] = sub.stats_lo - hstart
                    row[C_STATS_HI] = sub.stats_hi - hstart
                    row[C_STATS_PREV] = sub.stats_prev
                    row[C_NEXT_BYTE] = sub.next_byte
                if ptype == 3:
                    if row[C_NROWS] == NONE or row[C_NROWS] < 0 or \
                            (row[C_NNULLS] != NONE and row[C_NNULLS] < 0):
                        return (BAD_V2_COUNTS, pos, None, -1)
                    levels = (0 if row[C_DEFLEN] == NONE else row[C_DEFLEN]) + \
                        (0 if row[C_REPLEN] == NONE else row[C_REPLEN])
                    if (row[C_DEFLEN] != NONE and row[C_DEFLEN] < 0) or \
                            (row[C_REPLEN] != NONE and row[C_REPLEN] < 0) or levels > comp:
                        return (BAD_V2_LEVELS, pos, None, -1)
            if not row[C_HAS_SUB]:
                return (NO_SUB_HEADER, pos, None, -1)
            if ptype != 1 and (row[C_NVALUES] == NONE or row[C_NVALUES] < 0):
                return (BAD_NUM_VALUES, pos, None, -1)
            page_end = pos + row[C_HLEN] + comp
            if page_end > end:
                return (PAST_CHUNK, pos, None, -1)
            if ptype == 2 and self.n > 1:
                return (LATE_DICTIONARY, pos, None, -1)
            pos = page_end
        return (WALKED, pos, None, -1)

    cdef tuple _error(self, Cur c, int64_t base, int64_t pos):
        if c.reason == R_REPEATED:
            return (REPEATED_FIELD, pos, reason_text(c.reason, c.rn, c.rm), base + c.rpos)
        if c.reason == R_DEPTH:
            return (DECODE_ERROR, pos, "nesting too deep", pos)
        return (DECODE_ERROR, pos, reason_text(c.reason, c.rn, c.rm), base + c.rpos)

    def columns(self):
        """The walked pages' columns by name (int64 arrays, ABSENT where unset)."""
        arr = self._cols[:self.n]
        return {name: np.ascontiguousarray(arr[:, i]) for i, name in enumerate(COLUMNS)}

    def headers(self):
        """The walked pages' header bytes, back to back."""
        return bytes(memoryview(self.hdrs)[:self.hlen])


cdef inline Py_ssize_t put_varint(uint8_t *out, uint64_t u) noexcept nogil:
    cdef Py_ssize_t n = 0
    while u > 0x7F:
        out[n] = (u & 0x7F) | 0x80
        u >>= 7
        n += 1
    out[n] = <uint8_t>u
    return n + 1


cdef inline Py_ssize_t put_zigzag(uint8_t *out, int64_t v) noexcept nogil:
    return put_varint(out, (<uint64_t>v << 1) ^ <uint64_t>(v >> 63))


cdef inline Py_ssize_t put_field(uint8_t *out, int last, int fid, int wire) noexcept nogil:
    cdef int delta = fid - last
    if 0 < delta <= 15:
        out[0] = (delta << 4) | wire
        return 1
    out[0] = wire
    return 1 + put_zigzag(out + 1, fid)


def rewrite_headers(const uint8_t[::1] headers, const int64_t[::1] at,
                    const int64_t[::1] length, const int64_t[::1] stats_lo,
                    const int64_t[::1] stats_hi, const int64_t[::1] stats_prev,
                    const int64_t[::1] next_byte, const int64_t[::1] stats_fid,
                    const uint8_t[::1] stats, const int64_t[::1] stats_at):
    """New headers: each header's statistics field replaced by (or given) new statistics.

    For page ``i``, ``stats_fid[i]`` is the statistics field's id in its
    type-specific header (0: the header is kept as it is); the new
    Statistics struct is ``stats[stats_at[j]:stats_at[j + 1]]``, ``j``
    counting the pages that get one.  Returns the new headers back to back
    and where each starts (one more entry: the end).

    >>> old = bytes([0x15, 0, 0x15, 0, 0x15, 0, 0x2c, 0x15, 0, 0, 0])
    >>> z = np.zeros(1, np.int64)
    >>> new, at = rewrite_headers(old, z, z + 11, z + 9, z + 9, z + 1, z - 1, z + 5,
    ...                           b"\\x00", np.array([0, 1]))
    >>> new.hex(), at.tolist()
    ('1500150015002c15004c000000', [0, 13])
    """
    cdef Py_ssize_t n = at.shape[0], i, j = 0, total = 0, k, lo, hi
    for i in range(n):
        if stats_fid[i]:
            j += 1
    if j != stats_at.shape[0] - 1 or (j and (stats_at[0] < 0 or stats_at[j] > stats.shape[0])):
        raise ValueError(f"{j} headers to rewrite, {stats_at.shape[0] - 1} statistics")
    j = 0
    for i in range(n):
        if at[i] < 0 or at[i] + length[i] > headers.shape[0]:
            raise ValueError(f"header {i} lies outside the header bytes")
        total += length[i]
        if stats_fid[i]:
            if not 0 <= stats_lo[i] <= stats_hi[i] <= length[i] - (next_byte[i] >= 0):
                raise ValueError(f"header {i}: no statistics span")
            total += stats_at[j + 1] - stats_at[j] + 4 + stats_lo[i] - stats_hi[i]
            j += 1
    cdef bytearray out = bytearray(total)
    cdef uint8_t *o = out
    cdef const uint8_t *h
    cdef object starts = np.empty(n + 1, dtype=np.int64)
    cdef int64_t[::1] s = starts
    cdef Py_ssize_t w = 0
    j = 0
    for i in range(n):
        s[i] = w
        h = &headers[at[i]]
        if not stats_fid[i]:
            memcpy(o + w, h, length[i])
            w += length[i]
            continue
        lo = stats_lo[i]
        hi = stats_hi[i]
        memcpy(o + w, h, lo)
        w += lo
        w += put_field(o + w, <int>stats_prev[i], <int>stats_fid[i], T_STRUCT)
        k = stats_at[j + 1] - stats_at[j]
        if k:
            memcpy(o + w, &stats[stats_at[j]], k)
        w += k
        j += 1
        if next_byte[i] >= 0:
            o[w] = <uint8_t>next_byte[i]
            w += 1
            hi += 1
        memcpy(o + w, h + hi, length[i] - hi)
        w += length[i] - hi
    s[n] = w
    return bytes(memoryview(out)[:w]), starts


def interleave(const uint8_t[::1] headers, const int64_t[::1] header_at,
               const uint8_t[::1] source, int64_t source_base,
               const int64_t[::1] payload_offset, const int64_t[::1] payload_length,
               Py_ssize_t lo, Py_ssize_t hi):
    """Pages ``lo..hi`` as they go out: each new header, then its payload from ``source``
    (the file's bytes from ``source_base``).

    >>> interleave(b"HhK", np.array([0, 2, 3]), b"..pq", 0, np.array([2, 3]),
    ...            np.array([1, 1]), 0, 2)
    b'HhpKq'
    """
    cdef Py_ssize_t total, i, w = 0, k
    if not 0 <= lo <= hi < header_at.shape[0] or hi > payload_offset.shape[0] or \
            hi > payload_length.shape[0] or header_at[lo] < 0 or \
            header_at[hi] > headers.shape[0]:
        raise ValueError("pages out of range")
    total = header_at[hi] - header_at[lo]
    for i in range(lo, hi):
        if payload_offset[i] < source_base or payload_length[i] < 0 or \
                payload_offset[i] + payload_length[i] > source_base + source.shape[0]:
            raise ValueError(f"the payload of page {i} is not in the source bytes")
        total += payload_length[i]
    cdef object out = PyBytes_FromStringAndSize(NULL, total)
    cdef uint8_t *o = <uint8_t *>PyBytes_AS_STRING(out)
    with nogil:
        for i in range(lo, hi):
            k = header_at[i + 1] - header_at[i]
            if k:
                memcpy(o + w, &headers[header_at[i]], k)
            w += k
            k = payload_length[i]
            if k:
                memcpy(o + w, &source[payload_offset[i] - source_base], k)
            w += k
    return out


def encode_float_statistics(const int64_t[::1] null_count, const int64_t[::1] nan_count,
                            const uint8_t[::1] present, const uint8_t[:, ::1] mins,
                            const uint8_t[:, ::1] maxs):
    """The compact encoding of each page's float Statistics, back to back, and where
    each starts (one more entry: the end).

    Fields as nanstats writes them (``metadata.convert.statistics_struct``):
    ``null_count``, then where ``present``, ``max_value``, ``min_value`` (PLAIN
    bytes) and both ``is_*_value_exact`` true, then ``nan_count``.

    >>> blob, at = encode_float_statistics(np.array([1]), np.array([0]), np.array([0], np.uint8),
    ...                                    np.zeros((1, 4), np.uint8), np.zeros((1, 4), np.uint8))
    >>> blob.hex(), at.tolist()
    ('3602660000', [0, 5])
    """
    cdef Py_ssize_t n = null_count.shape[0], width = mins.shape[1], i, w = 0
    cdef bytearray out = bytearray(n * (24 + 2 * (width + 2)))
    cdef uint8_t *o = out
    cdef object starts = np.empty(n + 1, dtype=np.int64)
    cdef int64_t[::1] s = starts
    with nogil:
        for i in range(n):
            s[i] = w
            o[w] = 0x36
            w += 1
            w += put_zigzag(o + w, null_count[i])
            if present[i]:
                o[w] = 0x28
                w += 1
                w += put_varint(o + w, width)
                memcpy(o + w, &maxs[i, 0], width)
                w += width
                o[w] = 0x18
                w += 1
                w += put_varint(o + w, width)
                memcpy(o + w, &mins[i, 0], width)
                w += width
                o[w] = 0x11
                o[w + 1] = 0x11
                o[w + 2] = 0x16
                w += 3
            else:
                o[w] = 0x66
                w += 1
            w += put_zigzag(o + w, nan_count[i])
            o[w] = 0
            w += 1
        s[n] = w
    return bytes(memoryview(out)[:w]), starts


def encode_page_locations(const int64_t[::1] offset, const int64_t[::1] size,
                          const int64_t[::1] first_row):
    """The compact encoding of a list of PageLocation structs (its list header
    included), or None when a size does not fit an i32.

    >>> encode_page_locations(np.array([4]), np.array([30]), np.array([0])).hex()
    '1c1608153c160000'
    """
    cdef Py_ssize_t n = offset.shape[0], i, w = 0
    for i in range(n):
        if size[i] < -(1 << 31) or size[i] >= (1 << 31):
            return None
    cdef bytearray out = bytearray(16 + n * 32)
    cdef uint8_t *o = out
    with nogil:
        if n <= 14:
            o[0] = (n << 4) | T_STRUCT
            w = 1
        else:
            o[0] = 0xF0 | T_STRUCT
            w = 1 + put_varint(o + 1, n)
        for i in range(n):
            o[w] = 0x16
            w += 1
            w += put_zigzag(o + w, offset[i])
            o[w] = 0x15
            w += 1
            w += put_zigzag(o + w, size[i])
            o[w] = 0x16
            w += 1
            w += put_zigzag(o + w, first_row[i])
            o[w] = 0
            w += 1
    return bytes(memoryview(out)[:w])
