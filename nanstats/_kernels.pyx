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

from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t

ctypedef fused bits_t:
    uint16_t
    uint32_t
    uint64_t

# Validity kinds understood by scan().
VALIDITY_NONE = 0
VALIDITY_BYTES = 1
VALIDITY_BITMAP = 2
VALIDITY_NULL_BYTES = 3  # one byte per value, non-zero = null (numpy/pandas masks)


cdef extern from "_simd/scan.h":
    ctypedef void (*ns_scan_fn)(const void *data, int64_t n, int kind, const uint8_t *validity,
                                int64_t validity_nbytes, int64_t bit_offset,
                                const int64_t *page_starts, int64_t npages,
                                int64_t *counts, int64_t *keys) noexcept nogil
    ns_scan_fn ns_scan_function(int level, int width_code) noexcept nogil
    int ns_level_available(int level) noexcept nogil
    int ns_best_level() noexcept nogil

# Instruction-set levels, lowest first.  The loops are the same C code
# compiled for each level (nanstats/_simd/); the best level the CPU supports
# is used unless NANSTATS_SIMD or set_simd_level() says otherwise.
SIMD_LEVELS = ("baseline", "avx2", "avx512")
cdef int _level = ns_best_level()


def simd_levels():
    """The instruction-set levels this CPU can run, lowest first."""
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
    if not ns_level_available(i):
        raise ValueError(f"this CPU cannot run the {name!r} level; it can run "
                         f"{', '.join(simd_levels())}")
    _level = i


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
    cdef int width_code = 0 if bits_t is uint16_t else (1 if bits_t is uint32_t else 2)
    cdef ns_scan_fn fn = ns_scan_function(_level, width_code)
    cdef const uint8_t* vptr = &validity[0] if validity.shape[0] > 0 else NULL
    cdef const void* dptr = <const void*>&data[0] if n > 0 else NULL
    cdef int64_t nbytes = validity.shape[0]
    if fn == NULL:
        raise RuntimeError("no scan kernel for this level and width")
    with nogil:
        fn(dptr, n, validity_kind, vptr, nbytes, bit_offset, &page_starts[0], npages,
           &counts[0, 0], &keys[0, 0])
