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

#include "scan_bits.h"

#define NS_SUFFIX _avx2
#define NS_TEMPLATE "scan_avx2_template.h"
#include "scan_levels.h"
