/* The AVX-512 level (F, BW, DQ, VL), compiled for AVX-512 whatever the build
 * machine (each function carries the target attribute), used only where the
 * CPU and OS report it at run time.  Its loops are in
 * scan_avx512_template.h.  setup.py builds it only where its probe compiled
 * the same attribute and intrinsics. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#include "scan.h"

#define NS_TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,bmi,bmi2,popcnt")))

NS_TARGET static inline uint64_t ns_avx512_load8(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* 64 validity bits starting at bit `pos`, reading only bytes < nbytes. */
NS_TARGET static inline uint64_t ns_avx512_bits(const uint8_t *v, int64_t nbytes, int64_t pos)
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

#define NS_SUFFIX _avx512
#define NS_TEMPLATE "scan_avx512_template.h"
#include "scan_levels.h"
