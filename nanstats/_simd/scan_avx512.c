/* The AVX-512 level (F, BW, DQ, VL), compiled for AVX-512 whatever the build
 * machine (each function carries the target attribute), used only where the
 * CPU and OS report it at run time.  Its loops are in
 * scan_avx512_template.h.  setup.py builds it only where its probe compiled
 * the same attribute and intrinsics. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#include "scan.h"

#define NS_ISA "avx512f,avx512bw,avx512dq,avx512vl,bmi,bmi2,popcnt"
/* NS_AVX512_TUNE: ",tune=<cpu>" where setup.py's probe found the compiler
 * takes it (build_probe.AVX512_TUNE says which and why), else nothing.
 * The float16 and float64 functions carry it; float32's keep the
 * compiler's tuning, under which its loop with a bool mask ran 3-4% faster
 * at 1e8 values (the tuned scheduler put the group's prefetches after its
 * work; AMD Zen 4, the kernel alone, both builds in one process, best of
 * 8-10, two runs: one summary 16.3-16.8 -> 16.9-17.5 ms). */
#ifndef NS_AVX512_TUNE
#define NS_AVX512_TUNE ""
#endif
#define NS_TUNE16 NS_AVX512_TUNE
#define NS_TUNE32 ""
#define NS_TUNE64 NS_AVX512_TUNE
#define NS_TUNE_(w) NS_TUNE##w
#define NS_TUNE(w) NS_TUNE_(w)
/* Used inside the template, where NS_W is set. */
#define NS_TARGET __attribute__((target(NS_ISA NS_TUNE(NS_W))))

/* Inlined into every width's functions, whatever their tuning (gcc inlines
 * a plain static inline function only into callers of the same tuning). */
__attribute__((target(NS_ISA), always_inline)) static inline uint64_t
ns_avx512_load8(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

#include "scan_bits.h"

#define NS_SUFFIX _avx512
#define NS_TEMPLATE "scan_avx512_template.h"
#include "scan_levels.h"
