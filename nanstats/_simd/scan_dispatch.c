/* Run-time choice of the ISA level. */
#include "scan.h"

extern const ns_scan_fn ns_table_baseline[3];
#if defined(__x86_64__) || defined(_M_X64)
extern const ns_scan_fn ns_table_avx2[3];
extern const ns_scan_fn ns_table_avx512[3];
#endif

int ns_level_available(int level)
{
    if (level == NS_LEVEL_BASELINE)
        return 1;
#if defined(__x86_64__) && defined(__GNUC__)
    if (level == NS_LEVEL_AVX2) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
    }
    /* libgcc's check includes the OS saving the AVX-512 registers (XGETBV). */
    if (level == NS_LEVEL_AVX512) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
    }
#endif
    return 0;
}

int ns_best_level(void)
{
    for (int level = NS_LEVEL_AVX512; level > NS_LEVEL_BASELINE; level--)
        if (ns_level_available(level))
            return level;
    return NS_LEVEL_BASELINE;
}

ns_scan_fn ns_scan_function(int level, int width_code)
{
    if (width_code < 0 || width_code > 2 || !ns_level_available(level))
        return 0;
#if defined(__x86_64__) || defined(_M_X64)
    if (level == NS_LEVEL_AVX2)
        return ns_table_avx2[width_code];
    if (level == NS_LEVEL_AVX512)
        return ns_table_avx512[width_code];
#endif
    return ns_table_baseline[width_code];
}
