/* Floor probes for the AVX2 float16 targets with an Arrow bitmap (not part
 * of the package: built and loaded by bench_support/floor.py).
 *
 * Each loop does less than any exact kernel must, so its speed bounds what a
 * kernel can reach on the machine it runs on:
 * - ns_floor_read2: the values and the bitmap read (one 32-bit word of bits
 *   a 32 rows, summed), a min and a max a vector: the read of both streams.
 * - ns_floor_bitmap16: per page, each vector's 16 validity bits widened to
 *   lanes (broadcast, and, compare), one blend with a valid row of the page,
 *   one min and one max, the last rows of the page in one more vector, and
 *   the two horizontal reductions of the page's min and max.  An exact
 *   kernel does all of it and more (the total-order key, NaN lanes kept out
 *   of the value extremes, the NaN extremes, the counts).
 * Both return the signed 16-bit min and max of the valid rows (the bits read
 * as int16), so that a test can check that they read what they should. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define TG __attribute__((target("avx2,bmi,popcnt")))
/* As far ahead as the AVX2 kernel's loops prefetch: at 2 KB these probes
 * read 0.79-0.80 of the ceiling on AMD Zen 5 where the kernel without nulls
 * read 0.88-1.02, so they bounded the prefetch distance, not the machine;
 * at 6 KB, 0.90-0.95.  The kernel went to 10 KB later (a few percent
 * faster at 40-43 GB/s a thread); the probes follow it. */
#define PF_BYTES 10240

static const int16_t LBIT[16] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192,
                                 16384, (int16_t)0x8000};

TG static inline __m256i lanemask(uint32_t w, __m256i lbit)
{
    return _mm256_cmpeq_epi16(_mm256_and_si256(_mm256_set1_epi16((short)w), lbit), lbit);
}

TG static inline int16_t hmin(__m256i x)
{
    __m128i a = _mm_min_epi16(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
    a = _mm_xor_si128(a, _mm_set1_epi16((short)0x8000));
    return (int16_t)(_mm_cvtsi128_si32(_mm_minpos_epu16(a)) ^ 0x8000);
}

TG static inline int16_t hmax(__m256i x)
{
    __m128i a = _mm_max_epi16(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
    a = _mm_xor_si128(a, _mm_set1_epi16(0x7FFF));
    return (int16_t)(_mm_cvtsi128_si32(_mm_minpos_epu16(a)) ^ 0x7FFF);
}

/* 64 bits of the bitmap from bit `pos` (bytes < nbytes only). */
static inline uint64_t bits64(const uint8_t *bm, int64_t nbytes, int64_t pos)
{
    uint64_t w = 0;
    int64_t byte = pos >> 3;
    if (byte + 9 <= nbytes) {
        unsigned sh = (unsigned)(pos & 7);
        memcpy(&w, bm + byte, 8);
        return sh ? (w >> sh) | ((uint64_t)bm[byte + 8] << (64 - sh)) : w;
    }
    for (int k = 0; k < 9 && byte + k < nbytes; k++) {
        uint64_t b = bm[byte + k];
        int sh = 8 * k - (int)(pos & 7);
        w |= sh >= 0 ? (sh < 64 ? b << sh : 0) : b >> -sh;
    }
    return w;
}

TG int64_t ns_floor_read2(const int16_t *d, int64_t n, const uint8_t *bm, int16_t *out)
{
    __m256i mn = _mm256_set1_epi16(INT16_MAX), mx = _mm256_set1_epi16(INT16_MIN);
    int64_t acc = 0, i = 0;
    for (; i + 32 <= n; i += 32) {
        uint32_t w;
        _mm_prefetch((const char *)(d + i) + PF_BYTES, _MM_HINT_T0);
        memcpy(&w, bm + i / 8, 4);
        acc += __builtin_popcount(w);
        __m256i s0 = _mm256_loadu_si256((const __m256i *)(d + i));
        __m256i s1 = _mm256_loadu_si256((const __m256i *)(d + i + 16));
        mn = _mm256_min_epi16(mn, _mm256_min_epi16(s0, s1));
        mx = _mm256_max_epi16(mx, _mm256_max_epi16(s0, s1));
    }
    int16_t lo = hmin(mn), hi = hmax(mx);
    for (; i < n; i++) {
        lo = d[i] < lo ? d[i] : lo;
        hi = d[i] > hi ? d[i] : hi;
    }
    out[0] = lo;
    out[1] = hi;
    return acc;
}

/* Pages of page_rows rows (the last one shorter; 0: one page), the bitmap
 * from bit 0 with nbytes bytes; out[2p], out[2p+1]: page p's min and max
 * (INT16_MAX, INT16_MIN for a page of nulls). */
TG void ns_floor_bitmap16(const int16_t *d, int64_t n, const uint8_t *bm, int64_t nbytes,
                          int64_t page_rows, int16_t *out)
{
    const __m256i lbit = _mm256_loadu_si256((const __m256i *)LBIT);
    if (page_rows <= 0)
        page_rows = n;
    for (int64_t start = 0, p = 0; start < n; start += page_rows, p++) {
        const int64_t rows = n - start < page_rows ? n - start : page_rows;
        const int16_t *row = d + start;
        uint64_t w0 = bits64(bm, nbytes, start);
        if (rows < 64)
            w0 &= ((uint64_t)1 << rows) - 1;
        int64_t first = w0 ? __builtin_ctzll(w0) : 64;
        while (first < rows && !((bm[(start + first) >> 3] >> ((start + first) & 7)) & 1))
            first++;
        if (first >= rows) {
            out[2 * p] = INT16_MAX;
            out[2 * p + 1] = INT16_MIN;
            continue;
        }
        const __m256i ref = _mm256_set1_epi16(row[first]);
        __m256i mn = ref, mx = ref;
        int64_t i = 0;
        if ((start & 7) == 0) { /* reads bytes below (start + rows) / 8 */
            const uint8_t *b = bm + start / 8;
            for (; i + 32 <= rows; i += 32) {
                uint16_t w[2];
                _mm_prefetch((const char *)(row + i) + PF_BYTES, _MM_HINT_T0);
                memcpy(w, b + i / 8, 4);
                __m256i s0 = _mm256_loadu_si256((const __m256i *)(row + i));
                __m256i s1 = _mm256_loadu_si256((const __m256i *)(row + i + 16));
                s0 = _mm256_blendv_epi8(ref, s0, lanemask(w[0], lbit));
                s1 = _mm256_blendv_epi8(ref, s1, lanemask(w[1], lbit));
                mn = _mm256_min_epi16(mn, _mm256_min_epi16(s0, s1));
                mx = _mm256_max_epi16(mx, _mm256_max_epi16(s0, s1));
            }
        }
        /* The rest: whole vectors, then the last 16 rows (overlapping rows
         * already taken, which get the reference row) or a padded copy. */
        for (; i + 16 <= rows; i += 16) {
            __m256i s = _mm256_loadu_si256((const __m256i *)(row + i));
            s = _mm256_blendv_epi8(ref, s, lanemask((uint32_t)bits64(bm, nbytes, start + i), lbit));
            mn = _mm256_min_epi16(mn, s);
            mx = _mm256_max_epi16(mx, s);
        }
        if (i < rows) {
            int64_t r = rows >= 16 ? rows - 16 : 0, take = rows - i;
            uint32_t fresh = rows >= 16 ? ~0u << (16 - take) : (1u << rows) - 1;
            __m256i s;
            if (rows >= 16) {
                s = _mm256_loadu_si256((const __m256i *)(row + r));
            } else {
                int16_t tail[16];
                for (int k = 0; k < 16; k++)
                    tail[k] = row[first];
                memcpy(tail, row, (size_t)rows * sizeof(int16_t));
                s = _mm256_loadu_si256((const __m256i *)tail);
            }
            s = _mm256_blendv_epi8(ref, s,
                                   lanemask((uint32_t)bits64(bm, nbytes, start + r) & fresh, lbit));
            mn = _mm256_min_epi16(mn, s);
            mx = _mm256_max_epi16(mx, s);
        }
        out[2 * p] = hmin(mn);
        out[2 * p + 1] = hmax(mx);
    }
}

/* The read ceiling's second candidate: an OR of every 64-bit word, four
 * 256-bit accumulators, software prefetch CEIL_PF bytes ahead.  numpy's
 * OR-reduce does not prefetch, and kernels that do read the same bytes
 * faster than it; the ceiling is the faster of the two, so that "fraction
 * of the ceiling" stays a fraction of what the machine can read.  This loop
 * reads as fast from 2 to 20 KB ahead (AMD Zen 5, 1e8 float16, 41.6-43.7
 * GB/s at each distance, interleaved, three runs), so it keeps 6 KB. */
#define CEIL_PF 6144
TG uint64_t ns_floor_read_or(const uint8_t *p, int64_t nbytes)
{
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    int64_t i = 0;
    for (; i + 128 <= nbytes; i += 128) {
        _mm_prefetch((const char *)p + i + CEIL_PF, _MM_HINT_T0);
        _mm_prefetch((const char *)p + i + CEIL_PF + 64, _MM_HINT_T0);
        a0 = _mm256_or_si256(a0, _mm256_loadu_si256((const __m256i *)(p + i)));
        a1 = _mm256_or_si256(a1, _mm256_loadu_si256((const __m256i *)(p + i + 32)));
        a2 = _mm256_or_si256(a2, _mm256_loadu_si256((const __m256i *)(p + i + 64)));
        a3 = _mm256_or_si256(a3, _mm256_loadu_si256((const __m256i *)(p + i + 96)));
    }
    __m256i a = _mm256_or_si256(_mm256_or_si256(a0, a1), _mm256_or_si256(a2, a3));
    uint64_t w[4];
    _mm256_storeu_si256((__m256i *)w, a);
    uint64_t acc = w[0] | w[1] | w[2] | w[3];
    for (; i + 8 <= nbytes; i += 8) {
        uint64_t x;
        memcpy(&x, p + i, 8);
        acc |= x;
    }
    for (; i < nbytes; i++)
        acc |= p[i];
    return acc;
}

/* The floor of a kernel with a numpy bool mask (one byte a row beside the
 * values): both streams read, an OR of each, software prefetch CEIL_PF
 * bytes ahead in the values and as many rows ahead in the mask.  A kernel
 * that reads at the ceiling's speed reads width + 1 bytes a row where the
 * ceiling reads width: 8/9, 4/5 and 2/3 of the ceiling for float64,
 * float32 and float16, unless the machine reads two streams faster than
 * one.  A floor of the bytes read, not of the time: on AMD Zen 3 the AVX2
 * float16 kernel, whose loop does far more between its loads, read both
 * streams faster than this loop (0.78-0.83 of the ceiling against
 * 0.72-0.76, at 6, 10 or 20 KB ahead and with 32 rows a step alike).
 * n rows of width bytes at p, n mask bytes; out[0] gets the OR of the
 * values' bytes as ns_floor_read_or gives it, out[1] the mask's. */
TG void ns_floor_read_or2(const uint8_t *p, int64_t n, int64_t width, const uint8_t *mask,
                          uint64_t *out)
{
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, m0 = a0;
    const int64_t step = 64 * width, mask_pf = CEIL_PF / width;
    int64_t r = 0;
    for (; r + 64 <= n; r += 64) {
        const uint8_t *v = p + r * width;
        for (int64_t i = 0; i < step; i += 64) {
            _mm_prefetch((const char *)v + i + CEIL_PF, _MM_HINT_T0);
            a0 = _mm256_or_si256(a0, _mm256_loadu_si256((const __m256i *)(v + i)));
            a1 = _mm256_or_si256(a1, _mm256_loadu_si256((const __m256i *)(v + i + 32)));
        }
        _mm_prefetch((const char *)mask + r + mask_pf, _MM_HINT_T0);
        m0 = _mm256_or_si256(m0, _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(mask + r)),
                                                 _mm256_loadu_si256((const __m256i *)(mask + r + 32))));
    }
    uint64_t w[4], x[4];
    _mm256_storeu_si256((__m256i *)w, _mm256_or_si256(a0, a1));
    _mm256_storeu_si256((__m256i *)x, m0);
    /* The rows after the last 64 start at a multiple of 8 bytes in both. */
    out[0] = w[0] | w[1] | w[2] | w[3] | ns_floor_read_or(p + r * width, (n - r) * width);
    out[1] = x[0] | x[1] | x[2] | x[3] | ns_floor_read_or(mask + r, n - r);
}
