/* One-pass float statistics over bit patterns: the C kernels behind
 * nanstats._kernels.scan, compiled once per instruction-set level and chosen
 * at run time (scan_dispatch.c).  See scan_template.h for the loops. */
#ifndef NANSTATS_SCAN_H
#define NANSTATS_SCAN_H

#include <stdint.h>

enum { NS_VALIDITY_NONE = 0, NS_VALIDITY_BYTES = 1, NS_VALIDITY_BITMAP = 2,
       NS_VALIDITY_NULL_BYTES = 3 };

enum { NS_LEVEL_BASELINE = 0, NS_LEVEL_AVX2 = 1, NS_LEVEL_AVX512 = 2 };

/* Per page p: counts[4p..4p+3] = num_values, nulls, +NaN, -NaN;
 * keys[4p..4p+3] = value min, value max, NaN min, NaN max (int64 keys;
 * INT64_MAX / INT64_MIN when the page has no such value). */
typedef void (*ns_scan_fn)(const void *data, int64_t n, int kind, const uint8_t *validity,
                           int64_t validity_nbytes, int64_t bit_offset,
                           const int64_t *page_starts, int64_t npages,
                           int64_t *counts, int64_t *keys);

/* Index: [level][width code 0=16, 1=32, 2=64]. */
ns_scan_fn ns_scan_function(int level, int width_code);
int ns_level_available(int level);
int ns_best_level(void);

#endif
