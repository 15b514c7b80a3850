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

from libc.stdint cimport (
    int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t,
    INT64_MAX, INT64_MIN,
)

ctypedef fused bits_t:
    uint16_t
    uint32_t
    uint64_t

# Validity kinds understood by scan().
VALIDITY_NONE = 0
VALIDITY_BYTES = 1
VALIDITY_BITMAP = 2
VALIDITY_NULL_BYTES = 3  # one byte per value, non-zero = null (numpy/pandas masks)


cdef inline int64_t _key(bits_t b) noexcept nogil:
    # Sign-extend to int64, then flip the magnitude bits of negatives.  The
    # mask is all ones below the sign bit of the width when negative, else 0.
    cdef int64_t s
    if bits_t is uint16_t:
        s = <int16_t>b
        return s ^ ((s >> 63) & 0x7FFF)
    elif bits_t is uint32_t:
        s = <int32_t>b
        return s ^ ((s >> 63) & 0x7FFFFFFF)
    else:
        s = <int64_t>b
        return s ^ (<int64_t>(<uint64_t>(s >> 63) >> 1))


cdef inline bint _is_nan(bits_t b) noexcept nogil:
    # Exponent all ones and a non-zero mantissa: the magnitude exceeds inf.
    if bits_t is uint16_t:
        return (b & 0x7FFF) > 0x7C00
    elif bits_t is uint32_t:
        return (b & 0x7FFFFFFF) > 0x7F800000
    else:
        return (b & 0x7FFFFFFFFFFFFFFFULL) > 0x7FF0000000000000ULL


cdef struct Acc:
    int64_t nulls
    int64_t pos_nan
    int64_t neg_nan
    int64_t vmin
    int64_t vmax
    int64_t nmin
    int64_t nmax


cdef inline void _acc_reset(Acc* a) noexcept nogil:
    a.nulls = 0
    a.pos_nan = 0
    a.neg_nan = 0
    a.vmin = INT64_MAX
    a.vmax = INT64_MIN
    a.nmin = INT64_MAX
    a.nmax = INT64_MIN


cdef inline void _acc_add(Acc* a, bits_t b, int64_t valid) noexcept nogil:
    # Branch-free: every update is a select on 0/1 flags, so the loops that
    # call this can be vectorised.
    cdef int64_t key = _key(b)
    cdef int64_t nan = _is_nan(b)
    cdef int64_t neg = key < 0
    cdef int64_t vnan = valid & nan
    cdef int64_t vnum = valid & (nan ^ 1)
    a.nulls += valid ^ 1
    a.pos_nan += vnan & (neg ^ 1)
    a.neg_nan += vnan & neg
    a.vmin = min(a.vmin, key if vnum else INT64_MAX)
    a.vmax = max(a.vmax, key if vnum else INT64_MIN)
    a.nmin = min(a.nmin, key if vnan else INT64_MAX)
    a.nmax = max(a.nmax, key if vnan else INT64_MIN)


cdef inline void _acc_store(Acc* a, int64_t n, int64_t[:, ::1] counts,
                            int64_t[:, ::1] keys, Py_ssize_t p) noexcept nogil:
    counts[p, 0] = n
    counts[p, 1] = a.nulls
    counts[p, 2] = a.pos_nan
    counts[p, 3] = a.neg_nan
    keys[p, 0] = a.vmin
    keys[p, 1] = a.vmax
    keys[p, 2] = a.nmin
    keys[p, 3] = a.nmax


cdef void _scan_pages(const bits_t[::1] data, int kind, const uint8_t[::1] validity,
                      int64_t bit_offset, const int64_t[::1] page_starts,
                      int64_t[:, ::1] counts, int64_t[:, ::1] keys) noexcept nogil:
    cdef Py_ssize_t n = data.shape[0]
    cdef Py_ssize_t npages = page_starts.shape[0]
    cdef Py_ssize_t p, i, start, stop
    cdef int64_t bit
    cdef Acc acc
    cdef const bits_t* d = &data[0] if n > 0 else NULL
    cdef const uint8_t* v = &validity[0] if validity.shape[0] > 0 else NULL
    for p in range(npages):
        start = page_starts[p]
        stop = page_starts[p + 1] if p + 1 < npages else n
        _acc_reset(&acc)
        if kind == 0:
            for i in range(start, stop):
                _acc_add(&acc, d[i], 1)
        elif kind == 1:
            for i in range(start, stop):
                _acc_add(&acc, d[i], v[i] != 0)
        elif kind == 3:
            for i in range(start, stop):
                _acc_add(&acc, d[i], v[i] == 0)
        else:
            for i in range(start, stop):
                bit = bit_offset + i
                _acc_add(&acc, d[i], (v[bit >> 3] >> (bit & 7)) & 1)
        _acc_store(&acc, stop - start, counts, keys, p)


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
    if counts.shape[0] != npages or counts.shape[1] != 4 or keys.shape[0] != npages or keys.shape[1] != 4:
        raise ValueError("counts and keys must have shape (npages, 4)")
    if validity_kind == VALIDITY_BYTES or validity_kind == VALIDITY_NULL_BYTES:
        if validity.shape[0] != n:
            raise ValueError("byte validity must have one entry per value")
    elif validity_kind == VALIDITY_BITMAP:
        if bit_offset < 0 or validity.shape[0] * 8 < bit_offset + n:
            raise ValueError("validity bitmap is too short for the data and bit offset")
    elif validity_kind != VALIDITY_NONE:
        raise ValueError(f"unknown validity kind {validity_kind}")
    with nogil:
        _scan_pages(data, validity_kind, validity, bit_offset, page_starts, counts, keys)
