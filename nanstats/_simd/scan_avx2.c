/* The AVX2 level, compiled for AVX2 whatever the build machine (each
 * function carries the target attribute), used only where the CPU reports
 * AVX2 at run time.  setup.py builds it only where its probe compiled the
 * same attribute and intrinsics (x86 with gcc or clang). */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#define NS_TARGET __attribute__((target("avx2,bmi,bmi2,popcnt")))
#define NS_SUFFIX _avx2
#define NS_VBYTES 32
#define NS_NATIVE_MIN16(a, b) _mm256_min_epi16((__m256i)(a), (__m256i)(b))
#define NS_NATIVE_MAX16(a, b) _mm256_max_epi16((__m256i)(a), (__m256i)(b))
#define NS_NATIVE_MIN32(a, b) _mm256_min_epi32((__m256i)(a), (__m256i)(b))
#define NS_NATIVE_MAX32(a, b) _mm256_max_epi32((__m256i)(a), (__m256i)(b))
#define NS_NATIVE_WIDEN8_16(p) _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(p)))
#define NS_NATIVE_WIDEN8_32(p) _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p)))
#define NS_NATIVE_WIDEN8_64(p) _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(ns_load_u32_(p)))
NS_TARGET static inline int ns_load_u32_(const void *p)
{
    int x;
    memcpy(&x, p, 4);
    return x;
}
#include "scan_levels.h"
