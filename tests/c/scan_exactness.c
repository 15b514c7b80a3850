/* The C kernel levels against a scalar reference, on random bit patterns, in C alone.
 *
 * Built by tools/cross_kernels.py for the host and for other architectures
 * (aarch64 through gcc-aarch64-linux-gnu, run under qemu-user), where the
 * Python test suite cannot run.  For every width (16, 32, 64), validity kind
 * (none, bytes, null bytes, Arrow bitmap with a bit offset) and a few
 * hundred random cases (lengths, page splits, bit patterns weighted towards
 * NaNs of both signs, zeros, infinities and subnormals), each level built
 * and runnable here scans the case and must give exactly what the scalar
 * reference below gives: counts, and totalOrder keys sign-extended to int64
 * (the contract of nanstats/_kernels.pyx).  The reference is written from
 * the definitions, as nanstats/testing/oracle.py is.
 *
 * Output: one line per level and width with an FNV-1a digest of every
 * count and key it produced, then "ok" (exit 0) or the first mismatch
 * (exit 1).  The cases depend on the seed only, so the same digests on two
 * architectures mean the same results, bit for bit. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

#define CASES 2000
#define MAX_N 3000
#define MAX_PAGES 8

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t next_random(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Du;
}

static uint64_t below(uint64_t n) { return next_random() % n; }

/* A bit pattern of `width` bits: uniform, or one of the special classes. */
static uint64_t random_bits(int width)
{
    int mant = width == 16 ? 10 : width == 32 ? 23 : 52;
    uint64_t sign = (uint64_t)1 << (width - 1);
    uint64_t exp_all = (sign - 1) & ~(((uint64_t)1 << mant) - 1);
    uint64_t mant_mask = ((uint64_t)1 << mant) - 1;
    uint64_t all = width == 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
    uint64_t s = below(2) ? sign : 0;
    switch (below(8)) {
    case 0: /* NaN: quiet or signalling, any payload */
        return s | exp_all | ((next_random() & mant_mask) | 1);
    case 1: /* zero or infinity */
        return s | (below(2) ? exp_all : 0);
    case 2: /* subnormal */
        return s | (next_random() & mant_mask);
    case 3: /* the largest finite values and the smallest NaNs */
        return s | (exp_all - 1 - below(3)) | (below(2) ? exp_all + 1 : 0);
    default:
        return next_random() & all;
    }
}

static int64_t key_of(uint64_t bits, int width)
{
    /* Sign-extend the pattern, then flip the magnitude bits of negatives. */
    int64_t s = width == 64 ? (int64_t)bits : (int64_t)(bits << (64 - width)) >> (64 - width);
    int64_t magnitude = width == 64 ? INT64_MAX : (int64_t)(((uint64_t)1 << (width - 1)) - 1);
    return s < 0 ? s ^ magnitude : s;
}

static int is_nan(uint64_t bits, int width)
{
    int mant = width == 16 ? 10 : width == 32 ? 23 : 52;
    uint64_t mag = bits & ((((uint64_t)1 << (width - 1)) - 1));
    uint64_t exp_all = ((((uint64_t)1 << (width - 1)) - 1)) & ~(((uint64_t)1 << mant) - 1);
    return mag > exp_all;
}

static void reference(const uint64_t *bits, const int *valid, int width,
                      const int64_t *starts, int64_t npages, int64_t n,
                      int64_t *counts, int64_t *keys)
{
    for (int64_t p = 0; p < npages; p++) {
        int64_t stop = p + 1 < npages ? starts[p + 1] : n;
        int64_t c[4] = {stop - starts[p], 0, 0, 0};
        int64_t k[4] = {INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN};
        for (int64_t i = starts[p]; i < stop; i++) {
            if (!valid[i]) {
                c[1]++;
                continue;
            }
            int64_t key = key_of(bits[i], width);
            int nan = is_nan(bits[i], width);
            if (nan)
                c[key < 0 ? 3 : 2]++;
            int64_t *lo = &k[nan ? 2 : 0], *hi = &k[nan ? 3 : 1];
            *lo = key < *lo ? key : *lo;
            *hi = key > *hi ? key : *hi;
        }
        memcpy(counts + 4 * p, c, sizeof c);
        memcpy(keys + 4 * p, k, sizeof k);
    }
}

static uint64_t fnv(uint64_t h, const int64_t *v, int64_t count)
{
    /* The bytes of each value, least significant first: the same on either endianness. */
    for (int64_t i = 0; i < count; i++)
        for (int byte = 0; byte < 8; byte++)
            h = (h ^ (((uint64_t)v[i] >> (8 * byte)) & 0xFF)) * 0x100000001B3u;
    return h;
}

static const char *LEVEL_NAMES[] = {"portable", "baseline", "avx2", "avx512"};
static const char *KIND_NAMES[] = {"none", "bytes", "bitmap", "null_bytes"};

int main(void)
{
    static uint64_t bits[MAX_N];
    static uint16_t d16[MAX_N];
    static uint32_t d32[MAX_N];
    static uint64_t d64[MAX_N];
    static int valid[MAX_N];
    static uint8_t vbytes[MAX_N], bitmap[MAX_N / 8 + 16];
    int64_t starts[MAX_PAGES], want_c[4 * MAX_PAGES], want_k[4 * MAX_PAGES];
    int64_t got_c[4 * MAX_PAGES], got_k[4 * MAX_PAGES];
    uint64_t digest[4][3];
    int levels = 0;

    for (int level = NS_LEVEL_BASELINE; level <= NS_LEVEL_AVX512; level++) {
        for (int w = 0; w < 3; w++)
            digest[level][w] = 0xCBF29CE484222325u;
        if (ns_level_available(level))
            levels++;
        else
            printf("%s: %s\n", LEVEL_NAMES[level],
                   ns_level_built(level) ? "built, not runnable here" : "not built");
    }
    if (!levels) {
        printf("no C level is runnable here\n");
        return 1;
    }
    for (int w = 0; w < 3; w++) {
        int width = 16 << w;
        for (int c = 0; c < CASES; c++) {
            int kind = c % 4;
            int64_t n = (int64_t)(c % 7 == 0 ? below(40) : below(MAX_N)) + 1;
            int64_t bit_offset = (int64_t)below(8 * 8);
            int null_share = (int)below(4); /* none, few, half, most */
            for (int64_t i = 0; i < n; i++) {
                bits[i] = random_bits(width);
                d16[i] = (uint16_t)bits[i];
                d32[i] = (uint32_t)bits[i];
                d64[i] = bits[i];
                uint64_t r = below(100);
                valid[i] = kind == NS_VALIDITY_NONE ||
                           !(null_share == 0 ? 0 : null_share == 1 ? r < 5
                             : null_share == 2 ? r < 50 : r < 95);
            }
            memset(bitmap, 0, sizeof bitmap);
            for (int64_t i = 0; i < n; i++) {
                vbytes[i] = kind == NS_VALIDITY_NULL_BYTES ? !valid[i] : valid[i];
                if (valid[i])
                    bitmap[(bit_offset + i) / 8] |= (uint8_t)(1u << ((bit_offset + i) % 8));
            }
            int64_t npages = 1 + (int64_t)below(MAX_PAGES);
            starts[0] = 0;
            for (int64_t p = 1; p < npages; p++) {
                starts[p] = starts[p - 1] + 1 + (int64_t)below((uint64_t)n);
                if (starts[p] >= n) {
                    npages = p;
                    break;
                }
            }
            reference(bits, valid, width, starts, npages, n, want_c, want_k);
            const void *data = w == 0 ? (const void *)d16 : w == 1 ? (const void *)d32
                                                                   : (const void *)d64;
            const uint8_t *validity = kind == NS_VALIDITY_BITMAP ? bitmap
                                      : kind == NS_VALIDITY_NONE ? NULL : vbytes;
            int64_t nbytes = kind == NS_VALIDITY_BITMAP ? (bit_offset + n + 7) / 8
                             : kind == NS_VALIDITY_NONE ? 0 : n;
            for (int level = NS_LEVEL_BASELINE; level <= NS_LEVEL_AVX512; level++) {
                ns_scan_fn scan = ns_scan_function(level, w);
                if (!scan)
                    continue;
                scan(data, n, kind, validity, nbytes, kind == NS_VALIDITY_BITMAP ? bit_offset : 0,
                     starts, npages, got_c, got_k);
                for (int64_t i = 0; i < 4 * npages; i++) {
                    if (got_c[i] != want_c[i] || got_k[i] != want_k[i]) {
                        printf("MISMATCH level %s, width %d, validity %s, case %d (n=%" PRId64
                               ", page %" PRId64 ", field %" PRId64 "): count %" PRId64
                               " want %" PRId64 ", key %" PRId64 " want %" PRId64 "\n",
                               LEVEL_NAMES[level], width, KIND_NAMES[kind], c, n, i / 4, i % 4,
                               got_c[i], want_c[i], got_k[i], want_k[i]);
                        return 1;
                    }
                }
                digest[level][w] = fnv(fnv(digest[level][w], got_c, 4 * npages), got_k,
                                       4 * npages);
            }
        }
    }
    for (int level = NS_LEVEL_BASELINE; level <= NS_LEVEL_AVX512; level++)
        if (ns_level_available(level))
            for (int w = 0; w < 3; w++)
                printf("%s float%d: %d cases x 4 validity kinds, digest %016" PRIx64 "\n",
                       LEVEL_NAMES[level], 16 << w, CASES / 4, digest[level][w]);
    printf("ok\n");
    return 0;
}
