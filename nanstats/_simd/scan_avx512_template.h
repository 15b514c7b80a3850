/* The AVX-512 scan loop for one bit width, included through scan_levels.h
 * by scan_avx512.c with NS_W set to 16, 32 or 64.
 *
 * AVX-512 changes what is cheap, so this level has loops of its own rather
 * than the generic ones of scan_template.h:
 * - Validity is a lane mask.  Every 64 rows get one 64-bit word of validity
 *   (an Arrow bitmap word as it is, or 64 mask bytes turned into bits by one
 *   byte test), and each vector takes its LANES bits of the word as the
 *   write mask of its min/max and counters.  Nulls cost nothing per row.
 * - Native signed min/max for every width (AVX512F for 32/64 bits, AVX512BW
 *   for 16), under a mask: the value extremes take the valid non-NaN lanes,
 *   the NaN extremes the valid NaN lanes; no rotations, no reference row.
 * - NaN test: (bits << 1) > (inf << 1) unsigned, which drops the sign.
 * - Counts: valid rows are the popcount of the validity word.  NaN and -NaN
 *   counts are lane counters of the data's width for 32 and 64 bits (-NaN
 *   subtracts the sign lane, which is all ones), flushed to int64 before
 *   they could overflow; for 16 bits (32 lanes to a vector) popcounts of
 *   the NaN mask and of NaN & sign measured faster, on the scalar ports.
 * - The rows after the last full 64 are read with masked loads, which never
 *   touch memory past the end of the buffer.
 * - the loops prefetch ahead in software (see NS_PREFETCH16_BYTES and
 *   NS_PREFETCH_BYTES); a prefetch never faults, so reading ahead of the
 *   end is harmless. */

#define NS_CAT2(a, b) a##b
#define NS_CAT(a, b) NS_CAT2(a, b)
#define NS_FN(name) NS_CAT(NS_CAT(name, NS_W), NS_SUFFIX)

#if NS_W == 16
#define S int16_t
#define S_MAX INT16_MAX
#define S_MIN INT16_MIN
#define M __mmask32
#define ABS_BITS 0x7FFF
#define INF2_BITS ((int16_t)(0x7C00u << 1))
#define SET1(x) _mm512_set1_epi16((short)(x))
#define SRAI(x) _mm512_srai_epi16((x), 15)
#define ADD(a, b) _mm512_add_epi16((a), (b))
#define MASK_CMPGTU(m, a, b) _mm512_mask_cmpgt_epu16_mask((m), (a), (b))
#define MASK_MIN(src, m, a, b) _mm512_mask_min_epi16((src), (m), (a), (b))
#define MIN(a, b) _mm512_min_epi16((a), (b))
#define MASK_MAX(src, m, a, b) _mm512_mask_max_epi16((src), (m), (a), (b))
#define MASK_SUB(src, m, a, b) _mm512_mask_sub_epi16((src), (m), (a), (b))
#define MASKZ_LOAD(m, p) _mm512_maskz_loadu_epi16((m), (p))
#define MASK_NEG(m, x) _mm512_mask_cmplt_epi16_mask((m), (x), _mm512_setzero_si512())
#define NS_SCALAR_COUNTS 1 /* no lane counters: nothing to flush */
#define NS_FLUSH_ROWS ((int64_t)1 << 62)
#elif NS_W == 32
#define S int32_t
#define S_MAX INT32_MAX
#define S_MIN INT32_MIN
#define M __mmask16
#define ABS_BITS 0x7FFFFFFF
#define INF2_BITS ((int32_t)(0x7F800000u << 1))
#define SET1(x) _mm512_set1_epi32((int)(x))
#define SRAI(x) _mm512_srai_epi32((x), 31)
#define ADD(a, b) _mm512_add_epi32((a), (b))
#define MASK_CMPGTU(m, a, b) _mm512_mask_cmpgt_epu32_mask((m), (a), (b))
#define MASK_MIN(src, m, a, b) _mm512_mask_min_epi32((src), (m), (a), (b))
#define MIN(a, b) _mm512_min_epi32((a), (b))
#define MASK_MAX(src, m, a, b) _mm512_mask_max_epi32((src), (m), (a), (b))
#define MASK_SUB(src, m, a, b) _mm512_mask_sub_epi32((src), (m), (a), (b))
#define MASKZ_LOAD(m, p) _mm512_maskz_loadu_epi32((m), (p))
#define MASK_NEG(m, x) _mm512_mask_cmplt_epi32_mask((m), (x), _mm512_setzero_si512())
#define NS_SCALAR_COUNTS 0
/* 32-bit lane counters gain at most one a vector of 16 rows: flush every
 * 2^34 rows, 2^30 per lane at most. */
#define NS_FLUSH_ROWS ((int64_t)1 << 34)
#else
#define S int64_t
#define S_MAX INT64_MAX
#define S_MIN INT64_MIN
#define M __mmask8
#define ABS_BITS 0x7FFFFFFFFFFFFFFFll
#define INF2_BITS ((int64_t)(0x7FF0000000000000ull << 1))
#define SET1(x) _mm512_set1_epi64((long long)(x))
#define SRAI(x) _mm512_srai_epi64((x), 63)
#define ADD(a, b) _mm512_add_epi64((a), (b))
#define MASK_CMPGTU(m, a, b) _mm512_mask_cmpgt_epu64_mask((m), (a), (b))
#define MASK_MIN(src, m, a, b) _mm512_mask_min_epi64((src), (m), (a), (b))
#define MIN(a, b) _mm512_min_epi64((a), (b))
#define MASK_MAX(src, m, a, b) _mm512_mask_max_epi64((src), (m), (a), (b))
#define MASK_SUB(src, m, a, b) _mm512_mask_sub_epi64((src), (m), (a), (b))
#define MASKZ_LOAD(m, p) _mm512_maskz_loadu_epi64((m), (p))
#define MASK_NEG(m, x) _mm512_mask_cmplt_epi64_mask((m), (x), _mm512_setzero_si512())
#define NS_SCALAR_COUNTS 0
#define NS_FLUSH_ROWS ((int64_t)1 << 62) /* 64-bit lane counters never overflow */
#endif

/* float16: a software prefetch NS_PREFETCH16_BYTES ahead of the rows (two
 * 64-byte lines a 64-row group) and as many rows ahead of a byte mask.
 * Measured on AMD Zen 5 with 1e8 values (one process, interleaved with the
 * build without it, best of 7): one summary 0.80 -> 1.10 of the read
 * ceiling with an Arrow bitmap, 0.72 -> 0.80 with a numpy bool mask, pages
 * of 1,000 rows without nulls 0.89 -> 1.10 of it; 3,072 bytes less, 12,288
 * alike.  float32/64 prefetch NS_PREFETCH_BYTES ahead (below). */
#if NS_W == 16
#ifndef NS_PREFETCH16_BYTES
#define NS_PREFETCH16_BYTES 6144
#endif
#define NS_PF_ROWS(p) do { _mm_prefetch((const char *)(p) + NS_PREFETCH16_BYTES, _MM_HINT_T0); \
                           _mm_prefetch((const char *)(p) + NS_PREFETCH16_BYTES + 64, _MM_HINT_T0); } while (0)
#define NS_PF_BYTES(p) _mm_prefetch((const char *)(p) + NS_PREFETCH16_BYTES / 2, _MM_HINT_T0)
#else
#ifndef NS_PREFETCH_BYTES
#define NS_PREFETCH_BYTES 8192
#endif
/* float32/64: the group's NS_W / 8 lines of rows, and its 64 bytes of a
 * byte mask as many rows ahead.  Measured on AMD Zen 5 (the kernel alone,
 * one process, interleaved with the build without it, best of 15; float32
 * 1e8 values, float64 5e7): one summary float32 13.1 -> 11.8 ms without
 * nulls, 14.6 -> 13.0 with an Arrow bitmap, 16.1 -> 14.5 with a bool mask;
 * float64 12.4 -> 11.1, 14.7 -> 12.4, 15.2 -> 12.3; pages of 1,000 rows
 * 11-22% faster.  6,144 bytes gave the same one summary but pages of 1,000
 * rows of float64 with a bitmap at 1.09 times one summary (8,192: 0.99). */
#define NS_PF_ROWS(p)                                                         \
    do {                                                                      \
        for (int pf_ = 0; pf_ < NS_W / 8; pf_++)                              \
            _mm_prefetch((const char *)(p) + NS_PREFETCH_BYTES + 64 * pf_, _MM_HINT_T0); \
    } while (0)
#define NS_PF_BYTES(p) _mm_prefetch((const char *)(p) + NS_PREFETCH_BYTES / (NS_W / 8), _MM_HINT_T0)
#endif
#define LANES (512 / NS_W)
#define VECS (64 / LANES) /* vectors per 64-row group */

/* The running state of one page. */
typedef struct {
    __m512i vmin, vmax, nmin, nmax, nan, neg;
} NS_FN(ns_acc_);
#define ACC NS_FN(ns_acc_)

/* NaN and -NaN counts of one vector: popcounts of its masks, or lane
 * counters (-NaN subtracts the sign lane, which is all ones).  float16's
 * -NaN mask is a signed compare with zero under the NaN mask (MASK_NEG):
 * one vector instruction and one move from the mask registers, where the
 * sign mask and an integer `and` took two moves (AMD Zen 4, 1e6 values in L3, the
 * kernel alone, interleaved, best of 300, us: with an Arrow bitmap one
 * summary 55.4 -> 53.5-53.7 and pages of 1,000 rows 69.1-69.2 ->
 * 65.1-65.3; without nulls one summary 49.3-49.6 -> 48.4-49.1, its pages
 * unchanged).  Joining two vectors' masks into 64 bits first (kunpckdq)
 * was slower: one summary 49.4 -> 53.8. */
#if NS_SCALAR_COUNTS
#define NS_COUNT(a, s, sg, nanm)                                              \
    do {                                                                      \
        const M negnan_ = MASK_NEG((nanm), (s));                              \
        nan += _mm_popcnt_u64((uint64_t)(nanm));                              \
        neg += _mm_popcnt_u64((uint64_t)negnan_);                             \
    } while (0)
#else
#define NS_COUNT(a, s, sg, nanm)                                              \
    do {                                                                      \
        (a).nan = MASK_SUB((a).nan, (nanm), (a).nan, ones);                   \
        (a).neg = MASK_SUB((a).neg, (nanm), (a).neg, (sg));                   \
    } while (0)
#endif

/* One vector of rows under validity mask m. */
#define NS_STEP(a, s, m)                                                      \
    do {                                                                      \
        __m512i sg_ = SRAI(s);                                                \
        __m512i k_ = _mm512_ternarylogic_epi64((s), sg_, absv, 0x78);         \
        M nanm_ = MASK_CMPGTU((m), ADD((s), (s)), inf2v);                     \
        M num_ = (M)((m) & (M)~nanm_);                                        \
        (a).vmin = MASK_MIN((a).vmin, num_, (a).vmin, k_);                    \
        (a).vmax = MASK_MAX((a).vmax, num_, (a).vmax, k_);                    \
        (a).nmin = MASK_MIN((a).nmin, nanm_, (a).nmin, k_);                   \
        (a).nmax = MASK_MAX((a).nmax, nanm_, (a).nmax, k_);                   \
        NS_COUNT(a, s, sg_, nanm_);                                           \
    } while (0)

/* The 64 rows from row i under validity word w_. */
#define NS_GROUP_ROWS(w_)                                                     \
    do {                                                                      \
        NS_PF_ROWS(row + i);                                                  \
        valid += (int64_t)_mm_popcnt_u64(w_);                                 \
        for (int q_ = 0; q_ < VECS; q_++) {                                   \
            __m512i s_ = _mm512_loadu_si512(row + i + q_ * LANES);            \
            NS_STEP(a, s_, (M)((w_) >> (q_ * LANES)));                        \
        }                                                                     \
    } while (0)
/* Whole 64-row groups up to chunk_end, validity word from WORD. */
#define NS_GROUPS(WORD)                                                       \
    for (; i + 64 <= chunk_end; i += 64) {                                    \
        const uint64_t w_ = (WORD);                                           \
        NS_GROUP_ROWS(w_);                                                    \
    }
#define NS_TEST8(b) ((uint64_t)_mm512_test_epi8_mask((b), (b)))
#define NS_TESTN8(b) ((uint64_t)_mm512_testn_epi8_mask((b), (b)))

/* Whole groups over a byte mask, TEST turning 64 bytes into a word.
 * float64 takes the words of up to eight groups (512 rows) first, then
 * their rows.  AMD Zen 4, 1e8 values, 10% nulls, the kernel alone (both
 * builds in one process, best of 5-10, six runs): one summary 30.7-34.1 ->
 * 28.7-30.4 ms (faster in every run, by 4-13%), pages of 1,000 rows
 * 31.4-33.9 -> 30.3-32.1, in cache the same (62.4 us for 2.5e5 values).
 * The word of the next group loaded a group early instead, or a burst of
 * the mask's prefetches every eight groups: no faster.  float32
 * gained 4-7% at 1e8 values but lost 4-5% in cache and 2.5% on pages of
 * 1,000 rows at 1e8; float16 lost 17% in cache: each word where its rows
 * are read. */
#if NS_W == 64
#define NS_BURST_GROUPS 8
#define NS_BYTE_GROUPS(TEST)                                                  \
    while (i + 64 <= chunk_end) {                                             \
        int64_t g_ = (chunk_end - i) >> 6;                                    \
        if (g_ > NS_BURST_GROUPS)                                             \
            g_ = NS_BURST_GROUPS;                                             \
        uint64_t wb_[NS_BURST_GROUPS];                                        \
        for (int64_t t_ = 0; t_ < g_; t_++) {                                 \
            NS_PF_BYTES(vb + i + 64 * t_);                                    \
            wb_[t_] = TEST(_mm512_loadu_si512(vb + i + 64 * t_));             \
        }                                                                     \
        for (int64_t t_ = 0; t_ < g_; t_++, i += 64) {                        \
            const uint64_t w_ = wb_[t_];                                      \
            NS_GROUP_ROWS(w_);                                                \
        }                                                                     \
    }
#else
#define NS_BYTE_GROUPS(TEST) NS_GROUPS((NS_PF_BYTES(vb + i), TEST(_mm512_loadu_si512(vb + i))))
#endif

#if NS_W != 16
/* The in-block steps of the reduction: each 128-bit block's minimum in
 * its lowest lane. */
NS_TARGET static inline __m512i NS_FN(ns_block_min_)(__m512i r)
{
    r = MIN(r, _mm512_shuffle_epi32(r, (_MM_PERM_ENUM)0x4E));     /* 64-bit halves */
#if NS_W <= 32
    r = MIN(r, _mm512_shuffle_epi32(r, (_MM_PERM_ENUM)0xB1));     /* 32-bit quarters */
#endif
    return r;
}
#endif

#if NS_W == 16
/* float16: each extreme by halving to 128 bits and one phminposuw (the
 * minimum of eight unsigned 16-bit lanes), about six instructions each.
 * Measured on AMD Zen 5 (the kernel alone on 4e6 values, pages of 1,000
 * rows, interleaved, best of 60): 17.4 -> 12.2 ns a page over one summary
 * with an Arrow bitmap, 16.0 -> 10.5 without nulls, where the one-pass
 * reduction below, with its five 512-bit shuffles on one chain, cost more
 * than the four. */
NS_TARGET static inline int16_t ns_avx512_hmin16(__m512i x)
{
    const __m256i y = _mm256_min_epi16(_mm512_castsi512_si256(x), _mm512_extracti64x4_epi64(x, 1));
    __m128i h = _mm_min_epi16(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
    h = _mm_xor_si128(h, _mm_set1_epi16((short)0x8000));
    return (int16_t)(_mm_cvtsi128_si32(_mm_minpos_epu16(h)) ^ 0x8000);
}
NS_TARGET static inline int16_t ns_avx512_hmax16(__m512i x)
{
    const __m256i y = _mm256_max_epi16(_mm512_castsi512_si256(x), _mm512_extracti64x4_epi64(x, 1));
    __m128i h = _mm_max_epi16(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
    h = _mm_xor_si128(h, _mm_set1_epi16(0x7FFF));
    return (int16_t)(_mm_cvtsi128_si32(_mm_minpos_epu16(h)) ^ 0x7FFF);
}
NS_TARGET static inline void NS_FN(ns_extremes_)(const ACC *a, S out[4])
{
    out[0] = ns_avx512_hmin16(a->vmin);
    out[1] = ns_avx512_hmax16(a->vmax);
    out[2] = ns_avx512_hmin16(a->nmin);
    out[3] = ns_avx512_hmax16(a->nmax);
}
#else
/* The extremes of a page at once: min over vmin, nmin and (as ~max(x) =
 * min(~x) in two's complement) over vmax, nmax.  Rounds of 128-bit block
 * shuffles bring one vector's partial minima into each 128-bit block, then
 * shuffles inside the blocks finish: about 15 instructions instead of four
 * separate reductions (every page's four: see the driver's page end). */
NS_TARGET static inline void NS_FN(ns_extremes_)(const ACC *a, S out[4])
{
    const __m512i not_ = _mm512_set1_epi64(-1);
    __m512i pa = a->vmin, pb = _mm512_xor_si512(a->vmax, not_);
    __m512i ab = MIN(_mm512_shuffle_i64x2(pa, pb, 0x44), _mm512_shuffle_i64x2(pa, pb, 0xEE));
    S l[LANES];
    __m512i pc = a->nmin, pd = _mm512_xor_si512(a->nmax, not_);
    __m512i cd = MIN(_mm512_shuffle_i64x2(pc, pd, 0x44), _mm512_shuffle_i64x2(pc, pd, 0xEE));
    __m512i r = MIN(_mm512_shuffle_i64x2(ab, cd, 0x88), _mm512_shuffle_i64x2(ab, cd, 0xDD));
    _mm512_storeu_si512(l, NS_FN(ns_block_min_)(r));
    out[0] = l[0];
    out[1] = (S)~l[LANES / 4];
    out[2] = l[LANES / 2];
    out[3] = (S)~l[3 * LANES / 4];
}
#endif

/* Sum of the lane counters (each below its overflow by NS_FLUSH_ROWS). */
#if NS_W == 32
NS_TARGET static inline int64_t NS_FN(ns_hsum_)(__m512i x) { return _mm512_reduce_add_epi32(x); }
#elif NS_W == 64
NS_TARGET static inline int64_t NS_FN(ns_hsum_)(__m512i x) { return _mm512_reduce_add_epi64(x); }
#endif

/* Validity bits of rows [r, r + count) (count <= 64) in the low bits. */
NS_TARGET static inline uint64_t NS_FN(ns_word_)(int kind, const uint8_t *v, int64_t nbytes,
                                       int64_t bit_offset, int64_t r, int64_t count)
{
    uint64_t live = count >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << count) - 1);
    switch (kind) {
    case NS_VALIDITY_BITMAP:
        return ns_validity_bits(v, nbytes, bit_offset + r) & live;
    case NS_VALIDITY_BYTES: {
        __m512i b = _mm512_maskz_loadu_epi8(live, v + r);
        return _mm512_test_epi8_mask(b, b);
    }
    case NS_VALIDITY_NULL_BYTES: {
        __m512i b = _mm512_maskz_loadu_epi8(live, v + r);
        return _mm512_testn_epi8_mask(b, b) & live;
    }
    default:
        return live;
    }
}

/* The driver for one kind of validity (copies per kind: scan_kinds.h). */
NS_TARGET static inline __attribute__((always_inline)) void
NS_FN(ns_scan_kind_)(const void *data, int64_t n, const int kind, const uint8_t *validity,
                     int64_t validity_nbytes, int64_t bit_offset, const int64_t *page_starts,
                     int64_t npages, int64_t *counts, int64_t *keys)
{
    const S *d = (const S *)data;
    const __m512i absv = SET1(ABS_BITS), inf2v = SET1(INF2_BITS), ones = SET1(-1);
    (void)ones; /* used by the lane counters only */
    const __m512i smax = SET1(S_MAX), smin = SET1(S_MIN), zero = _mm512_setzero_si512();
    for (int64_t p = 0; p < npages; p++) {
        int64_t start = page_starts[p];
        int64_t stop = p + 1 < npages ? page_starts[p + 1] : n;
        int64_t valid = 0, nan = 0, neg = 0;
        ACC a = {smax, smin, smax, smin, zero, zero};
        const S *row = d + start;
        int64_t vrow = start; /* validity index of row[0] */
        int64_t len = stop - start;
        int64_t i = 0;
        if (kind == NS_VALIDITY_BITMAP && ((bit_offset + vrow) & 7) && len > 0) {
            /* A bitmap from inside a byte (an Arrow slice from any row, a
             * page of a file): the rows up to its next byte under a mask
             * first, so that the groups after them read their masks in
             * place (until then they were shifted from two loads each).  AMD Zen 4, one
             * summary of 1e6 values from bit 3 against bit 0, the kernel
             * alone: float16 56.4 against 53.1 us, float32 123.0 against
             * 110.5, float64 235.5 against 216.5 before; after, as from
             * bit 0. */
            const int64_t to_byte = -(bit_offset + vrow) & 7;
            const int64_t head = len < to_byte ? len : to_byte;
            const uint64_t w = NS_FN(ns_word_)(kind, validity, validity_nbytes, bit_offset, vrow,
                                               head);
            valid += (int64_t)_mm_popcnt_u64(w);
            const M m = (M)w;
            const __m512i s = MASKZ_LOAD(m, row);
            NS_STEP(a, s, m);
            row += head;
            vrow += head;
            len -= head;
#if !NS_SCALAR_COUNTS /* (the loop below flushes the lane counters, if it runs) */
            if (len == 0) {
                nan += NS_FN(ns_hsum_)(a.nan);
                neg += NS_FN(ns_hsum_)(a.neg);
            }
#endif
        }
        while (i < len) {
            /* Up to the next counter flush, whole 64-row groups. */
            int64_t chunk_end = len - i > NS_FLUSH_ROWS ? i + NS_FLUSH_ROWS : len;
            /* One loop per validity kind, the word fetch inlined.  Every
             * bitmap byte read here lies within the bits of the page. */
            const uint8_t *bm = validity + ((bit_offset + vrow) >> 3);
            const uint8_t *vb = validity + vrow;
            switch (kind) {
            case NS_VALIDITY_BITMAP:
                /* At a byte (the head above took the rows before it): each
                 * vector's mask straight from memory. */
                for (; i + 64 <= chunk_end; i += 64) {
                    NS_PF_ROWS(row + i);
                    valid += (int64_t)_mm_popcnt_u64(ns_avx512_load8(bm + i / 8));
                    for (int q = 0; q < VECS; q++) {
                        M m;
                        memcpy(&m, bm + i / 8 + q * (LANES / 8), sizeof m);
                        __m512i s = _mm512_loadu_si512(row + i + q * LANES);
                        NS_STEP(a, s, m);
                    }
                }
                break;
            case NS_VALIDITY_BYTES:
                NS_BYTE_GROUPS(NS_TEST8);
                break;
            case NS_VALIDITY_NULL_BYTES:
                NS_BYTE_GROUPS(NS_TESTN8);
                break;
            default: {
                const M all = (M)~(M)0;
                for (; i + 64 <= chunk_end; i += 64) {
                    NS_PF_ROWS(row + i);
                    for (int q = 0; q < VECS; q++) {
                        __m512i s = _mm512_loadu_si512(row + i + q * LANES);
                        NS_STEP(a, s, all);
                    }
                }
            }
            }
            if (i < chunk_end) { /* the last rows of the page, under a mask */
                /* Their lines prefetched too: the groups' prefetches stop
                 * short of them, and the next page's start past them, so
                 * without this each page of 1,000 float64 rows met five
                 * lines in memory unannounced.  AMD Zen 4, 1e8 values, the
                 * kernel alone, both builds in one process, pages of 1,000
                 * rows against one summary: float64 with a bool mask
                 * 1.29 -> 1.02, with a bitmap 1.07 -> 1.01; float32 with a
                 * bool mask 1.11 -> 0.98, with a bitmap 1.09 -> 1.06;
                 * float16 and no nulls unchanged; in cache unchanged. */
                NS_PF_ROWS(row + i);
                if (kind == NS_VALIDITY_BYTES || kind == NS_VALIDITY_NULL_BYTES)
                    NS_PF_BYTES(vb + i);
                uint64_t w = NS_FN(ns_word_)(kind, validity, validity_nbytes, bit_offset,
                                             vrow + i, chunk_end - i);
                valid += (int64_t)_mm_popcnt_u64(w);
                for (int q = 0; q * LANES < chunk_end - i; q++) {
                    M m = (M)(w >> (q * LANES));
                    __m512i s = MASKZ_LOAD(m, row + i + q * LANES);
                    NS_STEP(a, s, m);
                }
                i = chunk_end;
            }
#if !NS_SCALAR_COUNTS /* flushed before any lane could overflow */
            nan += NS_FN(ns_hsum_)(a.nan);
            neg += NS_FN(ns_hsum_)(a.neg);
            a.nan = a.neg = zero;
#endif
        }
        int64_t rows = stop - start;
        if (kind == NS_VALIDITY_NONE)
            valid = rows;
        S ex[4] = {0, 0, 0, 0};
        /* Every page's NaN extremes are reduced, and its NaN keys chosen
         * with no branch on its NaN count (ns_pick_i64).  AMD Zen 4, pages
         * of 1,000 rows with a bitmap, the kernel alone (both builds in
         * one process, best of 8, two runs), 0.1% NaN of both signs:
         * float16 7.33-7.35 -> 6.66-6.69 ms at 1e8
         * values, float32 7.39-7.42 -> 6.79-6.84 and float64 13.2-13.4 ->
         * 13.0-13.1 at 5e7; without NaN float16 and float32 0.7-1.6%
         * slower, float64 1-4% faster; 1% NaN unchanged. */
        NS_FN(ns_extremes_)(&a, ex);
        counts[4 * p + 0] = rows;
        counts[4 * p + 1] = rows - valid;
        counts[4 * p + 2] = nan - neg;
        counts[4 * p + 3] = neg;
        keys[4 * p + 0] = valid - nan > 0 ? (int64_t)ex[0] : INT64_MAX;
        keys[4 * p + 1] = valid - nan > 0 ? (int64_t)ex[1] : INT64_MIN;
        keys[4 * p + 2] = ns_pick_i64(nan > 0, (int64_t)ex[2], INT64_MAX);
        keys[4 * p + 3] = ns_pick_i64(nan > 0, (int64_t)ex[3], INT64_MIN);
    }
}

#include "scan_kinds.h"

#undef S
#undef S_MAX
#undef S_MIN
#undef M
#undef ABS_BITS
#undef INF2_BITS
#undef SET1
#undef SRAI
#undef ADD
#undef MASK_CMPGTU
#undef MASK_MIN
#undef MIN
#undef MASK_MAX
#undef MASK_SUB
#undef MASKZ_LOAD
#undef MASK_NEG
#undef NS_SCALAR_COUNTS
#undef NS_COUNT
#undef NS_FLUSH_ROWS
#undef LANES
#undef VECS
#undef ACC
#undef NS_GROUPS
#undef NS_GROUP_ROWS
#undef NS_TEST8
#undef NS_TESTN8
#undef NS_BYTE_GROUPS
#undef NS_BURST_GROUPS
#undef NS_PF_ROWS
#undef NS_PF_BYTES
