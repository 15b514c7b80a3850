/* Plain-C helpers of the hand-vectorised levels: validity bits, and a
 * choice made without a branch. */
#ifndef NS_SCAN_BITS_H
#define NS_SCAN_BITS_H
#include <stdint.h>
#include <string.h>

/* 64 validity bits starting at bit `pos`, reading only bytes < nbytes.
 * Plain C, always inlined into every level's target-specific loops (gcc
 * inlines a plain static inline function only into callers of its own
 * tuning, and the AVX-512 level's are tuned: see scan_avx512.c). */
static inline __attribute__((always_inline)) uint64_t
ns_validity_bits(const uint8_t *v, int64_t nbytes, int64_t pos)
{
    int64_t byte = pos >> 3;
    unsigned shift = (unsigned)(pos & 7);
    uint64_t lo = 0, hi = 0;
    if (byte + 9 <= nbytes) {
        memcpy(&lo, v + byte, 8);
        hi = v[byte + 8];
    } else {
        for (int k = 0; k < 8 && byte + k < nbytes; k++)
            lo |= (uint64_t)v[byte + k] << (8 * k);
        if (byte + 8 < nbytes)
            hi = v[byte + 8];
    }
    return shift ? (lo >> shift) | (hi << (64 - shift)) : lo;
}

/* yes where cond, else no, by a mask rather than a branch (the empty asm
 * keeps gcc from turning it back into one).  For a page end's choice on
 * the page's NaN count: a branch on it waits on the page's last rows, and
 * mispredicted (one page in two with few NaNs) it cost far more at 1e8
 * values than in cache (AMD Zen 4, pages of 1,000 rows at 0.1% NaN: see
 * the AVX-512 driver's page end and the AVX2 float32/64 NS_FINISH). */
static inline __attribute__((always_inline)) int64_t
ns_pick_i64(int cond, int64_t yes, int64_t no)
{
    int64_t m = -(int64_t)(cond != 0);
    __asm__("" : "+r"(m));
    return (m & yes) | (~m & no);
}
#endif
