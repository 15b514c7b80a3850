/* Run-time choice of the ISA level.  Plain C: it is compiled by every
 * compiler, MSVC included, even when no SIMD level is built. */
#include "scan.h"

#ifdef NS_BUILT_BASELINE
extern const ns_scan_fn ns_table_baseline[3];
#endif
#ifdef NS_BUILT_AVX2
extern const ns_scan_fn ns_table_avx2[3];
#endif
#ifdef NS_BUILT_AVX512
extern const ns_scan_fn ns_table_avx512[3];
#endif

uint64_t ns_far16_bytes = (uint64_t)16 << 20;

int ns_level_built(int level)
{
    switch (level) {
    case NS_LEVEL_PORTABLE:
        return 1;
#ifdef NS_BUILT_BASELINE
    case NS_LEVEL_BASELINE:
        return 1;
#endif
#ifdef NS_BUILT_AVX2
    case NS_LEVEL_AVX2:
        return 1;
#endif
#ifdef NS_BUILT_AVX512
    case NS_LEVEL_AVX512:
        return 1;
#endif
    default:
        return 0;
    }
}

int ns_level_available(int level)
{
    if (!ns_level_built(level))
        return 0;
    if (level == NS_LEVEL_PORTABLE || level == NS_LEVEL_BASELINE)
        return 1;
    /* gcc and clang (which defines __GNUC__) on x86: libgcc's / compiler-rt's
     * CPU model.  The AVX levels are only built where the probe found
     * __builtin_cpu_supports, so no other compiler gets here. */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    __builtin_cpu_init();
    if (level == NS_LEVEL_AVX2)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
    /* The check includes the OS saving the AVX-512 registers (XGETBV). */
    if (level == NS_LEVEL_AVX512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
#endif
    return 0;
}

int ns_best_level(void)
{
    int level;
    for (level = NS_LEVEL_AVX512; level > NS_LEVEL_PORTABLE; level--)
        if (ns_level_available(level))
            return level;
    return NS_LEVEL_PORTABLE;
}

ns_scan_fn ns_scan_function(int level, int width_code)
{
    if (width_code < 0 || width_code > 2 || !ns_level_available(level))
        return 0;
    switch (level) {
#ifdef NS_BUILT_BASELINE
    case NS_LEVEL_BASELINE:
        return ns_table_baseline[width_code];
#endif
#ifdef NS_BUILT_AVX2
    case NS_LEVEL_AVX2:
        return ns_table_avx2[width_code];
#endif
#ifdef NS_BUILT_AVX512
    case NS_LEVEL_AVX512:
        return ns_table_avx512[width_code];
#endif
    default:
        return 0;
    }
}
