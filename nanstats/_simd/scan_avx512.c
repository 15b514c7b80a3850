/* The AVX-512 level (F, BW, DQ, VL), compiled for AVX-512 whatever the build
 * machine (each function carries the target attribute), used only where the
 * CPU and OS report it at run time.  Its loops are in
 * scan_avx512_template.h.  setup.py builds it only where its probe compiled
 * the same attribute and intrinsics. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#include "scan.h"

/* NS_AVX512_TUNE: ",tune=<cpu>" where setup.py's probe found the compiler
 * takes it (build_probe.AVX512_TUNE says which and why), else nothing. */
#ifndef NS_AVX512_TUNE
#define NS_AVX512_TUNE ""
#endif
#define NS_TARGET                                                             \
    __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,bmi,bmi2,popcnt" NS_AVX512_TUNE)))

NS_TARGET static inline uint64_t ns_avx512_load8(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

#include "scan_bits.h"

#define NS_SUFFIX _avx512
#define NS_TEMPLATE "scan_avx512_template.h"
#include "scan_levels.h"
