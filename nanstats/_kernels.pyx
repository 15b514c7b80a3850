# cython: language_level=3, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""One-pass float statistics over raw IEEE 754 bit patterns.

The only compiled code of nanstats and the only place that touches values.
Input is a contiguous buffer of uint16/uint32/uint64 bit patterns (binary16,
binary32, binary64), an optional validity (a byte mask or an Arrow bitmap
with a bit offset) and the start offsets of the pages.  Output goes to
caller-allocated int64 arrays, one row per page:

``counts[p]`` = (num_values, null_count, pos_nan_count, neg_nan_count)

``keys[p]``   = (min, max) of the non-NaN values, then (min, max) of the NaN
values, as totalOrder keys sign-extended to int64.

A key is the bit pattern read as a signed integer with the magnitude bits
flipped when the sign bit is set; keys compare as signed integers exactly as
IEEE 754 totalOrder compares the floats.  The map is its own inverse.  Empty
accumulators keep the sentinels ``INT64_MAX`` (min) and ``INT64_MIN`` (max);
callers tell empty from real through the counts.
"""

from libc.stdint cimport (INT64_MAX, INT64_MIN, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                          uint32_t, uint64_t)
from libc.string cimport memcpy

ctypedef fused bits_t:
    uint16_t
    uint32_t
    uint64_t

# Validity kinds understood by scan().
VALIDITY_NONE = 0
VALIDITY_BYTES = 1
VALIDITY_BITMAP = 2
VALIDITY_NULL_BYTES = 3  # one byte per value, non-zero = null (numpy/pandas masks)

cdef enum:
    VALIDITY_NONE_ = 0
    VALIDITY_BYTES_ = 1
    VALIDITY_BITMAP_ = 2
    VALIDITY_NULL_BYTES_ = 3


cdef extern from "_simd/scan.h":
    ctypedef void (*ns_scan_fn)(const void *data, int64_t n, int kind, const uint8_t *validity,
                                int64_t validity_nbytes, int64_t bit_offset,
                                const int64_t *page_starts, int64_t npages,
                                int64_t *counts, int64_t *keys) noexcept nogil
    ns_scan_fn ns_scan_function(int level, int width_code) noexcept nogil
    int ns_level_built(int level) noexcept nogil
    int ns_level_available(int level) noexcept nogil
    int ns_best_level() noexcept nogil
    uint64_t ns_far16_bytes


# ---------------------------------------------------------------------------
# The portable level: typed Cython loops, in every build and the only level
# of a build without the C SIMD levels (NANSTATS_PORTABLE=1, or a compiler
# without GCC vector extensions, such as MSVC).
#
# How the loops stay vectorisable by the C compiler:
# - they work on the bits read as signed integers of the data's width
#   (key_t), so keys, masks and block counters never widen: a float16 lane
#   stays 16 bits wide;
# - no branches in the loops: validity and NaN-ness are all-ones/all-zero
#   masks, the extremes take masked candidates (a sentinel where the row
#   does not count), the counts subtract masks;
# - accumulators are locals; a page is scanned in blocks of _BLOCK rows, so
#   counters of the data's width cannot overflow, and folded into int64
#   totals once per block;
# - an Arrow bitmap is expanded a byte at a time (one table look-up per 8
#   rows) into a block of 0/1 bytes, which then takes the byte-mask loop.
# float64 is the exception: x86-64's baseline (SSE2) has no 64-bit compare,
# so its loop is scalar whatever its form, and a scalar loop is cheapest
# with predicted branches (see _rows_scalar64).

ctypedef fused key_t:
    int16_t
    int32_t
    int64_t

cdef enum:
    _BLOCK = 8192  # rows; a multiple of 8 below 2**15 (int16 counters)

# _BIT_BYTES[x][k] = bit k of the byte x, as a 0/1 byte.
cdef uint8_t _BIT_BYTES[256][8]


cdef void _init_bit_bytes() noexcept:
    cdef int x, k
    for x in range(256):
        for k in range(8):
            _BIT_BYTES[x][k] = (x >> k) & 1


_init_bit_bytes()


cdef inline void _expand_bits(const uint8_t* bitmap, int64_t nbytes, int64_t pos,
                              Py_ssize_t n, uint8_t* out) noexcept nogil:
    """out[j] = bit ``pos + j`` of the bitmap (0/1), for j < n rounded up to 8."""
    cdef int64_t q = pos >> 3
    cdef unsigned int shift = pos & 7
    cdef unsigned int x
    cdef uint64_t w, hi
    cdef Py_ssize_t j = 0
    cdef int k
    # 64 rows from one unaligned 8-byte load (and one more byte when the
    # offset is not a multiple of 8), while 9 bytes remain.
    while j + 64 <= n and q + 9 <= nbytes:
        memcpy(&w, bitmap + q, 8)
        w = _little_endian(w)
        if shift:
            hi = bitmap[q + 8]
            w = (w >> shift) | (hi << (64 - shift))
        for k in range(8):
            memcpy(out + j + 8 * k, _BIT_BYTES[(w >> (8 * k)) & 0xFF], 8)
        j += 64
        q += 8
    while j < n:
        x = bitmap[q] if q < nbytes else 0
        if shift:
            x = (x >> shift) | ((bitmap[q + 1] if q + 1 < nbytes else 0) << (8 - shift))
        memcpy(out + j, _BIT_BYTES[x & 0xFF], 8)
        j += 8
        q += 1


cdef inline uint64_t _little_endian(uint64_t w) noexcept nogil:
    """The 8 bytes as loaded, read as a little-endian integer on any machine."""
    cdef uint64_t probe = 1
    if (<uint8_t*>&probe)[0] == 1:
        return w
    cdef uint64_t r = 0
    cdef int k
    for k in range(8):
        r = (r << 8) | ((w >> (8 * k)) & 0xFF)
    return r


cdef inline void _rows_portable(const key_t* d, const uint8_t* v, Py_ssize_t n, key_t flip,
                                key_t* ext, key_t* cnt) noexcept nogil:
    """Fold rows into a block's extremes and counts.

    ``v`` is NULL (every row valid) or one byte per row, valid when the
    byte is non-zero (``flip`` = 0) or zero (``flip`` = -1).  ``ext`` =
    value min, value max, NaN min, NaN max (keys); ``cnt`` = valid rows,
    NaNs, negative NaNs.
    """
    cdef key_t top, bottom, inf, shift
    if key_t is int16_t:
        top, inf, shift = 0x7FFF, 0x7C00, 15
    elif key_t is int32_t:
        top, inf, shift = 0x7FFFFFFF, 0x7F800000, 31
    else:
        top, inf, shift = 0x7FFFFFFFFFFFFFFF, 0x7FF0000000000000, 63
    bottom = ~top
    cdef key_t vmin = ext[0], vmax = ext[1], nmin = ext[2], nmax = ext[3]
    cdef key_t valid = 0, nan = 0, neg = 0
    cdef key_t s, sign, k, nanm, okm, num, c
    cdef Py_ssize_t i
    if v == NULL:
        for i in range(n):
            s = d[i]
            sign = s >> shift                      # all ones when the sign bit is set
            k = s ^ (sign & top)                   # the totalOrder key
            nanm = -<key_t>((s & top) > inf)
            num = ~nanm
            c = (k & num) | (top & nanm)
            if c < vmin:
                vmin = c
            c = (k & num) | (bottom & nanm)
            if c > vmax:
                vmax = c
            c = (k & nanm) | (top & num)
            if c < nmin:
                nmin = c
            c = (k & nanm) | (bottom & num)
            if c > nmax:
                nmax = c
            nan -= nanm
            neg -= nanm & sign
        valid = <key_t>n
    else:
        for i in range(n):
            s = d[i]
            sign = s >> shift
            k = s ^ (sign & top)
            okm = -<key_t>(v[i] != 0) ^ flip   # (this form gcc vectorises for int16)
            nanm = -<key_t>((s & top) > inf) & okm
            num = okm & ~nanm
            c = (k & num) | (top & ~num)
            if c < vmin:
                vmin = c
            c = (k & num) | (bottom & ~num)
            if c > vmax:
                vmax = c
            c = (k & nanm) | (top & ~nanm)
            if c < nmin:
                nmin = c
            c = (k & nanm) | (bottom & ~nanm)
            if c > nmax:
                nmax = c
            valid -= okm
            nan -= nanm
            neg -= nanm & sign
    ext[0], ext[1], ext[2], ext[3] = vmin, vmax, nmin, nmax
    cnt[0], cnt[1], cnt[2] = valid, nan, neg


cdef inline void _fold64(int64_t s, int64_t k, int64_t* a) noexcept nogil:
    """One row outside a[0]..a[1] into _rows_scalar64's accumulators."""
    cdef int64_t top = 0x7FFFFFFFFFFFFFFF, inf = 0x7FF0000000000000
    if (s & top) > inf:  # a NaN
        a[4] += 1
        a[5] += <int64_t>(s < 0)
        a[2] = min(a[2], k)
        a[3] = max(a[3], k)
    else:
        a[0] = min(a[0], k)
        a[1] = max(a[1], k)


cdef inline Py_ssize_t _rows_scalar64(const int64_t* d, const uint8_t* v, Py_ssize_t n,
                                      int64_t flip, int64_t* ext, int64_t* cnt) noexcept nogil:
    """_rows_portable for float64 with branches; returns the rows that took the slow path.

    No 64-bit compare in x86-64's baseline (SSE2), so a float64 loop stays
    scalar whatever its form, and the masked form costs some 27 instructions
    a row.  Here a row inside [vmin, vmax] (most rows, once a few have been
    seen) costs its key and two predicted branches; a NaN is always outside
    (its key lies beyond the infinities'), and so is a new extreme.  A null
    row compares as vmin (a select, no branch on the validity), which is
    inside once a value has been seen.  Mispredicted slow paths make this
    slower than the masked form from about one row in five (NaNs in random
    places); the caller switches by the rows that took it.
    """
    # a = value min, value max, NaN min, NaN max, NaNs, negative NaNs
    cdef int64_t a[6]
    cdef int64_t top = 0x7FFFFFFFFFFFFFFF
    cdef int64_t valid = 0, s, k, okm
    cdef Py_ssize_t i, slow = 0
    a[0], a[1], a[2], a[3], a[4], a[5] = ext[0], ext[1], ext[2], ext[3], 0, 0
    if v == NULL:
        for i in range(n):
            s = d[i]
            k = s ^ ((s >> 63) & top)
            if k < a[0] or k > a[1]:
                slow += 1
                _fold64(s, k, a)
        valid = <int64_t>n
    else:
        for i in range(n):
            s = d[i]
            okm = -<int64_t>(v[i] != 0) ^ flip  # all ones when the row is valid
            valid -= okm
            k = s ^ ((s >> 63) & top)
            k = (k & okm) | (a[0] & ~okm)
            if (k < a[0] or k > a[1]) and okm != 0:
                slow += 1
                _fold64(s, k, a)
    ext[0], ext[1], ext[2], ext[3] = a[0], a[1], a[2], a[3]
    cnt[0], cnt[1], cnt[2] = valid, a[4], a[5]
    return slow


cdef void _scan_portable(const key_t* d, Py_ssize_t n, int kind, const uint8_t* validity,
                         int64_t nbytes, int64_t bit_offset, const int64_t* page_starts,
                         Py_ssize_t npages, int64_t* counts, int64_t* keys) noexcept nogil:
    """The kernel contract (module docstring) for one width, page by page."""
    cdef uint8_t bits[_BLOCK]
    cdef key_t ext[4]
    cdef key_t cnt[3]
    cdef key_t top = <key_t>(~(<key_t>1 << (sizeof(key_t) * 8 - 1)))
    cdef Py_ssize_t p, b, start, stop, rows
    cdef int64_t valid, nan, neg, vmin, vmax, nmin, nmax
    cdef const uint8_t* vp
    cdef key_t flip
    # float64: the branching loop while at most one row in eight of the last
    # block took its slow path, else the masked loop while at most one row in
    # eight is a NaN (the branching loop measured on AMD Zen 5, NaNs in
    # random places: 2.7-4.2x the masked loop at 1% NaN, 1.5-1.8x at 10%,
    # even at 20%, 0.76x at 30%).
    cdef bint branching = True
    for p in range(npages):
        start = page_starts[p]
        stop = page_starts[p + 1] if p + 1 < npages else n
        valid = nan = neg = 0
        vmin, vmax, nmin, nmax = INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN
        b = start
        while b < stop:
            rows = min(<Py_ssize_t>_BLOCK, stop - b)
            ext[0], ext[1], ext[2], ext[3] = top, ~top, top, ~top
            flip = 0
            if kind == VALIDITY_BYTES_:
                vp = validity + b
            elif kind == VALIDITY_NULL_BYTES_:
                vp = validity + b
                flip = -1
            elif kind == VALIDITY_BITMAP_:
                _expand_bits(validity, nbytes, bit_offset + b, rows, bits)
                vp = bits
            else:
                vp = NULL
            if key_t is int64_t:
                if branching:
                    branching = 8 * _rows_scalar64(d + b, vp, rows, flip, ext, cnt) <= rows
                else:
                    _rows_portable(d + b, vp, rows, flip, ext, cnt)
                    branching = 8 * cnt[1] <= rows
            else:
                _rows_portable(d + b, vp, rows, flip, ext, cnt)
            valid += cnt[0]
            nan += cnt[1]
            neg += cnt[2]
            if cnt[0] > cnt[1]:
                vmin = min(vmin, <int64_t>ext[0])
                vmax = max(vmax, <int64_t>ext[1])
            if cnt[1] > 0:
                nmin = min(nmin, <int64_t>ext[2])
                nmax = max(nmax, <int64_t>ext[3])
            b += rows
        counts[4 * p + 0] = stop - start
        counts[4 * p + 1] = (stop - start) - valid
        counts[4 * p + 2] = nan - neg
        counts[4 * p + 3] = neg
        keys[4 * p + 0] = vmin
        keys[4 * p + 1] = vmax
        keys[4 * p + 2] = nmin
        keys[4 * p + 3] = nmax


# Instruction-set levels, lowest first.  "portable" is the Cython loops
# above; the others are C with GCC vector extensions compiled once per level
# (nanstats/_simd/) when the compiler can (setup.py probes it).  The best
# level this build has and the CPU supports is used unless NANSTATS_SIMD or
# set_simd_level() says otherwise.
SIMD_LEVELS = ("portable", "baseline", "avx2", "avx512")
cdef int _level = ns_best_level()


def built_levels():
    """The levels compiled into this build (whatever this CPU can run), lowest first."""
    return tuple(name for i, name in enumerate(SIMD_LEVELS) if ns_level_built(i))


def simd_levels():
    """The levels this build has and this CPU can run, lowest first."""
    return tuple(name for i, name in enumerate(SIMD_LEVELS) if ns_level_available(i))


def simd_level():
    """The level scan() uses now."""
    return SIMD_LEVELS[_level]


def set_simd_level(name):
    """Use the given level from now on (for tests and benchmarks)."""
    global _level
    if name not in SIMD_LEVELS:
        raise ValueError(f"unknown SIMD level {name!r}; known: {', '.join(SIMD_LEVELS)}")
    i = SIMD_LEVELS.index(name)
    if not ns_level_built(i):
        raise ValueError(f"the {name!r} level is not in this build; it has "
                         f"{', '.join(built_levels())}")
    if not ns_level_available(i):
        raise ValueError(f"this CPU cannot run the {name!r} level; it can run "
                         f"{', '.join(simd_levels())}")
    _level = i


def far16_bytes(value=None):
    """The size of a call's float16 values from which the AVX2 page loops
    with a bitmap also prefetch into L2 (data read from memory, not the
    caches); with ``value``, set it.  Returns the size before (for tests,
    which run those loops on small data, and benchmarks).

    >>> before = far16_bytes(0)
    >>> far16_bytes(before)
    0
    """
    global ns_far16_bytes
    before = ns_far16_bytes
    if value is not None:
        if value < 0:
            raise ValueError(f"far16_bytes must be at least 0, got {value}")
        ns_far16_bytes = value
    return before


def _init_level_from_environment():
    import os
    forced = os.environ.get("NANSTATS_SIMD", "").strip().lower()
    if forced:
        try:
            set_simd_level(forced)
        except ValueError as exc:
            raise ValueError(f"NANSTATS_SIMD={forced!r}: {exc}") from None


_init_level_from_environment()


def scan(const bits_t[::1] data, int validity_kind, const uint8_t[::1] validity,
         int64_t bit_offset, const int64_t[::1] page_starts,
         int64_t[:, ::1] counts, int64_t[:, ::1] keys):
    """Fill ``counts`` and ``keys`` (shape ``(npages, 4)``) in one pass.

    The caller guarantees what the loop relies on: ``page_starts`` is
    non-empty, sorted, starts at 0 and lies within ``data``; the validity
    covers every element; the outputs have one row per page.  These are
    checked here too, cheaply, so that a misuse raises instead of reading
    out of bounds.
    """
    cdef Py_ssize_t n = data.shape[0]
    cdef Py_ssize_t npages = page_starts.shape[0]
    cdef Py_ssize_t p
    if npages < 1 or page_starts[0] != 0:
        raise ValueError("page_starts must be non-empty and start at 0")
    for p in range(1, npages):
        if page_starts[p] <= page_starts[p - 1] or page_starts[p] > n:
            raise ValueError("page_starts must be strictly increasing and within the data")
    if (counts.shape[0] != npages or counts.shape[1] != 4
            or keys.shape[0] != npages or keys.shape[1] != 4):
        raise ValueError("counts and keys must have shape (npages, 4)")
    if validity_kind == VALIDITY_BYTES or validity_kind == VALIDITY_NULL_BYTES:
        if validity.shape[0] != n:
            raise ValueError("byte validity must have one entry per value")
    elif validity_kind == VALIDITY_BITMAP:
        if bit_offset < 0 or validity.shape[0] * 8 < bit_offset + n:
            raise ValueError("validity bitmap is too short for the data and bit offset")
    elif validity_kind != VALIDITY_NONE:
        raise ValueError(f"unknown validity kind {validity_kind}")
    cdef const uint8_t* vptr = &validity[0] if validity.shape[0] > 0 else NULL
    cdef int64_t nbytes = validity.shape[0]
    cdef const bits_t* dptr = &data[0] if n > 0 else NULL
    cdef int width_code = 0 if bits_t is uint16_t else (1 if bits_t is uint32_t else 2)
    cdef ns_scan_fn fn = NULL
    if _level != 0:
        fn = ns_scan_function(_level, width_code)
        if fn == NULL:
            raise RuntimeError("no scan kernel for this level and width")
    with nogil:
        if fn != NULL:
            fn(<const void*>dptr, n, validity_kind, vptr, nbytes, bit_offset, &page_starts[0],
               npages, &counts[0, 0], &keys[0, 0])
        elif bits_t is uint16_t:
            _scan_portable(<const int16_t*>dptr, n, validity_kind, vptr, nbytes, bit_offset,
                           &page_starts[0], npages, &counts[0, 0], &keys[0, 0])
        elif bits_t is uint32_t:
            _scan_portable(<const int32_t*>dptr, n, validity_kind, vptr, nbytes, bit_offset,
                           &page_starts[0], npages, &counts[0, 0], &keys[0, 0])
        else:
            _scan_portable(<const int64_t*>dptr, n, validity_kind, vptr, nbytes, bit_offset,
                           &page_starts[0], npages, &counts[0, 0], &keys[0, 0])
