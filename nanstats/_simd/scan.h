/* One-pass float statistics over bit patterns: the C kernels behind
 * nanstats._kernels.scan, compiled once per instruction-set level and chosen
 * at run time (scan_dispatch.c).  See scan_template.h for the loops.
 *
 * Level 0 (portable) is the typed Cython loops of _kernels.pyx; the others
 * are built only where setup.py's compiler probe says they compile, which it
 * tells scan_dispatch.c with NS_BUILT_BASELINE, NS_BUILT_AVX2 and
 * NS_BUILT_AVX512.  This header and scan_dispatch.c are plain C (MSVC too). */
#ifndef NANSTATS_SCAN_H
#define NANSTATS_SCAN_H

#include <stdint.h>

enum { NS_VALIDITY_NONE = 0, NS_VALIDITY_BYTES = 1, NS_VALIDITY_BITMAP = 2,
       NS_VALIDITY_NULL_BYTES = 3 };

enum { NS_LEVEL_PORTABLE = 0, NS_LEVEL_BASELINE = 1, NS_LEVEL_AVX2 = 2, NS_LEVEL_AVX512 = 3 };

/* Per page p: counts[4p..4p+3] = num_values, nulls, +NaN, -NaN;
 * keys[4p..4p+3] = value min, value max, NaN min, NaN max (int64 keys;
 * INT64_MAX / INT64_MIN when the page has no such value). */
typedef void (*ns_scan_fn)(const void *data, int64_t n, int kind, const uint8_t *validity,
                           int64_t validity_nbytes, int64_t bit_offset,
                           const int64_t *page_starts, int64_t npages,
                           int64_t *counts, int64_t *keys);

/* The C function of a level for width code 0=16, 1=32, 2=64; NULL for the
 * portable level (not C) and for a level not built or not runnable here. */
ns_scan_fn ns_scan_function(int level, int width_code);
/* Whether the level is in this build; whether it is and this CPU runs it. */
int ns_level_built(int level);
int ns_level_available(int level);
int ns_best_level(void);
/* The AVX2 float16 page loops prefetch a bitmap's values into L2 as well
 * where a call's values take this many bytes or more (read from memory);
 * settable for the tests, which run those loops' copies on small data. */
extern uint64_t ns_far16_bytes;

#endif
