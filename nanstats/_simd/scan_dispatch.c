/* Run-time choice of the ISA level. */
#include "scan.h"

extern const ns_scan_fn ns_table_baseline[3];
#if defined(__x86_64__) || defined(_M_X64)
extern const ns_scan_fn ns_table_avx2[3];
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
#endif
    return 0;
}

int ns_best_level(void)
{
    return ns_level_available(NS_LEVEL_AVX2) ? NS_LEVEL_AVX2 : NS_LEVEL_BASELINE;
}

ns_scan_fn ns_scan_function(int level, int width_code)
{
    if (width_code < 0 || width_code > 2 || !ns_level_available(level))
        return 0;
#if defined(__x86_64__) || defined(_M_X64)
    if (level == NS_LEVEL_AVX2)
        return ns_table_avx2[width_code];
#endif
    return ns_table_baseline[width_code];
}
