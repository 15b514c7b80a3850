/* The AVX2 level, compiled for AVX2 whatever the build machine (each
 * function carries the target attribute), used only where the CPU reports
 * AVX2 at run time.  Its loops are in scan_avx2_template.h.  setup.py builds
 * it only where its probe compiled the same attribute and intrinsics (x86
 * with gcc or clang). */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#include "scan.h"

#define NS_TARGET __attribute__((target("avx2,bmi,bmi2,popcnt")))

/* 64 validity bits starting at bit `pos`, reading only bytes < nbytes. */
NS_TARGET static inline uint64_t ns_avx2_bits(const uint8_t *v, int64_t nbytes, int64_t pos)
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

#define NS_SUFFIX _avx2
#define NS_TEMPLATE "scan_avx2_template.h"
#include "scan_levels.h"
