/* The AVX2 scan loop for one bit width, included through scan_levels.h by
 * scan_avx2.c with NS_W set to 16, 32 or 64.
 *
 * AVX2 has no lane masks and no 64-bit min/max, so this level has loops of
 * its own, built to spend as few instructions a vector as they can: on AMD
 * Zen 5 (4.1 GHz) simple vector instructions issue about 3.5 a cycle and
 * blends, psignw, packs and movemasks about 2, and a pair of vectors (64
 * bytes) must cost under about 7.5 cycles to keep up with one thread's
 * read of memory (about 35 GB/s there):
 * - float32 and float64 take their extremes with the float min/max
 *   instructions.  minps(x, acc) returns acc when x is NaN, so NaNs drop out
 *   of the value extremes at no cost.  Float compares cannot tell -0.0 from
 *   +0.0; the sign is settled at the end of the page from two facts the
 *   lane counts give (a non-NaN row with the sign set seen, one with it
 *   clear): when the minimum is a zero, it is -0.0 exactly when a negative
 *   non-NaN row was seen (no row is below zero, so that row is -0.0), and
 *   likewise for the maximum.
 * - NaN extremes of float32/64: a NaN's bits mapped to sign | 1.0 | payload,
 *   the number +-(1 + payload / 2^p), orders NaNs as the total order does
 *   (-NaN with a larger payload lower, +NaN higher), and the non-NaN rows,
 *   all bits set, are NaN there: the same two float instructions again.
 * - float16 has no float instructions: signed 16-bit keys |bits| carrying
 *   the sign (two instructions, psignw), NaN lanes replaced by a non-NaN
 *   row's key for the value extremes (one blend), the NaN extremes from
 *   plain min/max over the keys (ten vector instructions a vector, five
 *   cycles a pair), and for NaNs of one sign an unsigned max over the
 *   complemented bits of the NaN lanes, in the loop where the data has
 *   shown NaNs of one sign, else from a lean second pass (see the float16
 *   section).
 * - Counts are scalar: the NaN and sign masks go to the integer core, which
 *   popcounts them; the vector units see none of it.  float32/64 take four
 *   vectors a step and pack their masks to bytes first (two movemasks for
 *   the four), float16 packs a pair's (one movemask for 32 rows); the last
 *   vectors of a page use movmskps and the like.
 * - Nulls are replaced by the page's first valid row (the reference row),
 *   which cannot move a min or a max: one blend a vector.  The NaN counts
 *   take the replaced rows off at the end of the page.
 * - Validity of every kind is first turned into bits (one bit a row, the
 *   Arrow bitmap shifted to the page, a byte mask through one byte compare
 *   and movemask per 32 rows) in a small buffer per chunk of rows; each
 *   vector broadcasts its bits from there and shifts its own bit to the top
 *   of its lane (vpsllv; float16, which has no 16-bit variable shift, tests
 *   each lane's bit with and + cmpeq), where blendv looks.
 * - The rows after the last full vector are copied into a vector padded
 *   with the reference row.  No read past the buffers.
 * - float16 pages of 32 to 2,048 rows without nulls or with a bitmap at a
 *   byte have a loop of their own (ns_lean16_ below).
 * - A software prefetch NS_PREFETCH_BYTES ahead in the main loops keeps
 *   the reads streaming across the short loops of small pages. */

#define NS_CAT2(a, b) a##b
#define NS_CAT(a, b) NS_CAT2(a, b)
#define NS_FN(name) NS_CAT(NS_CAT(name, NS_W), NS_SUFFIX)

#if NS_W == 16
#define T uint16_t
#define LANES 16
#elif NS_W == 32
#define T uint32_t
#define LANES 8
#define VF __m256
#define CASTF(x) _mm256_castsi256_ps(x)
#define CASTI(x) _mm256_castps_si256(x)
#define FMIN _mm256_min_ps
#define FMAX _mm256_max_ps
#define FCMP _mm256_cmp_ps
#define FAND _mm256_and_ps
#define FOR _mm256_or_ps
#define FBLENDV _mm256_blendv_ps
#define FSET1(x) _mm256_castsi256_ps(_mm256_set1_epi32((int)(x)))
#define FMOVMSK _mm256_movemask_ps
#define SLLV _mm256_sllv_epi32
#define SIGN_BIT 0x80000000u
#define EXP_BITS 0x7F800000u
#define MANT_BITS 0x007FFFFFu
#define EXP_TOP 0x40000000u /* the exponent's top bit: 0xFF - it = 0x7F, that of 1.0 */
#else
#define T uint64_t
#define LANES 4
#define VF __m256d
#define CASTF(x) _mm256_castsi256_pd(x)
#define CASTI(x) _mm256_castpd_si256(x)
#define FMIN _mm256_min_pd
#define FMAX _mm256_max_pd
#define FCMP _mm256_cmp_pd
#define FAND _mm256_and_pd
#define FOR _mm256_or_pd
#define FBLENDV _mm256_blendv_pd
#define FSET1(x) _mm256_castsi256_pd(_mm256_set1_epi64x((long long)(x)))
#define FMOVMSK _mm256_movemask_pd
#define SLLV _mm256_sllv_epi64
#define SIGN_BIT 0x8000000000000000ull
#define EXP_BITS 0x7FF0000000000000ull
#define MANT_BITS 0x000FFFFFFFFFFFFFull
#define EXP_TOP 0x4000000000000000ull /* the exponent's top bit: 0x7FF - it = 0x3FF, that of 1.0 */
#endif

/* Software prefetch this many bytes ahead of the pair loops (one a 64-byte
 * pair), for every width.  A prefetch never faults, so reading ahead of the
 * end of the data is harmless.  Measured on AMD Zen 5 with 1e8 values:
 * pages of 1,000 rows cost 1.07-1.37x one summary without any (the
 * hardware prefetcher restarts at each page's short loops), about
 * 1.00-1.10x with one 2 KB ahead.  6 KB ahead rather than 2 KB (the kernel
 * alone, one process, interleaved, best of 11): float32 one summary
 * 13.1 -> 10.8-11.2 ms without nulls and 13.0 -> 11.0 with an Arrow bitmap,
 * float64 (5e7 values) 13.9 -> 11.4 and 14.1 -> 11.6; float16 (medians of
 * 9) 0.84-0.91 -> 0.97-1.08 of the read ceiling without nulls and
 * 0.78-0.86 -> 0.89-0.98 with a bitmap; pages of 1,000 rows as much
 * faster.  10 KB rather than 6 (a later session, the same kind of machine
 * reading 40-43 GB/s a thread:
 * both builds in one process, interleaved, best of 8, fractions of the read
 * ceiling): float16 without nulls +0.01-0.07, with an Arrow bitmap
 * -0.007 to +0.020 (+0.008 on average over eleven runs), with a bool mask
 * about +0.01; float32 and float64 +0.005-0.026 in each; pages of 1,000
 * rows unchanged in their multiple of one summary; 8 and 14 KB about as
 * good.  One thread's read at 42 GB/s with some 150 ns of latency has
 * about 6 KB in flight. */
#ifndef NS_PREFETCH_BYTES
#define NS_PREFETCH_BYTES 10240
#endif
/* NS_PF_MASK16: a byte mask beside float16 values, as many rows ahead.
 * NS_PF_L2: the float16 page loops' second prefetch, into L2 twice as far
 * ahead (see NS_LEAN16_LOOP), without nulls always, with a bitmap where
 * the call's values take ns_far16_bytes (scan.h) or more: read from
 * memory, not from the caches. */
#if NS_PREFETCH_BYTES > 0
#define NS_PF(p) _mm_prefetch((p) + NS_PREFETCH_BYTES, _MM_HINT_T0)
#define NS_PF_MASK16(p) _mm_prefetch((p) + NS_PREFETCH_BYTES / 2, _MM_HINT_T0)
#define NS_PF_L2(p) _mm_prefetch((p) + 2 * NS_PREFETCH_BYTES, _MM_HINT_T1)
#else
#define NS_PF(p) ((void)0)
#define NS_PF_MASK16(p) ((void)0)
#define NS_PF_L2(p) ((void)0)
#endif
/* Rows whose validity bits are gathered at a time (a multiple of 64).
 * float32/64 take 512: their chunk's validity (its bitmap words counted,
 * or a byte mask turned into bits) is read just before the chunk's rows,
 * and shorter chunks interleave the two streams more finely.  Against 2,048
 * (AMD Zen 4, 1e8 values, both builds in one process, best of 15, two
 * runs, fractions of the read ceiling): a bool mask float32 0.713-0.731 ->
 * 0.762-0.788, float64 0.791-0.807 -> 0.855-0.858; an Arrow bitmap float32
 * 0.868-0.887 -> 0.885-0.905, float64 0.899-0.919 -> 0.915-0.932; pages of
 * 1,000 rows unchanged.  float16 takes 8,192 (its chunks also carry the
 * NaN-sign mode, and 512 read its byte masks 0.03 slower in one run): each
 * chunk costs some 370 instructions besides its rows, and against 2,048
 * (Zen 4, the kernel alone, both builds in one process) one summary in
 * cache ran 1.2-4.6% faster with a bitmap, without nulls and with byte
 * masks, with NaNs of both signs, of one and mostly of one; at 1e8 values
 * with a bitmap 6.70-6.72 -> 6.57-6.64 ms.  Dearer: a long page's chunk
 * that goes over its rows again when its NaNs break its one-sign mode
 * (byte masks, pages of 65,536 rows, 2% of the NaNs -NaN: 83.9 -> 87.7
 * us). */
#if NS_W == 16
#define NS_CHUNK 8192
#else
#define NS_CHUNK 512
#endif

/* The total-order key (as int64) of bit pattern b. */
NS_TARGET static inline int64_t NS_FN(ns_avx2_key_)(T b)
{
#if NS_W == 16
    int16_t s = (int16_t)b;
    return (int16_t)(s ^ (int16_t)((uint16_t)(s >> 15) >> 1));
#elif NS_W == 32
    int32_t s = (int32_t)b;
    return (int32_t)(s ^ (int32_t)((uint32_t)(s >> 31) >> 1));
#else
    int64_t s = (int64_t)b;
    return s ^ (int64_t)((uint64_t)(s >> 63) >> 1);
#endif
}

NS_TARGET static inline int NS_FN(ns_avx2_isnan_)(T b)
{
#if NS_W == 16
    return (b & 0x7FFF) > 0x7C00;
#else
    return (b & ~(T)SIGN_BIT) > (T)EXP_BITS;
#endif
}

/* Whether row r is valid, its validity at position vpos + r of the
 * validity (a bit of a bitmap, a byte of a byte mask). */
NS_TARGET static inline int NS_FN(ns_avx2_valid_)(const int kind, const uint8_t *validity,
                                                 int64_t vpos, int64_t r)
{
    return kind == NS_VALIDITY_NONE ? 1
           : kind == NS_VALIDITY_BITMAP
               ? (validity[(vpos + r) >> 3] >> ((vpos + r) & 7)) & 1
               : (validity[vpos + r] != 0) ^ (kind == NS_VALIDITY_NULL_BYTES);
}

/* The validity of the 64 rows from row r as bits (row r the lowest), for
 * every kind of validity, from vpos as for ns_avx2_valid_; nbytes, the
 * bitmap's bytes that may be read. */
NS_TARGET static inline uint64_t NS_FN(ns_avx2_valid64_)(const int kind, const uint8_t *validity,
                                                        int64_t nbytes, int64_t vpos, int64_t r)
{
    if (kind == NS_VALIDITY_NONE)
        return ~(uint64_t)0;
    if (kind == NS_VALIDITY_BITMAP)
        return ns_validity_bits(validity, nbytes, vpos + r);
    const __m256i z = _mm256_setzero_si256();
    const uint8_t *b = validity + vpos + r;
    const uint64_t zero =
        (uint32_t)_mm256_movemask_epi8(
            _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)b), z)) |
        (uint64_t)(uint32_t)_mm256_movemask_epi8(
            _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(b + 32)), z))
            << 32;
    return kind == NS_VALIDITY_NULL_BYTES ? zero : ~zero;
}
/* The first valid row of rows rows (rows where there is none), validity
 * as for ns_avx2_valid64_: 64 rows a step (a byte mask's last rows one by
 * one, as its bytes past the rows may not be there).  Row by row, a page of
 * 1,000 rows with 99.9% nulls cost the general driver some 300 ns (AMD Zen
 * 4, AVX2, float32: pages of 1,000 rows 3.5 times one summary, where
 * AVX-512 read 1.1). */
NS_TARGET static inline int64_t NS_FN(ns_avx2_firstvalid_)(const int kind, const uint8_t *validity,
                                                          int64_t nbytes, int64_t vpos,
                                                          int64_t rows)
{
    int64_t r = 0;
    for (; r < rows && (kind == NS_VALIDITY_BITMAP || r + 64 <= rows); r += 64) {
        const uint64_t v = NS_FN(ns_avx2_valid64_)(kind, validity, nbytes, vpos, r);
        if (v) /* (a bit past the rows: none) */
            return r + __builtin_ctzll(v) < rows ? r + __builtin_ctzll(v) : rows;
    }
    while (r < rows && !NS_FN(ns_avx2_valid_)(kind, validity, vpos, r))
        r++;
    return r < rows ? r : rows;
}

#if NS_W == 16
/* Float16 stands a non-NaN row of the page in for its NaN lanes: where the
 * page's first valid row is a NaN, the first valid row that is not a NaN
 * among the NS_REF16_ROWS rows from row r (rows rows at row, validity from
 * vpos as for ns_avx2_valid_), or rows where there is none there (a page
 * of NaNs must not cost a scalar pass).  The general driver and the page
 * loops (ns_lean16_nanref_) both look so. */
#define NS_REF16_ROWS 64
NS_TARGET static inline int64_t NS_FN(ns_avx2_ref16_)(const T *row, int64_t rows, int64_t r,
                                                     const int kind, const uint8_t *validity,
                                                     int64_t vpos)
{
    const int64_t end = rows - r > NS_REF16_ROWS ? r + NS_REF16_ROWS : rows;
    for (; r < end; r++)
        if (NS_FN(ns_avx2_valid_)(kind, validity, vpos, r) && !NS_FN(ns_avx2_isnan_)(row[r]))
            return r;
    return rows;
}
#endif

NS_TARGET static inline uint64_t NS_FN(ns_avx2_load8_)(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* The bitmap of len rows from bit pos, where the loops can read it in place:
 * aligned to a byte, with their reads (up to 8 bytes past a row's byte)
 * inside it; NULL where they cannot. */
NS_TARGET static inline const uint8_t *NS_FN(ns_avx2_inplace_)(const uint8_t *v, int64_t nbytes,
                                                               int64_t pos, int64_t len)
{
    return (pos & 7) == 0 && (pos >> 3) + 8 * (len / 64) + 16 <= nbytes ? v + (pos >> 3) : NULL;
}

/* The valid rows among len rows of bits at p (bit j of byte j / 8). */
NS_TARGET static inline int64_t NS_FN(ns_avx2_count_)(const uint8_t *p, int64_t len)
{
    int64_t cnt = 0, w = 0;
    for (; w < len / 64; w++)
        cnt += __builtin_popcountll(NS_FN(ns_avx2_load8_)(p + 8 * w));
    if (len % 64)
        cnt += __builtin_popcountll(NS_FN(ns_avx2_load8_)(p + 8 * w) &
                                    (((uint64_t)1 << (len % 64)) - 1));
    return cnt;
}

/* Validity bits (1 = valid, bit j of byte j / 8 for row j) of len rows,
 * copied to bits[] (len / 64 + 2 words: a chunk of at most NS_CHUNK rows,
 * or a float16 page loop's page that starts inside a byte; a bitmap that
 * ns_avx2_inplace_ gives is read in place instead): the rows' first
 * validity bit is bit `pos` of v for a bitmap, byte `pos` for byte masks.
 * Returns bits.  Bits after len may be
 * anything (rows past the page are never counted, and their lanes hold the
 * reference row whatever the bit).  Adds the valid rows to *valid, except
 * float16's from a bitmap, which its loop counts (float16's byte masks come
 * here only for a cold pass, through ns_avx2_bytebits16_).  vec: a float16
 * bitmap shifted in the vector unit (see below). */
/* Inlined for float16 (its caller then keeps its accumulators in registers
 * across the call: measured 5% faster with nulls); left to the compiler for
 * the others (inlined there, gcc 12 allocates their loops' registers worse). */
#if NS_W == 16
#define NS_BITS_DECL static inline __attribute__((always_inline))
#else
#define NS_BITS_DECL static
#endif
NS_TARGET NS_BITS_DECL const uint8_t *NS_FN(ns_avx2_bits_)(int kind, const uint8_t *v, int64_t nbytes,
                                                     int64_t pos, int64_t len, uint64_t *bits,
                                                     int64_t *valid, const int vec)
{
    const int64_t full = len / 64, rest = len % 64;
    const uint64_t live = ((uint64_t)1 << rest) - 1;
    int64_t cnt = 0, w = 0;
    if (kind == NS_VALIDITY_BITMAP) {
        const int64_t byte = pos >> 3;
        const unsigned sh = (unsigned)(pos & 7);
        const uint8_t *p = v + byte;
        if (sh != 0) {
#if NS_W == 16
            /* vec (a constant where this is inlined): four words at a time
             * where 40 bytes are left, each word's bits and the next
             * word's low ones shifted in the vector unit.  For float16's
             * page loops only, whose cold passes over a page inside a byte
             * take its bits from here (NS_PAGEBITS16); until the
             * thirty-third session their loops read them from here too.
             * AMD Zen 3, 1e6 values in L3, the
             * kernel alone, both builds in one process, best of 150-200:
             * pages of 4,001 rows 1.13 -> 1.05 times one summary, pages of
             * 20,001 rows 1.09 -> 1.01 (docs/performance.rst has the rest).
             * Not in the general driver: there the same code made gcc
             * allocate the one-sign loops' registers worse (one summary,
             * +NaN only, a bitmap at bit 0: 10% slower), and not for
             * float32/64, whose loops call this function rather than inline
             * it (pages of 1,001 rows 1-2.5% slower). */
            if (vec) {
                const __m128i r_ = _mm_cvtsi32_si128((int)sh);
                const __m128i l_ = _mm_cvtsi32_si128(64 - (int)sh);
                for (; w + 4 <= full && byte + 8 * w + 40 <= nbytes; w += 4) {
                    const __m256i a_ = _mm256_loadu_si256((const __m256i *)(p + 8 * w));
                    const __m256i b_ = _mm256_loadu_si256((const __m256i *)(p + 8 * w + 8));
                    _mm256_storeu_si256((__m256i *)(bits + w), _mm256_or_si256(
                        _mm256_srl_epi64(a_, r_), _mm256_sll_epi64(b_, l_)));
                } /* (no count: float16's loops count a bitmap's valid rows) */
            }
#else
            (void)vec;
#endif
            for (; w < full && byte + 8 * w + 9 <= nbytes; w++) {
                uint64_t x = (NS_FN(ns_avx2_load8_)(p + 8 * w) >> sh) |
                             ((uint64_t)p[8 * w + 8] << (64 - sh));
                bits[w] = x;
                cnt += __builtin_popcountll(x);
            }
        }
        for (; w < full; w++) {
            bits[w] = ns_validity_bits(v, nbytes, pos + 64 * w);
            cnt += __builtin_popcountll(bits[w]);
        }
        if (rest) {
            bits[w] = ns_validity_bits(v, nbytes, pos + 64 * w) & live;
            cnt += __builtin_popcountll(bits[w]);
            w++;
        }
    } else {
        const uint8_t *p = v + pos;
        const __m256i z = _mm256_setzero_si256();
        const uint64_t flip = kind == NS_VALIDITY_NULL_BYTES ? 0 : ~(uint64_t)0;
        for (; w < full; w++) {
            __m256i lo = _mm256_loadu_si256((const __m256i *)(p + 64 * w));
            __m256i hi = _mm256_loadu_si256((const __m256i *)(p + 64 * w + 32));
            uint64_t zero = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, z)) |
                            (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, z)) << 32;
            bits[w] = zero ^ flip;
            cnt += __builtin_popcountll(bits[w]);
        }
        if (rest) {
            uint64_t zero = 0;
            for (int64_t k = 0; k < rest; k++)
                zero |= (uint64_t)(p[64 * w + k] == 0) << k;
            bits[w] = (zero ^ flip) & live;
            cnt += __builtin_popcountll(bits[w]);
            w++;
        }
    }
    bits[w] = 0; /* read by the loop's broadcasts (up to 8 bytes) */
    if (!(NS_W == 16 && kind == NS_VALIDITY_BITMAP))
        *valid += cnt;
    return (const uint8_t *)bits;
}
#if NS_W == 16
/* A byte mask's bits for a cold pass over a float16 chunk (the loop reads
 * the bytes and counts them itself). */
NS_TARGET __attribute__((noinline, cold)) static const uint8_t *
NS_FN(ns_avx2_bytebits16_)(int kind, const uint8_t *v, int64_t nbytes, int64_t pos, int64_t len,
                           uint64_t *bits)
{
    int64_t unused = 0;
    return NS_FN(ns_avx2_bits_)(kind, v, nbytes, pos, len, bits, &unused, 0);
}
#endif

#if NS_W != 16
/* ---------------------------------------------------------------- float32/64 */
#define VT VF
/* One set of accumulators: the loops take four vectors a step (two a step
 * in the last pair of a page), so each accumulator's chain of min/max (two
 * to four cycles each) stays shorter than the step.  Two sets, when the
 * loop took two vectors a step, left the four-vector loop no registers:
 * gcc spilled accumulators to the stack. */
#define NS_WV_T __m256i
#define NS_PAGE_CONSTS(refb) ((void)0)
#define NS_MASK_T VF
#define NS_BCAST_ARGS(wp) (wp)
#define NS_LOAD(p) CASTF(_mm256_loadu_si256((const __m256i *)(p)))
#define NS_ACC_INIT()                                                         \
    VF vmin = pinf, vmax = ninf, nmin = pinf, nmax = ninf
#define NS_CONSTS                                                             \
    const VF unit = FSET1(~(T)EXP_TOP);                                      \
    const VF pinf = FSET1(EXP_BITS), ninf = FSET1(SIGN_BIT | EXP_BITS)

/* One vector: value extremes, NaN extremes; m gets its non-NaN lanes and
 * g its sign bits, a bit a lane. */
#define NS_STEP(s, m, g)                                                      \
    do {                                                                      \
        VF ord_ = FCMP((s), (s), _CMP_ORD_Q);                                 \
        vmin = FMIN((s), vmin);                                               \
        vmax = FMAX((s), vmax);                                               \
        VF d_ = FOR(FAND((s), unit), ord_);                                   \
        nmin = FMIN(d_, nmin);                                                \
        nmax = FMAX(d_, nmax);                                                \
        (m) = ord_;                                                           \
        (g) = (s);                                                            \
    } while (0)

/* Scalar bookkeeping of one or two vectors' masks: three popcounts, of the
 * non-NaN lanes, the NaN lanes with the sign set and the lanes with the
 * sign set.  Whether a non-NaN row of either sign was seen (the sign of a
 * zero extreme) follows from these at the end of the page, as for float16:
 * three integer instructions a pair fewer than or-ing the two bits in the
 * loop (46 -> 43 a pair with a bitmap).  Measured on AMD Zen 5, both builds
 * in one process: with an Arrow bitmap at 1e8 values, float32 0.88-0.89 ->
 * 0.94 of the read ceiling and float64 0.87-0.88 -> 0.94-0.95; in cache,
 * 115.5 -> 107.5 and 225.7 -> 205.9 ns per 1,000 rows.  A loop with some
 * 20 vector and 20 integer instructions a pair is bound by how many it
 * issues, not only by its vector ones. */
#define NS_COUNT_BITS(m, g)                                                   \
    do {                                                                      \
        const unsigned M_ = (m), G_ = (g);                                    \
        ordc += __builtin_popcount(M_);                                       \
        negnan += __builtin_popcount(G_ & ~M_);                               \
        negc += __builtin_popcount(G_);                                       \
    } while (0)
#define NS_COUNT(m, g) NS_COUNT_BITS((unsigned)FMOVMSK(m), (unsigned)FMOVMSK(g))
#define NS_COUNT2(m0, g0, m1, g1)                                             \
    NS_COUNT_BITS((unsigned)FMOVMSK(m0) | (unsigned)FMOVMSK(m1) << LANES,     \
                  (unsigned)FMOVMSK(g0) | (unsigned)FMOVMSK(g1) << LANES)
/* Four vectors a step (the loops over pages' whole rows): their masks
 * packed by saturating packs, which keep each lane's sign, and moved to the
 * integer core by one movemask each, 32 bits for the four vectors (the
 * packs permute the lanes alike for both masks).  float32 packs to a byte a
 * lane.  float64 first takes each lane's upper half (its sign's) and packs
 * to 16 bits a lane: two bits a lane, the upper one (NS_QLANES keeps
 * those) holding the sign.  Against the same loop two vectors a step with a movmskps a
 * vector (AMD Zen 4, 1e8 values, both builds in one process, fractions of
 * the read ceiling): float32 0.916 -> 0.976 without nulls, 0.866 -> 0.890
 * with an Arrow bitmap, float64 0.933 -> 0.982 and 0.892 -> 0.910; in cache
 * float32 without nulls 127 -> 105 ns per 1,000 rows: the integer side
 * (shifts, ors, popcounts and adds, some twelve instructions a pair of
 * vectors) went from two vectors' to four vectors' worth a step. */
#if NS_W == 32
#define NS_QHALF(a, b) _mm256_packs_epi32(CASTI(a), CASTI(b))
#define NS_QJOIN(x, y) ((unsigned)_mm256_movemask_epi8(_mm256_packs_epi16((x), (y))))
#define NS_QLANES 0xFFFFFFFFu
#else
#define NS_QHALF(a, b)                                                        \
    _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castpd_ps(a), _mm256_castpd_ps(b), \
                                          _MM_SHUFFLE(3, 1, 3, 1)))
#define NS_QJOIN(x, y) ((unsigned)_mm256_movemask_epi8(_mm256_packs_epi32((x), (y))))
#define NS_QLANES 0xAAAAAAAAu
#endif
#define NS_QUAD(s0, s1, s2, s3)                                               \
    do {                                                                      \
        NS_MASK_T m0, g0, m1, g1;                                             \
        NS_STEP(s0, m0, g0);                                                  \
        NS_STEP(s1, m1, g1);                                                  \
        const __m256i pm_ = NS_QHALF(m0, m1), pg_ = NS_QHALF(g0, g1);         \
        NS_STEP(s2, m0, g0);                                                  \
        NS_STEP(s3, m1, g1);                                                  \
        const unsigned M_ = NS_QJOIN(pm_, NS_QHALF(m0, m1)) & NS_QLANES;      \
        const unsigned G_ = NS_QJOIN(pg_, NS_QHALF(g0, g1)) & NS_QLANES;      \
        ordc += __builtin_popcount(M_);                                       \
        negnan += __builtin_popcount(G_ & ~M_);                               \
        negc += __builtin_popcount(G_);                                       \
    } while (0)

/* The validity bits of a step's vectors broadcast from memory at wp (the
 * byte of the step's first row); NS_BLEND shifts vector q's own bits (q = 0
 * to 3) to the top of each lane, where blendv looks. */
NS_TARGET static inline __m256i NS_FN(ns_avx2_bcast_)(const uint8_t *wp)
{
#if NS_W == 32
    int32_t w;
    memcpy(&w, wp, sizeof w);
    return _mm256_set1_epi32(w);
#else
    long long w;
    memcpy(&w, wp, sizeof w);
    return _mm256_set1_epi64x(w);
#endif
}
#define NS_BLEND(ref, s, wv, q) FBLENDV((ref), (s), CASTF(SLLV((wv), shv##q)))
/* The same from LANES bits in an integer. */
#if NS_W == 32
#define FBLEND_BITS(ref, s, b) FBLENDV((ref), (s), CASTF(SLLV(_mm256_set1_epi32((int)(b)), shv0)))
#else
#define FBLEND_BITS(ref, s, b) FBLENDV((ref), (s), CASTF(SLLV(_mm256_set1_epi64x((long long)(b)), shv0)))
#endif
#if NS_W == 32
#define NS_REF_SET1(b) CASTF(_mm256_set1_epi32((int)(b)))
#define NS_MASK_CONSTS                                                        \
    const __m256i shv0 = _mm256_setr_epi32(31, 30, 29, 28, 27, 26, 25, 24);   \
    const __m256i shv1 = _mm256_setr_epi32(23, 22, 21, 20, 19, 18, 17, 16);   \
    const __m256i shv2 = _mm256_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8);     \
    const __m256i shv3 = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0)
#else
#define NS_REF_SET1(b) CASTF(_mm256_set1_epi64x((long long)(b)))
#define NS_MASK_CONSTS                                                        \
    const __m256i shv0 = _mm256_setr_epi64x(63, 62, 61, 60);                  \
    const __m256i shv1 = _mm256_setr_epi64x(59, 58, 57, 56);                  \
    const __m256i shv2 = _mm256_setr_epi64x(55, 54, 53, 52);                  \
    const __m256i shv3 = _mm256_setr_epi64x(51, 50, 49, 48)
#endif

#if NS_W == 32
NS_TARGET static inline T NS_FN(ns_avx2_hmin_)(VF x)
{
    __m128 a = _mm_min_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    a = _mm_min_ps(a, _mm_movehl_ps(a, a));
    a = _mm_min_ss(a, _mm_shuffle_ps(a, a, 1));
    return (T)_mm_cvtsi128_si32(_mm_castps_si128(a));
}
NS_TARGET static inline T NS_FN(ns_avx2_hmax_)(VF x)
{
    __m128 a = _mm_max_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    a = _mm_max_ps(a, _mm_movehl_ps(a, a));
    a = _mm_max_ss(a, _mm_shuffle_ps(a, a, 1));
    return (T)_mm_cvtsi128_si32(_mm_castps_si128(a));
}
#else
NS_TARGET static inline T NS_FN(ns_avx2_hmin_)(VF x)
{
    __m128d a = _mm_min_pd(_mm256_castpd256_pd128(x), _mm256_extractf128_pd(x, 1));
    a = _mm_min_sd(a, _mm_unpackhi_pd(a, a));
    return (T)_mm_cvtsi128_si64(_mm_castpd_si128(a));
}
NS_TARGET static inline T NS_FN(ns_avx2_hmax_)(VF x)
{
    __m128d a = _mm_max_pd(_mm256_castpd256_pd128(x), _mm256_extractf128_pd(x, 1));
    a = _mm_max_sd(a, _mm_unpackhi_pd(a, a));
    return (T)_mm_cvtsi128_si64(_mm_castpd_si128(a));
}
#endif

/* The four extremes of a page into keys[0..3] (those the counts say exist). */
#define NS_FINISH(keys, nums, nan)                                            \
    do {                                                                      \
        if ((nums) > 0) {                                                     \
            T lo_ = NS_FN(ns_avx2_hmin_)(vmin);                               \
            T hi_ = NS_FN(ns_avx2_hmax_)(vmax);                               \
            /* A zero's sign: see the head of this file. */                   \
            if ((lo_ & ~(T)SIGN_BIT) == 0)                                    \
                lo_ = negnum ? (T)SIGN_BIT : 0;                               \
            if ((hi_ & ~(T)SIGN_BIT) == 0)                                    \
                hi_ = posnum ? 0 : (T)SIGN_BIT;                               \
            (keys)[0] = NS_FN(ns_avx2_key_)(lo_);                             \
            (keys)[1] = NS_FN(ns_avx2_key_)(hi_);                             \
        }                                                                     \
        {                                                                     \
            T lo_ = NS_FN(ns_avx2_hmin_)(nmin);                               \
            T hi_ = NS_FN(ns_avx2_hmax_)(nmax);                               \
            /* Back from sign | 1.0 | payload to the NaN's bits. */           \
            lo_ = (lo_ & (T)(SIGN_BIT | MANT_BITS)) | (T)EXP_BITS;            \
            hi_ = (hi_ & (T)(SIGN_BIT | MANT_BITS)) | (T)EXP_BITS;            \
            /* Without a branch on the NaN count (ns_pick_i64; float32,   \
             * pages of 1,000 rows at 0.1% NaN, 5e7 values: 7.41-7.46 ->    \
             * 7.26-7.30 ms; no NaN and 1% unchanged). */                   \
            (keys)[2] = ns_pick_i64((nan) > 0, NS_FN(ns_avx2_key_)(lo_), INT64_MAX); \
            (keys)[3] = ns_pick_i64((nan) > 0, NS_FN(ns_avx2_key_)(hi_), INT64_MIN); \
        }                                                                     \
    } while (0)

#else
/* ---------------------------------------------------------------- float16 */
#define VT __m256i
#define NS_WV_T const uint8_t *
#define NS_LOAD(p) _mm256_loadu_si256((const __m256i *)(p))
/* Keys here are |bits| carrying the bits' sign (psignw: two instructions):
 * the total order except that -0.0 and +0.0 share the key 0, settled at the
 * end of the page from two scalar bits as for float32/64.  NaN keys lie
 * outside [-0x7C00, 0x7C00] (infinities).  Four accumulators, each one
 * min/max a vector (latency 1: one set), in mode 0:
 * - vmin/vmax over the keys with NaN lanes replaced by the reference key
 *   (a non-NaN row of the page when there is one): the value extremes;
 * - kmin/kmax over the keys: -NaN at the bottom, +NaN at the top.
 * When both signs occur the NaN extremes are kmin and kmax.  With NaNs of
 * one sign the other extreme is the NaN rows' smallest bits (the smallest
 * +NaN with +NaN only, the largest -NaN with -NaN only: the NaNs of one
 * sign are ordered as their bits are), which mode 0 does not find: the
 * lean pass ns_avx2_nanlo16_ below goes over such a stretch again.  Where
 * the data's NaNs have shown one sign (real data's mostly do: np.nan is
 * +NaN) a stretch runs in that sign's mode instead (NS_STEP), which
 * finds every extreme with the same instructions a vector and no blend.
 * Until 2026-11 a copy of the loop with a fifth accumulator did (the NaN
 * lanes' complemented bits, two instructions a vector more). */
#define NS_ACC_INIT()                                                         \
    __m256i vmin = smax, vmax = smin, kmin = smax, kmax = smin, w5 = _mm256_setzero_si256()
#define NS_CONSTS                                                             \
    const __m256i abs7 = _mm256_set1_epi16(0x7FFF), inf0 = _mm256_set1_epi16(0x7C00); \
    const __m256i smax = _mm256_set1_epi16(INT16_MAX), smin = _mm256_set1_epi16(INT16_MIN)

/* The key of bits b as above (scalar). */
#define NS_PKEY16(b) ((int16_t)(((b) & 0x8000) ? -(int)((b) & 0x7FFF) : (int)((b) & 0x7FFF)))
/* From ref in the vector unit: the scalar form compiled to a branch on
 * the reference row's sign, mispredicted on half the pages of random data. */
#define NS_PAGE_CONSTS(refb) const __m256i kref = _mm256_sign_epi16(_mm256_and_si256(ref, abs7), ref)

/* One vector: m gets its NaN lanes (two bits a lane) and g the bytes'
 * top bits (a lane's sign is its upper byte's).  wf, the stretch's mode:
 * - 0: vmin/vmax over the keys with NaN lanes blended to kref, kmin/kmax
 *   over the keys (see above);
 * - 1 and 2, where the data's NaNs have had one sign (+NaN, -NaN; see
 *   ns_lean16_ and the general driver's chunks): no blend, the same
 *   instructions a vector.  The keys shifted (16-bit, wrapping) move the
 *   NaNs to one end of the order: k + 0x3FF puts +NaN (then -NaN) below
 *   every value, k - 0x400 puts +NaN (then -NaN) above.  Mode 1: vmin =
 *   min k (a +NaN never the least), kmax = max k (the largest +NaN), vmax =
 *   max (k + 0x3FF) (the values' largest, NaNs of either sign below it),
 *   kmin = min (k + 0x3FF) (the smallest +NaN).  Mode 2, mirrored: vmax =
 *   max k, kmin = min k, vmin = min (k - 0x400), kmax = max (k - 0x400)
 *   (the -NaN nearest zero).  NS_DECODE_PM16 reads them back;
 * - 3, mode 0's page loop where one-sign pages and broken one-sign modes
 *   come often (ns_hot16_): mode 0 and w5, the max of the NaN lanes'
 *   complemented bits (their least bits: the other end of NaNs of one
 *   sign), two instructions a vector more and no pass after. */
#define NS_STEP(s, m, g)                                                      \
    do {                                                                      \
        __m256i mag_ = _mm256_and_si256((s), abs7);                           \
        __m256i k_ = _mm256_sign_epi16(mag_, (s));                            \
        __m256i nan_ = _mm256_cmpgt_epi16(mag_, inf0);                        \
        if (wf == 1) {                                                        \
            __m256i k2_ = _mm256_add_epi16(k_, _mm256_set1_epi16(0x3FF));     \
            vmin = _mm256_min_epi16(k_, vmin);                                \
            kmax = _mm256_max_epi16(k_, kmax);                                \
            vmax = _mm256_max_epi16(k2_, vmax);                               \
            kmin = _mm256_min_epi16(k2_, kmin);                               \
        } else if (wf == 2) {                                                 \
            __m256i k3_ = _mm256_sub_epi16(k_, _mm256_set1_epi16(0x400));     \
            vmax = _mm256_max_epi16(k_, vmax);                                \
            kmin = _mm256_min_epi16(k_, kmin);                                \
            vmin = _mm256_min_epi16(k3_, vmin);                               \
            kmax = _mm256_max_epi16(k3_, kmax);                               \
        } else {                                                              \
            __m256i t_ = _mm256_blendv_epi8(k_, kref, nan_);                  \
            vmin = _mm256_min_epi16(t_, vmin);                                \
            vmax = _mm256_max_epi16(t_, vmax);                                \
            kmin = _mm256_min_epi16(k_, kmin);                                \
            kmax = _mm256_max_epi16(k_, kmax);                                \
            if (wf == 3)                                                      \
                w5 = _mm256_max_epu16(_mm256_andnot_si256((s), nan_), w5);    \
        }                                                                     \
        (m) = nan_;                                                           \
        (g) = (s);                                                            \
    } while (0)
/* An empty asm naming the accumulators at the end of a loop's step: without
 * it gcc 12 gave each min/max a new register and copied it back, four or
 * five moves a step (the general driver's one-sign loops, +NaN only, no
 * nulls, in cache: 62.4 -> 54.2 ns a thousand rows). */
#define NS_KEEP16() __asm__("" : "+x"(vmin), "+x"(vmax), "+x"(kmin), "+x"(kmax))

/* Scalar bookkeeping: a pair's NaN masks and its bits each packed to bytes
 * (signed saturation keeps the sign) and moved to the integer core, one bit
 * a row; one vector packs beside zeros (which count as neither).  Three
 * popcounts: NaN lanes, NaN lanes with the sign set, lanes with the sign
 * set; whether a non-NaN row of either sign was seen (the sign of a zero
 * extreme) follows from these counts at the end of the page, three integer
 * instructions a pair fewer than keeping those two bits in the loop
 * (measured on AMD Zen 5 with 1e8 values, interleaved: 1-4% faster). */
#define NS_MASK_T __m256i
#define NS_COUNT_(mm, gm, live)                                               \
    do {                                                                      \
        const uint32_t M_ = (mm), G_ = (gm);                                  \
        nanc += __builtin_popcount(M_);                                       \
        negnan += __builtin_popcount(M_ & G_);                                \
        negc += __builtin_popcount(G_);                                       \
        (void)(live);                                                         \
    } while (0)
#define NS_PACKMASK(a, b) ((uint32_t)_mm256_movemask_epi8(_mm256_packs_epi16((a), (b))))
#define NS_COUNT(m, g)                                                        \
    NS_COUNT_(NS_PACKMASK((m), _mm256_setzero_si256()),                       \
              NS_PACKMASK((g), _mm256_setzero_si256()), 0x00FF00FFu)
#define NS_COUNT2(m0, g0, m1, g1)                                             \
    NS_COUNT_(NS_PACKMASK((m0), (m1)), NS_PACKMASK((g0), (g1)), 0xFFFFFFFFu)

#define NS_REF_SET1(b) _mm256_set1_epi16((short)(b))
/* The 32 bits of a pair of vectors at wp; vector q takes bytes 2q, 2q+1. */
#define NS_BCAST_ARGS(wp) (wp)
NS_TARGET static inline const uint8_t *NS_FN(ns_avx2_bcast_)(const uint8_t *wp) { return wp; }
/* A vector's 16 validity bits broadcast to its lanes, each lane testing
 * its own bit: a lane mask for blendv (AVX2 has no 16-bit variable shift). */
NS_TARGET static inline __m256i NS_FN(ns_avx2_lanemask_)(const uint8_t *wp, __m256i lbit)
{
    int16_t w;
    memcpy(&w, wp, sizeof w);
    return _mm256_cmpeq_epi16(_mm256_and_si256(_mm256_set1_epi16(w), lbit), lbit);
}
#define NS_BLEND(ref, s, wp, q)                                               \
    _mm256_blendv_epi8((ref), (s), NS_FN(ns_avx2_lanemask_)((wp) + 2 * (q), lbit))
#define FBLEND_BITS(ref, s, b)                                                \
    _mm256_blendv_epi8((ref), (s), _mm256_cmpeq_epi16(                        \
        _mm256_and_si256(_mm256_set1_epi16((short)(b)), lbit), lbit))
#define NS_MASK_CONSTS                                                        \
    const __m256i lbit = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, \
                                           2048, 4096, 8192, 16384, (short)0x8000)

/* A reduction by phminposuw (the minimum of eight unsigned 16-bit lanes). */
NS_TARGET static inline uint16_t NS_FN(ns_avx2_hmaxu16_)(__m256i x)
{
    __m128i a = _mm_max_epu16(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
    a = _mm_xor_si128(a, _mm_set1_epi16(-1));
    return (uint16_t)~_mm_cvtsi128_si32(_mm_minpos_epu16(a));
}
/* The smallest bits among the valid NaN rows of len rows at row (0xFFFF
 * when there is none): validity from the bits at bb (NULL: every row
 * valid), as the main loop has them.  Run over a stretch that the loop ran
 * in mode 0 and whose page's NaNs so far have one sign (at 1% NaN of both
 * signs, 2% of the pages of 1,000 rows), or by NS_DECODE_PM16 over a
 * stretch whose NaNs all have the other sign than its mode's: five to nine
 * vector instructions a vector from the cache, where running the whole loop
 * again cost some twenty-five. */
NS_TARGET static inline unsigned NS_FN(ns_avx2_lanebits_)(const uint8_t *bb, int64_t r);
/* The cold passes' last rows as one vector, no branch a row (their
 * validity is as random as the data's): the stretch's last LANES rows (rows
 * taken twice change no extreme), or a stretch shorter than a vector copied
 * beside zeros; *vb gets the lanes' validity (bits at bb, NULL: all). */
NS_TARGET static inline __m256i NS_FN(ns_avx2_lastrows16_)(const T *row, int64_t len,
                                                          const uint8_t *bb, unsigned *vb)
{
    if (len >= LANES) {
        *vb = bb ? NS_FN(ns_avx2_lanebits_)(bb, len - LANES) : 0xFFFFu;
        return NS_LOAD(row + len - LANES);
    }
    T tail[LANES] = {0};
    memcpy(tail, row, (size_t)len * sizeof(T));
    *vb = (bb ? NS_FN(ns_avx2_lanebits_)(bb, 0) : 0xFFFFu) & ((1u << len) - 1);
    return NS_LOAD(tail);
}
NS_TARGET __attribute__((noinline, cold)) static uint16_t
NS_FN(ns_avx2_nanlo16_)(const T *row, int64_t len, const uint8_t *bb)
{
    const __m256i abs7 = _mm256_set1_epi16(0x7FFF), inf0 = _mm256_set1_epi16(0x7C00);
    const __m256i lbit = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048,
                                           4096, 8192, 16384, (short)0x8000);
    __m256i w = _mm256_setzero_si256(); /* max of the complemented bits */
    const int64_t j = len & ~(int64_t)(LANES - 1);
    /* A loop with validity and one without, pointers stepped (against one
     * loop testing bb each step: 17 -> 13 instructions a vector). */
    const T *q = row;
    if (bb) {
        for (const uint8_t *b = bb; q < row + j; q += LANES, b += LANES / 8) {
            const __m256i s = NS_LOAD(q);
            const __m256i nan = _mm256_and_si256(
                _mm256_cmpgt_epi16(_mm256_and_si256(s, abs7), inf0),
                NS_FN(ns_avx2_lanemask_)(b, lbit));
            w = _mm256_max_epu16(_mm256_andnot_si256(s, nan), w);
        }
    } else {
        for (; q < row + j; q += LANES) {
            const __m256i s = NS_LOAD(q);
            const __m256i nan = _mm256_cmpgt_epi16(_mm256_and_si256(s, abs7), inf0);
            w = _mm256_max_epu16(_mm256_andnot_si256(s, nan), w);
        }
    }
    if (j < len) {
        unsigned vb;
        const __m256i s = NS_FN(ns_avx2_lastrows16_)(row, len, bb, &vb);
        const __m256i live = _mm256_cmpeq_epi16(
            _mm256_and_si256(_mm256_set1_epi16((short)vb), lbit), lbit);
        const __m256i nan = _mm256_and_si256(
            _mm256_cmpgt_epi16(_mm256_and_si256(s, abs7), inf0), live);
        w = _mm256_max_epu16(_mm256_andnot_si256(s, nan), w);
    }
    return (uint16_t)~NS_FN(ns_avx2_hmaxu16_)(w);
}

/* The lanes of the vector sv that hold a valid row (bit i of vb, lane i)
 * that is not a NaN: the cold passes' selection. */
NS_TARGET static inline __m256i NS_FN(ns_avx2_numsel16_)(__m256i sv, unsigned vb)
{
    const __m256i abs7 = _mm256_set1_epi16(0x7FFF), inf0 = _mm256_set1_epi16(0x7C00);
    const __m256i lbit = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048,
                                           4096, 8192, 16384, (short)0x8000);
    return _mm256_andnot_si256(
        _mm256_cmpgt_epi16(_mm256_and_si256(sv, abs7), inf0),
        _mm256_cmpeq_epi16(_mm256_and_si256(_mm256_set1_epi16((short)vb), lbit), lbit));
}
/* The cold passes' vector of rows from row j of len rows at row into *sv
 * (the last LANES rows where fewer are left: ns_avx2_lastrows16_), and its
 * lanes that hold a valid row that is not a NaN (validity bits at bb,
 * NULL: every row valid). */
NS_TARGET static inline __m256i NS_FN(ns_avx2_numlanes16_)(const T *row, int64_t len,
                                                          const uint8_t *bb, int64_t j,
                                                          __m256i *sv)
{
    unsigned vb = 0xFFFFu;
    if (j + LANES <= len) {
        *sv = NS_LOAD(row + j);
        if (bb)
            vb = NS_FN(ns_avx2_lanebits_)(bb, j);
    } else {
        *sv = NS_FN(ns_avx2_lastrows16_)(row, len, bb, &vb);
    }
    return NS_FN(ns_avx2_numsel16_)(*sv, vb);
}
/* The smallest and largest psignw keys among the valid non-NaN rows of len
 * rows at row, validity from the bits at bb (NULL: every
 * row valid), into lo and hi (INT16_MAX and INT16_MIN when there is none).  The small-page
 * loop's one-sign modes run it over a page whose NaNs turned out to have
 * the other sign too (see ns_lean16_). */
NS_TARGET __attribute__((noinline, cold)) static void
NS_FN(ns_avx2_values16_)(const T *row, int64_t len, const uint8_t *bb, int16_t *lo, int16_t *hi)
{
    const __m256i abs7 = _mm256_set1_epi16(0x7FFF);
    const __m256i smax = _mm256_set1_epi16(INT16_MAX), smin = _mm256_set1_epi16(INT16_MIN);
    __m256i mn = smax, mx = smin;
    for (int64_t j = 0; j < len; j += LANES) {
        __m256i sv;
        const __m256i sel = NS_FN(ns_avx2_numlanes16_)(row, len, bb, j, &sv);
        const __m256i k = _mm256_sign_epi16(_mm256_and_si256(sv, abs7), sv);
        mn = _mm256_min_epi16(_mm256_blendv_epi8(smax, k, sel), mn);
        mx = _mm256_max_epi16(_mm256_blendv_epi8(smin, k, sel), mx);
    }
    int16_t a[LANES], b[LANES];
    _mm256_storeu_si256((__m256i *)a, mn);
    _mm256_storeu_si256((__m256i *)b, mx);
    int16_t l = INT16_MAX, h = INT16_MIN;
    for (int i = 0; i < LANES; i++) {
        l = a[i] < l ? a[i] : l;
        h = b[i] > h ? b[i] : h;
    }
    *lo = l;
    *hi = h;
}

/* Whether len rows at row (validity bits at bb, NULL: every row valid)
 * hold a valid non-NaN row with the sign set (bit 0) and one with the sign
 * clear (bit 1): the signs of a zero extreme (NS_ZEROFIX16) for a page
 * whose loop did not count its sign bits (ns_lean16_m0_ without cneg). */
NS_TARGET __attribute__((noinline, cold)) static int
NS_FN(ns_avx2_zsigns16_)(const T *row, int64_t len, const uint8_t *bb)
{
    __m256i neg = _mm256_setzero_si256(), pos = neg;
    for (int64_t j = 0; j < len; j += LANES) {
        __m256i sv;
        const __m256i num = NS_FN(ns_avx2_numlanes16_)(row, len, bb, j, &sv);
        const __m256i sg = _mm256_srai_epi16(sv, 15);
        neg = _mm256_or_si256(neg, _mm256_and_si256(num, sg));
        pos = _mm256_or_si256(pos, _mm256_andnot_si256(sg, num));
    }
    return (_mm256_testz_si256(neg, neg) ? 0 : 1) | (_mm256_testz_si256(pos, pos) ? 0 : 2);
}

/* The value extremes (total-order keys) of the valid non-NaN rows among
 * rows r.. of the rows rows at row, validity at vpos as for
 * ns_avx2_valid_, where there are some: the general driver's for a page
 * whose reference row is a NaN (no valid non-NaN row among the
 * NS_REF16_ROWS after its first valid row) but which has values.  Blocks
 * of 64 rows, those without a valid row skipped at once.  It was a scalar
 * pass, eleven times the page's own on AVX2 with 99% nulls and 1% NaN:
 * 727 us for one summary of 1e6 values, where AVX-512 took 54 (AMD Zen 4,
 * the kernel alone). */
NS_TARGET __attribute__((noinline, cold)) static void
NS_FN(ns_avx2_valuekeys16_)(const T *row, int64_t rows, int64_t r, const int kind,
                            const uint8_t *validity, int64_t vpos, int64_t *lo, int64_t *hi)
{
    const __m256i abs7 = _mm256_set1_epi16(0x7FFF);
    const __m256i smax = _mm256_set1_epi16(INT16_MAX), smin = _mm256_set1_epi16(INT16_MIN);
    const int64_t nbytes = kind == NS_VALIDITY_BITMAP ? ((vpos + rows - 1) >> 3) + 1 : 0;
    __m256i mn = smax, mx = smin;
    for (; r + 64 <= rows; r += 64) {
        const uint64_t v = NS_FN(ns_avx2_valid64_)(kind, validity, nbytes, vpos, r);
        if (!v)
            continue;
        for (int q = 0; q < 4; q++) {
            const __m256i sv = NS_LOAD(row + r + LANES * q);
            const __m256i sel = NS_FN(ns_avx2_numsel16_)(sv, (unsigned)(v >> (LANES * q)));
            /* The total-order key: the magnitude's bits flipped where the
             * sign is set (as ns_avx2_key_). */
            const __m256i k = _mm256_xor_si256(sv, _mm256_and_si256(_mm256_srai_epi16(sv, 15), abs7));
            mn = _mm256_min_epi16(_mm256_blendv_epi8(smax, k, sel), mn);
            mx = _mm256_max_epi16(_mm256_blendv_epi8(smin, k, sel), mx);
        }
    }
    int16_t a[LANES], b[LANES];
    _mm256_storeu_si256((__m256i *)a, mn);
    _mm256_storeu_si256((__m256i *)b, mx);
    int64_t l = INT16_MAX, h = INT16_MIN; /* (the keys of NaN bits: no value's) */
    for (int i = 0; i < LANES; i++) {
        l = a[i] < l ? a[i] : l;
        h = b[i] > h ? b[i] : h;
    }
    for (; r < rows; r++)
        if (NS_FN(ns_avx2_valid_)(kind, validity, vpos, r) && !NS_FN(ns_avx2_isnan_)(row[r])) {
            const int64_t k_ = NS_FN(ns_avx2_key_)(row[r]);
            l = k_ < l ? k_ : l;
            h = k_ > h ? k_ : h;
        }
    *lo = l;
    *hi = h;
}

#define NS_KEY16(b) NS_FN(ns_avx2_key_)((T)(b))
/* The four extremes at once, in lanes 0-3 (int16) of the result: min vmin,
 * max vmax, min kmin, max kmax, each accumulator reduced by phminposuw
 * (minima through x ^ 0x8000, maxima through x ^ 0x7FFF), the four minima
 * gathered into one vector and mapped back.  NS_TOKEY16 turns psignw keys
 * into total-order keys there: k for k >= 0, k - 1 below (the key of bits
 * 0x8000 | m is -m - 1).  Some 25 instructions for the four, where
 * extracting each and mapping it in the integer core took about 45. */
NS_TARGET static inline __m128i NS_FN(ns_avx2_pkeys16_)(__m256i vmin, __m256i vmax, __m256i kmin,
                                                       __m256i kmax)
{
    const __m128i lo = _mm_set1_epi16((short)0x8000), hi = _mm_set1_epi16(0x7FFF);
    const __m128i a = _mm_minpos_epu16(_mm_xor_si128(
        _mm_min_epi16(_mm256_castsi256_si128(vmin), _mm256_extracti128_si256(vmin, 1)), lo));
    const __m128i b = _mm_minpos_epu16(_mm_xor_si128(
        _mm_max_epi16(_mm256_castsi256_si128(vmax), _mm256_extracti128_si256(vmax, 1)), hi));
    const __m128i c = _mm_minpos_epu16(_mm_xor_si128(
        _mm_min_epi16(_mm256_castsi256_si128(kmin), _mm256_extracti128_si256(kmin, 1)), lo));
    const __m128i d = _mm_minpos_epu16(_mm_xor_si128(
        _mm_max_epi16(_mm256_castsi256_si128(kmax), _mm256_extracti128_si256(kmax, 1)), hi));
    /* Lane 0 of each: a, b, c, d in lanes 0-3, back to psignw keys. */
    __m128i k = _mm_unpacklo_epi32(_mm_unpacklo_epi16(a, b), _mm_unpacklo_epi16(c, d));
    return _mm_xor_si128(k, _mm_setr_epi16((short)0x8000, 0x7FFF, (short)0x8000, 0x7FFF, 0, 0, 0, 0));
}
/* psignw keys to total-order keys, lane by lane. */
#define NS_TOKEY16(k) _mm_add_epi16((k), _mm_srai_epi16((k), 15))
#define NS_KEYS16() NS_TOKEY16(NS_FN(ns_avx2_pkeys16_)(vmin, vmax, kmin, kmax))
#define NS_FINISH(keys, nums, nan)                                            \
    do {                                                                      \
        const __m128i k16_ = NS_KEYS16();                                     \
        const int64_t posnan_ = (nan) - negnan;                               \
        if (__builtin_expect((nums) > 0 && negnan > 0 && posnan_ > 0, 1)) {   \
            /* Both extremes of both kinds: the four keys in one store. */   \
            _mm256_storeu_si256((__m256i *)(keys), _mm256_cvtepi16_epi64(k16_)); \
        } else {                                                              \
            int64_t k_[4];                                                    \
            _mm256_storeu_si256((__m256i *)k_, _mm256_cvtepi16_epi64(k16_));  \
            if ((nums) > 0) {                                                 \
                (keys)[0] = k_[0];                                            \
                (keys)[1] = k_[1];                                            \
            }                                                                 \
            if ((nan) > 0) {                                                  \
                int64_t w_ = 0;                                               \
                if (negnan == 0 || posnan_ == 0) /* one NaN: its own key */   \
                    w_ = (nan) == 1 ? k_[negnan > 0 ? 2 : 3] : NS_KEY16(nanlo);  \
                (keys)[2] = negnan > 0 ? k_[2] : w_;                          \
                (keys)[3] = posnan_ > 0 ? k_[3] : w_;                         \
            }                                                                 \
        }                                                                     \
        NS_ZEROFIX16(keys, nums, k16_);                                       \
    } while (0)
/* A zero extreme is -0.0 (key -1) as the counts say (rare; the key 0 is
 * that of a zero of either sign, see the head of this file). */
#define NS_ZEROFIX16(keys, nums, k16)                                         \
    do {                                                                      \
        if ((nums) > 0) {                                                     \
            const uint32_t z_ = (uint32_t)_mm_cvtsi128_si32(k16);             \
            if (__builtin_expect((z_ & 0xFFFFu) == 0, 0) && NS_NEGNUM16)      \
                (keys)[0] = -1;                                               \
            if (__builtin_expect((z_ >> 16) == 0, 0) && !NS_POSNUM16)         \
                (keys)[1] = -1;                                               \
        }                                                                     \
    } while (0)
/* The four extremes of a stretch run in a one-sign mode (MODE 1 or 2,
 * NS_STEP; the stretch has values, its reference row or rows being
 * some) as psignw keys in lanes 0-3 of p16: value min, value max, NaN min,
 * NaN max (the NaN lanes meaningful where the stretch has NaNs).  The
 * accumulators' keys shifted back are those while the stretch's NaNs (cnan,
 * cneg of them -NaN) have the mode's sign.  When NaNs of the other sign
 * turn up, the extreme of them that the mode keeps anyway moves to its
 * lane, the values' extreme they hid comes from a pass over the stretch
 * (ns_avx2_values16_), and where all the NaNs have the other sign their
 * other end from the lean NaN pass.  One rule for both float16 drivers. */
#define NS_DECODE_PM16(p16, MODE, crow, len, bb, cnan, cneg)                  \
    do {                                                                      \
        (p16) = NS_FN(ns_avx2_pkeys16_)(vmin, vmax, kmin, kmax);              \
        (p16) = _mm_sub_epi16((p16), (MODE) == 1                              \
                                         ? _mm_setr_epi16(0, 0x3FF, 0x3FF, 0, 0, 0, 0, 0) \
                                         : _mm_setr_epi16(-0x400, 0, 0, -0x400, 0, 0, 0, 0)); \
        if (__builtin_expect((MODE) == 1 ? (cneg) > 0 : (cnan) - (cneg) > 0, 0)) { \
            int16_t lo_, hi_;                                                 \
            NS_ON_BREAK16();                                                  \
            NS_FN(ns_avx2_values16_)((crow), (len), (bb), &lo_, &hi_);        \
            if ((MODE) == 1) {                                                \
                const int nmin_ = _mm_extract_epi16((p16), 0);                \
                (p16) = _mm_insert_epi16((p16), lo_, 0);                      \
                (p16) = _mm_insert_epi16((p16), nmin_, 2);                    \
                if ((cneg) == (cnan))                                         \
                    (p16) = _mm_insert_epi16(                                 \
                        (p16), NS_PKEY16(NS_FN(ns_avx2_nanlo16_)((crow), (len), (bb))), 3); \
            } else {                                                          \
                const int nmax_ = _mm_extract_epi16((p16), 1);                \
                (p16) = _mm_insert_epi16((p16), hi_, 1);                      \
                (p16) = _mm_insert_epi16((p16), nmax_, 3);                    \
                if ((cneg) == 0)                                              \
                    (p16) = _mm_insert_epi16(                                 \
                        (p16), NS_PKEY16(NS_FN(ns_avx2_nanlo16_)((crow), (len), (bb))), 2); \
            }                                                                 \
        }                                                                     \
    } while (0)
/* Where a stretch's one-sign mode was broken (the page loops count it). */
#define NS_ON_BREAK16() ((void)0)
/* The small-page loop's finish after a page run in a one-sign mode: the
 * page is the stretch. */
#define NS_FINISH_PM16(keys, nums, nan, MODE)                                 \
    do {                                                                      \
        __m128i p16_;                                                         \
        NS_DECODE_PM16(p16_, MODE, row, rows, bb, nan, negnan);               \
        const __m128i k16_ = NS_TOKEY16(p16_);                                \
        _mm256_storeu_si256((__m256i *)(keys), _mm256_cvtepi16_epi64(k16_));  \
        if (__builtin_expect((nan) == 0, 0)) {                                \
            (keys)[2] = INT64_MAX;                                            \
            (keys)[3] = INT64_MIN;                                            \
        }                                                                     \
        NS_ZEROFIX16(keys, nums, k16_);                                       \
    } while (0)
#endif

#if NS_W == 16
/* The bits of a page's only NaN so far, from the mode-0 accumulators of
 * the stretches that held it: the largest key (a +NaN, neg 0) or the
 * smallest (a -NaN).  A NaN alone is its own other end: no lean pass. */
NS_TARGET static inline uint16_t NS_FN(ns_avx2_onenan16_)(__m256i kmin, __m256i kmax, int64_t neg)
{
    /* Signed extremes through the unsigned maximum: x ^ 0x8000 keeps the
     * order, x ^ 0x7FFF reverses it. */
    if (neg) {
        const int16_t k = (int16_t)(NS_FN(ns_avx2_hmaxu16_)(
                                        _mm256_xor_si256(kmin, _mm256_set1_epi16(0x7FFF))) ^
                                    0x7FFF);
        return (uint16_t)(0x8000 | -k);
    }
    return (uint16_t)(NS_FN(ns_avx2_hmaxu16_)(_mm256_xor_si256(kmax, _mm256_set1_epi16((short)0x8000))) ^
                      0x8000);
}
/* The smallest bits among a whole page's NaNs, nanc of them and all of one
 * sign (neg: -NaN), from the mode-0 accumulators where each NaN had a lane
 * of its own: the lanes holding a NaN's key (above +inf's in kmax, below
 * -inf's in kmin: null lanes hold the reference row, a value) are then as
 * many as the NaNs, and hold their keys; 0 where they are fewer (NaNs that
 * shared a lane: the lean NaN pass decides).  A page's accumulators only:
 * a page put together from stretches holds broadcast extremes
 * (NS_AFTER_PM16).  Two NaNs share one of the 16 lanes one time in 16, so
 * most pages whose few NaNs have one sign (one page in ten at 0.1% NaN of
 * both signs) no longer go over their rows again.  AMD Zen 4, pages of
 * 1,000 rows with a bitmap, the kernel alone (both builds in one process):
 * in L3 0.3% NaN 82.1 -> 73.8 us, 0.1% 76.3 -> 73.3 (no NaN 70.7); at 1e8
 * values 0.1% 9.23-9.26 -> 8.87-8.93 ms, 1% 7.73-7.76 -> 7.68-7.71. */
NS_TARGET static inline uint16_t NS_FN(ns_avx2_nanlanes16_)(__m256i kmin, __m256i kmax,
                                                           int64_t neg, int64_t nanc)
{
    /* -NaN mirrored onto +NaN: the keys negated (-0x7FFF and the sentinel
     * INT16_MAX both negate in range) put the -NaNs above +inf's key, the
     * one nearest zero least, as the +NaNs are in kmax. */
    const __m256i k = neg ? _mm256_sub_epi16(_mm256_setzero_si256(), kmin) : kmax;
    const __m256i m = _mm256_cmpgt_epi16(k, _mm256_set1_epi16(0x7C00));
    if (__builtin_popcount((uint32_t)_mm256_movemask_epi8(m)) != 2 * nanc)
        return 0;
    /* The least key (the NaN's magnitude), through x ^ 0x7FFF. */
    const __m256i x = _mm256_blendv_epi8(_mm256_set1_epi16(INT16_MAX), k, m);
    const uint16_t least = (uint16_t)(NS_FN(ns_avx2_hmaxu16_)(
                                          _mm256_xor_si256(x, _mm256_set1_epi16(0x7FFF))) ^
                                      0x7FFF);
    return neg ? (uint16_t)(0x8000 | least) : least;
}
/* Non-NaN lanes with the sign set and clear, from the counts (lanes that
 * hold the reference row in place of a null change neither), or where the
 * loop did not count the sign bits (negc -1: mode 0's page loop, see
 * ns_lean16_m0_) from NS_ZSIGNS16, a pass over the page's rows. */
#define NS_NEGNUM16 (negc >= 0 ? negc - negnan > 0 : (NS_ZSIGNS16() & 1) != 0)
#define NS_POSNUM16                                                           \
    (negc >= 0 ? lanes - negc - (nanc - negnan) > 0 : (NS_ZSIGNS16() & 2) != 0)
#define NS_ZSIGNS16() 0
/* After a stretch of len rows at crow (validity bits at bb) run in mode 0,
 * the page's NaN counts before it nanc0 and negnan0: while the page's NaNs
 * so far have one sign (mode 0 does not find their other end), their
 * smallest bits into nanlo, from the lean NaN pass over the stretch, or
 * where the page has one NaN so far from the accumulators (a NaN alone is
 * its own other end; WHOLE, the stretch is the page: NS_FINISH takes it
 * from the page's keys); and the NaNs' signs for the next stretch's mode
 * (wmode: 1 where they were all +NaN, 2 all -NaN, else 0).  One rule for
 * both float16 drivers.  With few NaNs of both signs most NaN-holding
 * pages of 1,000 rows hold one (0.1% NaN: 58% of them), which the lean
 * pass went over whole. */
#define NS_AFTER_STRETCH16(crow, len, bb, nanc0, negnan0, WHOLE)              \
    do {                                                                      \
        if (nanc > (nanc0)) {                                                 \
            if ((negnan == 0 || negnan == nanc) && !((WHOLE) && nanc == 1)) { \
                uint16_t lo_ = nanc == 1 ? NS_FN(ns_avx2_onenan16_)(kmin, kmax, negnan) \
                               : (WHOLE) && nanc <= LANES                     \
                                   ? NS_FN(ns_avx2_nanlanes16_)(kmin, kmax, negnan, nanc) \
                                   : 0;                                       \
                if (!lo_)                                                     \
                    lo_ = NS_FN(ns_avx2_nanlo16_)((crow), (len), (bb));       \
                nanlo = lo_ < nanlo ? lo_ : nanlo;                            \
            }                                                                 \
            const int64_t cneg_ = negnan - (negnan0);                         \
            wmode = cneg_ == 0 ? 1 : cneg_ == nanc - (nanc0) ? 2 : 0;         \
        }                                                                     \
    } while (0)
/* After a stretch run in a one-sign mode (MODE) with the page's
 * accumulators o0-o3 (vmin, vmax, kmin, kmax) put aside: its extremes
 * (NS_DECODE_PM16) into them, as mode 0 keeps them, its NaNs' other end
 * into nanlo where they have one sign, their signs into wmode. */
#define NS_AFTER_PM16(crow, len, bb, nanc0, negnan0, MODE, o0, o1, o2, o3)    \
    do {                                                                      \
        const int64_t cnan_ = nanc - (nanc0), cneg_ = negnan - (negnan0);     \
        __m128i p16_;                                                         \
        NS_DECODE_PM16(p16_, MODE, crow, len, bb, cnan_, cneg_);              \
        const int vlo_ = (int16_t)_mm_extract_epi16(p16_, 0);                 \
        const int vhi_ = (int16_t)_mm_extract_epi16(p16_, 1);                 \
        int klo_ = vlo_, khi_ = vhi_;                                         \
        if (cnan_ > 0) {                                                      \
            const int nlo_ = (int16_t)_mm_extract_epi16(p16_, 2);             \
            const int nhi_ = (int16_t)_mm_extract_epi16(p16_, 3);             \
            klo_ = nlo_ < klo_ ? nlo_ : klo_;                                 \
            khi_ = nhi_ > khi_ ? nhi_ : khi_;                                 \
            if (cneg_ == 0 || cneg_ == cnan_) {                               \
                /* The smallest bits: +NaN's least key, -NaN's largest. */    \
                const int e_ = cneg_ == 0 ? nlo_ : nhi_;                      \
                const uint16_t b_ = (uint16_t)(e_ >= 0 ? e_ : 0x8000 | -e_);  \
                nanlo = b_ < nanlo ? b_ : nanlo;                              \
            }                                                                 \
            wmode = cneg_ == 0 ? 1 : cneg_ == cnan_ ? 2 : 0;                  \
        }                                                                     \
        vmin = _mm256_min_epi16((o0), _mm256_set1_epi16((short)vlo_));        \
        vmax = _mm256_max_epi16((o1), _mm256_set1_epi16((short)vhi_));        \
        kmin = _mm256_min_epi16((o2), _mm256_set1_epi16((short)klo_));        \
        kmax = _mm256_max_epi16((o3), _mm256_set1_epi16((short)khi_));        \
    } while (0)

/* The NaNs in a row of one sign (over pages, as the page loop below counts
 * them) after which it runs its pages in that sign's mode (NS_STEP).  A
 * page in a one-sign mode that holds a NaN of the other sign goes over its
 * rows again for the value extremes the NaN hid, and a page in mode 0
 * whose two or more NaNs have one sign does for their other end, so the
 * mode follows the NaNs only while they keep to one sign: at 1% NaN of one
 * sign pages of 1,000 rows enter the mode after two pages, as with the
 * rule before (two pages whose NaNs had the sign); with few NaNs of both
 * signs, where that rule moved one page in 20 or so to a one-sign mode and
 * most of those then went over their rows again, they stay in mode 0.
 * Zen 4, AVX2, pages of 1,000 rows, 10% nulls in a bitmap, in L2, ns a
 * page: 0.1% NaN of both signs 87.4 -> 76.0 (this and the single NaN of
 * NS_AFTER_STRETCH16 together: 96.3 -> 76.0), 1% of both 73.1 -> 72.9,
 * +NaN only 69.9 -> 70.6. */
#define NS_SIGN_RUN16 16
/* The page loop's mode for the next page from the NaNs' signs so far
 * (wmode) and the NaNs in a row of that sign (nrun). */
#define NS_LMODE16(wmode, nrun) ((nrun) >= NS_SIGN_RUN16 ? (wmode) : 0)
/* After a page whose nanc NaNs gave wmode (the sign before it wprev): the
 * run of one sign and the next page's mode. */
#define NS_NEXT_RUN16(wprev)                                                  \
    do {                                                                      \
        nrun = wmode == 0 ? 0 : wmode == (wprev) ? nrun + nanc : nanc;        \
        lmode = NS_LMODE16(wmode, nrun);                                      \
    } while (0)
/* The lanes a page goes through in the page loops below: one vector for
 * its head (its rows up to a byte, NS_LEAN16_OPEN), its full pairs' rows,
 * then one vector or a pair for the rest of its rows. */
#define NS_LANES16(head, full, rest)                                          \
    (((head) ? LANES : 0) + (full) + ((rest) > LANES ? 2 * LANES : (rest) ? LANES : 0))

/* The longest page the page loop below takes (float16 rows).  Pages written
 * by row count (parquet-java's and Arrow's 20,000 rows) then run without the
 * general driver's chunks of NS_CHUNK rows; a page whose NaNs break its
 * one-sign mode gets its values pass over at most 128 KB, from L2. */
#define NS_LEAN16_ROWS 65536

/* Pages ending at or before this row can be read by the page loops below
 * with the last vectors on past them and their bitmap words from 8 bytes
 * at their first bit: n - 32 rows, (nbytes - 8) bytes of bits. */
NS_TARGET static inline int64_t NS_FN(ns_lean16_lim_)(int64_t n, const int kind,
                                                     int64_t validity_nbytes, int64_t bit_offset)
{
    const int64_t lim = n - 2 * LANES;
    return kind == NS_VALIDITY_BITMAP && 8 * (validity_nbytes - 8) - bit_offset < lim
               ? 8 * (validity_nbytes - 8) - bit_offset
               : lim;
}

/* Whether the page loops below can take a page of rows start to stop by
 * its length and place: 32 to NS_LEAN16_ROWS rows (rows - 32 >
 * NS_LEAN16_ROWS - 32 unsigned otherwise), ending at or before lim. */
#define NS_LEAN16_FITS(start, stop, lim)                                      \
    ((uint64_t)((stop) - (start) - 2 * LANES) <=                              \
         (uint64_t)(NS_LEAN16_ROWS - 2 * LANES) &&                            \
     (stop) <= (lim))

/* Whether the page loop below takes page p; if so its first row, its
 * rows and its reference row (the first valid row, which must not be a
 * NaN there).  flags: NS_PAGE_ANYBIT, a bitmap page inside a byte too
 * (else at a byte only); NS_PAGE_EMPTY, a page without a valid row too
 * (mode 0's loop, whose rare end reads no extreme from it; the loop for
 * every mode leaves it to the general driver). */
#define NS_PAGE_ANYBIT 1
#define NS_PAGE_EMPTY 2
NS_TARGET static inline __attribute__((always_inline)) int
NS_FN(ns_lean16_page_)(const T *d, const int kind, const uint8_t *validity, int64_t bit_offset,
                       int64_t start, int64_t stop, int64_t lim, const int flags,
                       T *refb_out)
{
    if (!NS_LEAN16_FITS(start, stop, lim))
        return 0;
    int64_t first = 0;
    if (kind == NS_VALIDITY_BITMAP) {
        const int64_t pos = bit_offset + start;
        if (!(flags & NS_PAGE_ANYBIT) && (pos & 7))
            return 0;
        /* The first valid row among the first 64 (64 - pos % 8 where the
         * page starts inside a byte; the bits past the page, the next
         * page's, cleared; bzhi reads its index's low byte only). */
        const int64_t rows = stop - start;
        const uint64_t w = NS_FN(ns_avx2_load8_)(validity + (pos >> 3));
        const uint64_t w0 =
            _bzhi_u64(flags & NS_PAGE_ANYBIT ? w >> (pos & 7) : w,
                      (unsigned)(rows < 64 ? rows : 64));
        first = (int64_t)_tzcnt_u64(w0);
        if (__builtin_expect(!w0, 0)) {
            /* Past the first word (ns_avx2_firstvalid_; from the page's
             * first row again, a cold path).  A page with no valid row
             * takes +0.0 as its row in mode 0's loop, whose end for a page
             * without values (ns_lean16_rare_) reads no extreme; the loop
             * for every mode leaves it to the general driver. */
            first = NS_FN(ns_avx2_firstvalid_)(kind, validity, ((pos + rows - 1) >> 3) + 1, pos,
                                               rows);
            if (first >= rows) {
                *refb_out = 0;
                return (flags & NS_PAGE_EMPTY) != 0;
            }
        }
    }
    const T refb = d[start + first];
    *refb_out = refb;
    return !NS_FN(ns_avx2_isnan_)(refb);
}

/* The reference row (its bits, >= 0) of page q where ns_lean16_page_
 * refuses the page only because its first valid row is a NaN (1% of the
 * pages at 1% NaN): the first valid row that is not a NaN among its first
 * NS_REF16_ROWS rows (ns_avx2_ref16_); -1 where the page is refused
 * otherwise or has no such row there.  Such a page went to the general driver and the page
 * loops were entered again after it: AMD Zen 4, float16 pages of 1,000
 * rows at 1% NaN of both signs, the kernel alone at 1e8 values (both
 * builds in one process, best of 10, three runs), 6.54-6.60 -> 6.41-6.52
 * ms without nulls and 7.99-8.02 -> 7.86-7.95 with a bitmap. */
NS_TARGET __attribute__((noinline, cold)) static int32_t
NS_FN(ns_lean16_nanref_)(const T *d, int64_t n, const int kind, const uint8_t *validity,
                         int64_t bit_offset, const int64_t *page_starts, int64_t q,
                         int64_t npages, int64_t lim)
{
    const int64_t start = page_starts[q], stop = q + 1 < npages ? page_starts[q + 1] : n;
    T first = 0; /* (set where the page passes every test before its row's) */
    if (NS_FN(ns_lean16_page_)(d, kind, validity, bit_offset, start, stop, lim, NS_PAGE_ANYBIT,
                               &first) ||
        !NS_FN(ns_avx2_isnan_)(first))
        return -1;
    const int64_t r = NS_FN(ns_avx2_ref16_)(d + start, stop - start, 0, kind, validity,
                                            bit_offset + start);
    return r < stop - start ? (int32_t)d[start + r] : -1;
}

/* Float16 pages of 32 to NS_LEAN16_ROWS rows without nulls or with an Arrow
 * bitmap: a loop of their own over a run of such pages, without the
 * general driver's chunks, byte masks, padding or reference-row search.
 * - A bitmap page that starts at a byte (pages written by row count) has
 *   its bits read in place; one that starts inside a byte (an Arrow slice,
 *   pages of a number of rows not a multiple of 8, a group's rows) has
 *   its rows up to the next byte taken in one vector first and the rest's
 *   bits read in place, by copies of the loops of their own (heads: the
 *   copies for pages at a byte, whose registers the same code moved, stop
 *   before such a page; docs/performance.rst, the thirty-third session).
 *   Until then such a page's bits were shifted into a buffer first
 *   (ns_avx2_bits_), by the loop for every mode only.  AMD Zen 3,
 *   1e6 values in L3, the kernel alone, both builds in one process, best
 *   of 150, times one summary: pages of 1,001 rows 1.56-1.57 -> 1.29,
 *   of 4,001 1.21 -> 1.12-1.13, of 20,001 1.12-1.15 -> 1.09-1.10; pages
 *   of 1,000 rows of a bitmap from bit 3, 1.42 -> 1.15-1.17 (they went to
 *   the general driver); pages at a byte unchanged (0.999-1.001).  The
 *   shift is ns_avx2_bits_'s, the general driver's copy, four words at a
 *   time in the vector unit here (vec; since the twenty-second session:
 *   pages of 4,001 rows 84.9 -> 79.4 us, of 20,001 82.2 -> 76.2).
 * - The rows after the last pair go through one more vector (or pair) read
 *   on past the page, inside the data, the lanes past the page taking the
 *   reference row (validity bits masked by the rows left).
 * - The next page's reference row is found after this page's rows.  Found
 *   before them (the ninth session's choice, to take its chain of loads off
 *   the path of the next page's first vectors), pages past the prefetch
 *   distance had its loads go to memory and the reorder buffer fill behind
 *   them: pages of 8,192 rows 1.06-1.18 times one summary at 1e8 values
 *   (0.98-1.01 found after); pages of 64 to 2,048 rows are the same either
 *   way (Zen 4, in L2 and at 1e8).
 * - A page whose first valid row is a NaN (its NaN lanes need a non-NaN
 *   row) stops the loop, which is entered again with the page's first
 *   valid non-NaN row (ns_lean16_nanref_, ns_lean16_run_); one whose first
 *   64 rows are null, that it cannot read in place, or whose first
 *   NS_REF16_ROWS rows hold no valid value is left to the general driver,
 *   which comes back here for the next one.
 * - Two pairs a step: the loop's own instructions and the count of valid
 *   rows once for the two.
 * - After NS_SIGN_RUN16 NaNs in a row of one sign, as real data's NaNs
 *   mostly have (np.nan is +NaN), pages run in that sign's mode (NS_STEP,
 *   NS_FINISH_PM16) until a page's NaNs have the other sign (pages the
 *   general driver takes between runs carry the count on only where they
 *   leave the sign as it was): no blend of NaN lanes and no lean NaN
 *   pass, where mode 0 blends and a page of NaNs of one sign needs the lean
 *   pass for their other end.  Zen 4, pages of 1,000 rows with +NaN only,
 *   in L2: 81.5 -> 69.6 ns a page with a bitmap, 61.5 -> 53.2 without
 *   nulls; at 1e8 values 92.1 -> 77.3 ns (1.22 -> 1.02 times one summary
 *   while that ran a copy with two instructions a vector more); with NaNs
 *   of both signs unchanged (71.5-72.0 and 71.6-71.7 ns in L2).
 * - A run starting in mode 0 goes through a copy of the loop for mode 0
 *   alone (ns_lean16_m0_, below) until a page sets a one-sign mode.
 * Returns the first page not done.  Against the general driver, on AMD
 * Zen 4, pages of 1,000 rows: instructions a page beyond its rows
 * (callgrind, 1e5 values) 187 -> 40 without nulls and 287 -> 129 with an
 * Arrow bitmap; in cache 68.1 -> 62.3 and 88.0 -> 81.2 ns a page; at 1e8
 * values (1% NaN of both signs, the kernel alone, both builds in one
 * process, best of 15, three runs) 1.06-1.13 -> 1.06-1.08 times one
 * summary without nulls and 1.31-1.34 -> 1.15-1.18 with a bitmap.  A
 * separate function with its own loop: inside the general driver (one
 * session's try) its registers were allocated worse than the driver's. */
/* A page's start in the page loops below (rows rows from row start): its
 * first row and validity bit; with heads (copies for a bitmap page from
 * inside a byte) its rows up to the next byte (head), taken in one vector
 * first (NS_LEAN16_LOOP), so that the rest (body, full rows in pairs and
 * then rest) reads its bits in place (bbody: NS_BODYBITS16), the page's
 * bits from its first row shifted into sbuf only for a cold pass over it
 * (NS_PAGEBITS16); its reference row's vectors, the accumulators and
 * counts, the pointers at its first rows. */
#define NS_LEAN16_OPEN()                                                      \
    const T *const row = d + start;                                           \
    const int64_t bpos = bit_offset + start;                                  \
    const int64_t head = heads && kind == NS_VALIDITY_BITMAP ? -bpos & 7 : 0; \
    const int64_t full = (rows - head) & ~(int64_t)(2 * LANES - 1);           \
    const int64_t rest = rows - head - full;                                  \
    const T *const body = row + head;                                         \
    const uint8_t *const bbody = NS_BODYBITS16();                             \
    const VT ref = NS_REF_SET1(refb);                                         \
    NS_PAGE_CONSTS(refb);                                                     \
    NS_ACC_INIT();                                                            \
    int64_t nanc = 0, negnan = 0, negc = 0, vc = 0;                           \
    const T *q = body;                                                        \
    const uint8_t *bq = bbody
/* A page's counts out (valid and nan kept for its end). */
#define NS_LEAN16_COUNTS()                                                    \
    const int64_t valid = kind == NS_VALIDITY_BITMAP ? vc : rows;             \
    const int64_t nan = nanc;                                                 \
    pc[0] = rows;                                                             \
    pc[1] = rows - valid;                                                     \
    pc[2] = nan - negnan;                                                     \
    pc[3] = negnan
/* One pair of vectors at qp, its validity bits at bqp (their valid rows
 * counted by the caller). */
#define NS_LEAN16_PAIR(qp, bqp)                                               \
    do {                                                                      \
        NS_MASK_T m0, g0, m1, g1;                                             \
        VT s0 = NS_LOAD(qp), s1 = NS_LOAD((qp) + LANES);                      \
        if (kind == NS_VALIDITY_BITMAP) {                                     \
            s0 = NS_BLEND(ref, s0, (bqp), 0);                                 \
            s1 = NS_BLEND(ref, s1, (bqp), 1);                                 \
        }                                                                     \
        NS_STEP(s0, m0, g0);                                           \
        NS_STEP(s1, m1, g1);                                           \
        NS_COUNT2(m0, g0, m1, g1);                                            \
    } while (0)
/* Two pairs a step (the loop's own instructions and the count of valid rows
 * once for the two), then a pair, then the last rows.  Without nulls each
 * line is also prefetched into L2 twice as far ahead (NS_PF_L2): the loop
 * has time to spare there (in L3 a page of 1,000 rows takes less than memory
 * gives its 2,000 bytes in) and still lost about 5 ns a page at 1e8 values,
 * the prefetches issued behind each page's end falling short of memory's
 * latency.  AMD Zen 4, the kernel alone at 1e8 values (both builds in one
 * process, best of 10), ms: pages of 1,000 rows 6.48-6.52 -> 6.16-6.21, of
 * 4,096 5.98 -> 5.55, of 20,000 5.79-5.92 -> 5.35-5.73 (one summary
 * 5.8-5.9); with +NaN only, pages of random lengths around 1,000 rows
 * 1.6-1.7% slower; in L3 2-4% slower.  With a bitmap the loop is bound by
 * its instructions on Zen 4 (pages of 1,000 rows 1.6-2.3% faster, of 4,096
 * 2.5-3.1% slower at 1e8), but not where AVX2 is the best level: AMD
 * Zen 3 (no AVX-512, 11-13 GB/s a thread), the kernel alone, both builds
 * in one process, medians of 100 paired calls, at 1e8 values pages of
 * 1,000 rows 0-3.3% faster, of 4,096 5.4%, of 20,000 1.4-4.7% (then 1.00
 * times one summary, 1.05-1.06 before), +NaN only 2.2-3.5%; at 1e7 values
 * 1.7% and 5.9%; but with the data in L3 (4e6 values) 4.6-5.5% slower and
 * in cache (1e6) 2.5-4.4%.  So with a bitmap there are copies of the
 * loops that prefetch into L2 too (far), for calls whose values take
 * ns_far16_bytes or more; a flag tested in the loop instead cost 2.7% in
 * cache.  The prefetch into L2 only, or into L2 for every
 * other line, made pages of 1,000 rows 1.5-2.8 times slower; 15 KB ahead
 * rather than 20 made pages of 65,536 rows 22% slower, 25 and 32 KB 13-17%. */
#define NS_LEAN16_LOOP(WF)                                                    \
    do {                                                                      \
        const int wf = (WF);                                                  \
        if (head) {                                                           \
            const uint32_t hb_ =                                              \
                (uint32_t)(NS_FN(ns_avx2_load8_)(validity + (bpos >> 3)) >> (bpos & 7)) & \
                ((1u << head) - 1);                                           \
            vc += __builtin_popcount(hb_);                                    \
            NS_MASK_T m0_, g0_;                                               \
            VT s0_ = FBLEND_BITS(ref, NS_LOAD(row), hb_);                     \
            NS_STEP(s0_, m0_, g0_);                                           \
            NS_COUNT(m0_, g0_);                                               \
        }                                                                     \
        for (; q + 4 * LANES <= body + full; q += 4 * LANES) {                \
            NS_PF((const char *)q);                                           \
            NS_PF((const char *)(q + 2 * LANES));                             \
            if (kind == NS_VALIDITY_NONE || far) {                            \
                NS_PF_L2((const char *)q);                                    \
                NS_PF_L2((const char *)(q + 2 * LANES));                      \
            }                                                                 \
            if (kind == NS_VALIDITY_BITMAP)                                   \
                vc += __builtin_popcountll(NS_FN(ns_avx2_load8_)(bq));        \
            NS_LEAN16_PAIR(q, bq);                                            \
            NS_LEAN16_PAIR(q + 2 * LANES, bq + 4);                            \
            if (kind == NS_VALIDITY_BITMAP)                                   \
                bq += 8;                                                      \
            NS_KEEP16();                                                    \
        }                                                                     \
        if (q < body + full) {                                                \
            NS_PF((const char *)q);                                           \
            if (kind == NS_VALIDITY_NONE || far)                              \
                NS_PF_L2((const char *)q);                                    \
            if (kind == NS_VALIDITY_BITMAP) {                                 \
                uint32_t vw_;                                                 \
                memcpy(&vw_, bq, sizeof vw_);                                 \
                vc += __builtin_popcount(vw_);                                \
            }                                                                 \
            NS_LEAN16_PAIR(q, bq);                                            \
            q += 2 * LANES;                                                   \
            if (kind == NS_VALIDITY_BITMAP)                                   \
                bq += 4;                                                      \
        }                                                                     \
        if (rest) {                                                           \
            uint32_t vw_ = (uint32_t)(((uint64_t)1 << rest) - 1);             \
            if (kind == NS_VALIDITY_BITMAP) {                                 \
                uint32_t b_;                                                  \
                memcpy(&b_, bq, sizeof b_);                                   \
                vw_ &= b_;                                                    \
                vc += __builtin_popcount(vw_);                                \
            }                                                                 \
            NS_MASK_T m0, g0;                                                 \
            VT s0 = FBLEND_BITS(ref, NS_LOAD(q), vw_);                        \
            NS_STEP(s0, m0, g0);                                       \
            if (rest > LANES) {                                               \
                NS_MASK_T m1, g1;                                             \
                VT s1 = FBLEND_BITS(ref, NS_LOAD(q + LANES), vw_ >> 16);      \
                NS_STEP(s1, m1, g1);                                   \
                NS_COUNT2(m0, g0, m1, g1);                                    \
            } else {                                                          \
                NS_COUNT(m0, g0);                                             \
            }                                                                 \
        }                                                                     \
    } while (0)
/* The end of a page run in mode 0 that is not the common page (no values,
 * or two or more NaNs of one sign): the lean NaN pass where the NaNs need
 * one, the keys, and the NaNs' signs and run for the next page.  Sets
 * wmode, nrun, lmode. */
#define NS_END_RARE16(pk, valid, nan)                                         \
    do {                                                                      \
        const int wprev_ = wmode;                                             \
        uint16_t nanlo = 0xFFFF;                                              \
        NS_AFTER_STRETCH16(row, rows, bb, 0, 0, 1);                           \
        if (__builtin_expect(!((valid) - (nan) > 0 && negnan > 0 && (nan) - negnan > 0), 0)) { \
            (pk)[0] = INT64_MAX;                                              \
            (pk)[1] = INT64_MIN;                                              \
            (pk)[2] = INT64_MAX;                                              \
            (pk)[3] = INT64_MIN;                                              \
        }                                                                     \
        NS_FINISH(pk, (valid) - (nan), nan);                                  \
        if (nanc > 0) {                                                       \
            NS_NEXT_RUN16(wprev_);                                            \
        }                                                                     \
    } while (0)

/* Whether a page run in mode 0 is the common page: with values, and with
 * no NaN, one NaN or NaNs of both signs (nothing of NS_AFTER_STRETCH16
 * applies: no lean NaN pass). */
#define NS_COMMON16(valid, nan)                                               \
    ((valid) - (nan) > 0 && ((nan) <= 1 || (negnan > 0 && (nan) - negnan > 0)))
/* The common page's end: its four keys in one store, the NaN keys' places
 * set apart where it has no NaN; a NaN alone is both NaN extremes (the
 * largest key for a +NaN, the smallest for a -NaN) and counts on the run
 * of its sign (with few NaNs most pages that hold any hold one); NaNs of
 * both signs leave mode 0 and end the run.  Sets wmode, nrun, lmode. */
#define NS_END_COMMON16(pk, valid, nan)                                       \
    do {                                                                      \
        const __m128i k16_ = NS_KEYS16();                                     \
        const __m256i k64_ = _mm256_cvtepi16_epi64(k16_);                     \
        _mm256_storeu_si256((__m256i *)(pk), k64_);                           \
        if ((nan) == 0) {                                                     \
            (pk)[2] = INT64_MAX;                                              \
            (pk)[3] = INT64_MIN;                                              \
        } else if ((nan) == 1) {                                              \
            const int sign_ = negnan ? 2 : 1;                                 \
            (pk)[2] = (pk)[3] = negnan ? _mm256_extract_epi64(k64_, 2)        \
                                       : _mm256_extract_epi64(k64_, 3);       \
            nrun = sign_ == wmode ? nrun + 1 : 1;                             \
            wmode = sign_;                                                    \
            lmode = NS_LMODE16(wmode, nrun);                                  \
        } else {                                                              \
            wmode = 0;                                                        \
            nrun = 0;                                                         \
            lmode = 0;                                                        \
        }                                                                     \
        NS_ZEROFIX16(pk, (valid) - (nan), k16_);                              \
    } while (0)
/* When mode 0's page loop runs in mode 3 (NS_STEP: mode 0 and the NaN
 * lanes' least bits, w5), whose pages with values all end as the common
 * page: where the pages' costly ends (a rare end in mode 0, a one-sign
 * mode broken by the other sign) cost more than mode 3's two instructions
 * a vector would.  Their cost is estimated in rows of mode 3's extra work
 * (NS_RARE16_COST, NS_BREAK16_COST: a page's mispredicted end and moves
 * between the loops, and its second pass over the rows) and summed over
 * the pages since hot[1] (a row) into hot[0]; once the sum reaches
 * NS_HOT16_SUM it is compared with the rows since, and where it is the
 * greater the next NS_FIVE16_ROWS rows' pages run in mode 3 (hot[2]: the
 * rows left).  Few NaNs of both signs (most pages with NaNs of both) or
 * of one sign (the one-sign mode unbroken) stay as they are; NaNs mostly
 * of one sign with a few of the other go to mode 3. */
#define NS_RARE16_COST(rows) (1024 + 2 * (rows))
#define NS_BREAK16_COST(rows) (16384 + 4 * (rows))
#define NS_HOT16_SUM 262144
#define NS_FIVE16_ROWS 1048576
NS_TARGET static inline int NS_FN(ns_hot16_)(int64_t *hot, int64_t row, int64_t cost)
{
    if ((hot[0] += cost) >= NS_HOT16_SUM) {
        if (row - hot[1] <= hot[0])
            hot[2] = NS_FIVE16_ROWS;
        hot[0] = 0;
        hot[1] = row;
    }
    return hot[2] > 0;
}
/* The end of a page with values run in mode 3: the four keys in one store,
 * the NaN extremes from kmin and kmax where the page has NaNs of that sign,
 * from w5 (the NaNs' least bits) where all its NaNs have the other sign;
 * no branch on the counts. */
#define NS_END_FIVE16(pk, valid, nan)                                         \
    do {                                                                      \
        const __m128i k16_ = NS_KEYS16();                                     \
        const __m256i k64_ = _mm256_cvtepi16_epi64(k16_);                     \
        _mm256_storeu_si256((__m256i *)(pk), k64_);                           \
        const int64_t lo_ = NS_KEY16((uint16_t)~NS_FN(ns_avx2_hmaxu16_)(w5)); \
        const int64_t n2_ = _mm256_extract_epi64(k64_, 2);                    \
        const int64_t n3_ = _mm256_extract_epi64(k64_, 3);                    \
        (pk)[2] = (nan) == 0 ? INT64_MAX : negnan == 0 ? lo_ : n2_;           \
        (pk)[3] = (nan) == 0 ? INT64_MIN : negnan == (nan) ? lo_ : n3_;       \
        NS_ZEROFIX16(pk, (valid) - (nan), k16_);                              \
    } while (0)
/* The bits of a page's rows after its head (bbody, which the loop reads),
 * in place: a page inside a byte starts with its rows up to the next byte
 * in one vector (NS_LEAN16_LOOP) in the copies with heads, and the copies
 * without take no such page (ns_lean16_page_ without NS_PAGE_ANYBIT). */
#define NS_BODYBITS16()                                                       \
    (kind != NS_VALIDITY_BITMAP ? (const uint8_t *)NULL : validity + ((bpos + head) >> 3))
/* The bits of the page from its first row (row 0 of bb's page, for a cold
 * pass over it): in place at a byte, else shifted into sbuf. */
#define NS_PAGEBITS16()                                                       \
    (head ? NS_FN(ns_avx2_bits_)(kind, validity, validity_nbytes, bpos, rows, sbuf, &unused, 1) \
          : bbody)
/* A one-sign mode broken (NS_DECODE_PM16): in the page loop below, a
 * costly page (ns_hot16_); in the general driver's chunks, nothing. */
#undef NS_ON_BREAK16
#define NS_ON_BREAK16() (more &= !NS_FN(ns_hot16_)(hot, start, NS_BREAK16_COST(rows)))
/* In the loop below a cold pass takes the page's bits from its first row. */
#define bb NS_PAGEBITS16()
NS_TARGET static inline __attribute__((always_inline)) int64_t
NS_FN(ns_lean16_)(const T *d, int64_t n, const int kind, const uint8_t *validity,
                  int64_t validity_nbytes, int64_t bit_offset, const int64_t *page_starts,
                  int64_t p, int64_t npages,
                  int64_t lim, int64_t *counts, int64_t *keys, int *wmode_io,
                  int64_t *nrun_io, int32_t ref_in, const int heads, const int far,
                  int64_t *hot)
{
    NS_CONSTS;
    NS_MASK_CONSTS;
    uint64_t sbuf[NS_LEAN16_ROWS / 64 + 2]; /* the bits of a page not at a byte */
    int64_t unused = 0; /* (the loop counts a bitmap's valid rows itself) */
    /* The NaNs' signs so far (as NS_AFTER_STRETCH16 keeps them: 0, or the
     * one sign, 1 + and 2 -) and the loop's mode for the next page. */
    int wmode = *wmode_io;
    int64_t nrun = *nrun_io;
    int lmode = NS_LMODE16(wmode, nrun);
    const int64_t *ps = page_starts + p, *const plast = page_starts + npages - 1;
    int64_t start = ps[0], stop = ps < plast ? ps[1] : n;
    T refb = (T)ref_in;
    if (ref_in < 0 &&
        !NS_FN(ns_lean16_page_)(d, kind, validity, bit_offset, start, stop, lim,
                                heads ? NS_PAGE_ANYBIT : 0, &refb))
        return p;
    int64_t *pc = counts + 4 * p, *pk = keys + 4 * p;
    for (;;) {
        const int64_t rows = stop - start;
        const int64_t stop1 = ps + 1 < plast ? ps[2] : n;
        NS_LEAN16_OPEN();
        const int ran = lmode;
        if (lmode == 0)
            NS_LEAN16_LOOP(0);
        else if (lmode == 1)
            NS_LEAN16_LOOP(1);
        else
            NS_LEAN16_LOOP(2);
        T refb1 = 0;
        int more = ps < plast && NS_FN(ns_lean16_page_)(d, kind, validity, bit_offset, stop,
                                                       stop1, lim, heads ? NS_PAGE_ANYBIT : 0,
                                                       &refb1);
        const int64_t lanes = NS_LANES16(head, full, rest);
        NS_LEAN16_COUNTS();
        /* The common page first, one test (Zen 3, pages of 1,000 rows in
         * L3, the kernel alone, both builds in one process, best of 300:
         * 88.7 -> 86.5 us a million rows with 1% NaN of both signs and a
         * bitmap, 86.2 -> 84.0 without NaN, 69.0 -> 67.7 without nulls). */
        if (__builtin_expect(ran == 0 && NS_COMMON16(valid, nan), 1)) {
            NS_END_COMMON16(pk, valid, nan);
        } else if (ran == 0) {
            NS_END_RARE16(pk, valid, nan);
            more &= !NS_FN(ns_hot16_)(hot, start, NS_RARE16_COST(rows));
        } else {
            const int wprev = wmode;
            if (nanc > 0)
                wmode = negnan == 0 ? 1 : negnan == nanc ? 2 : 0;
            NS_FINISH_PM16(pk, valid - nan, nan, ran);
            /* The next page's mode: a one-sign mode once NS_SIGN_RUN16 NaNs
             * in a row (over this page and those before it) had that sign. */
            if (nanc > 0) {
                NS_NEXT_RUN16(wprev);
            }
        }
        ps++;
        pc += 4;
        pk += 4;
        if (!more) /* (or mode 3 is due: mode 0's loop's, ns_lean16_m0_) */
            break;
        start = stop;
        stop = stop1;
        refb = refb1;
    }
    *wmode_io = wmode;
    *nrun_io = nrun;
    return ps - page_starts;
}
#undef bb
#undef NS_ON_BREAK16
#define NS_ON_BREAK16() ((void)0)
/* One copy a kind, and for a bitmap copies with heads (pages inside a byte)
 * and far (data from memory: a second prefetch, NS_LEAN16_LOOP), each a
 * function of its own. */
#define NS_LEAN16_ALL_KIND(name, KIND, HEADS, FAR)                            \
    NS_TARGET __attribute__((noinline)) static int64_t NS_FN(name)(           \
        const T *d, int64_t n, const uint8_t *validity, int64_t validity_nbytes, \
        int64_t bit_offset, const int64_t *page_starts, int64_t p, int64_t npages, \
        int64_t lim, int64_t *counts, int64_t *keys, int *wmode_io, int64_t *nrun_io, \
        int32_t ref_in, int64_t *hot)                                         \
    {                                                                         \
        return NS_FN(ns_lean16_)(d, n, (KIND), validity, validity_nbytes, bit_offset, \
                                 page_starts, p, npages, lim, counts, keys, wmode_io, \
                                 nrun_io, ref_in, (HEADS), (FAR), hot);       \
    }
NS_LEAN16_ALL_KIND(ns_lean16_all_none_, NS_VALIDITY_NONE, 0, 0)
NS_LEAN16_ALL_KIND(ns_lean16_all_bitmap_, NS_VALIDITY_BITMAP, 0, 0)
NS_LEAN16_ALL_KIND(ns_lean16_allh_bitmap_, NS_VALIDITY_BITMAP, 1, 0)
NS_LEAN16_ALL_KIND(ns_lean16_allf_bitmap_, NS_VALIDITY_BITMAP, 0, 1)
NS_LEAN16_ALL_KIND(ns_lean16_allhf_bitmap_, NS_VALIDITY_BITMAP, 1, 1)
#undef NS_LEAN16_ALL_KIND
/* The signs of a page's zero extreme where its loop did not count the
 * sign bits (negc -1): one pass over its rows (row, rows, bb), kept in zs_
 * (-1 until then) for the other extreme and for the caller. */
#undef NS_ZSIGNS16
#define NS_ZSIGNS16() (zs_ >= 0 ? zs_ : (zs_ = NS_FN(ns_avx2_zsigns16_)(row, rows, bb)))
/* NS_END_RARE16 out of ns_lean16_m0_'s loop, which then holds fewer values
 * across its rows (in the loop for every mode, ns_lean16_, the same call moved
 * its one-sign loops' registers: +NaN only without nulls 3.6% slower in
 * L3).  negc -1 where the loop did not count the sign bits; *zs_io set
 * where the page then needed NS_ZSIGNS16's pass.  Returns the next page's
 * mode. */
NS_TARGET __attribute__((noinline, cold)) static int
NS_FN(ns_lean16_rare_)(__m256i vmin, __m256i vmax, __m256i kmin, __m256i kmax, const T *row,
                       int64_t rows, const uint8_t *bb, int64_t nanc, int64_t negnan,
                       int64_t negc, int64_t valid, int64_t lanes, int64_t *pk,
                       int *wmode_io, int64_t *nrun_io, int *zs_io)
{
    int wmode = *wmode_io, lmode = 0, zs_ = -1;
    int64_t nrun = *nrun_io;
    const int64_t nan = nanc;
    NS_END_RARE16(pk, valid, nan);
    *wmode_io = wmode;
    *nrun_io = nrun;
    if (zs_ >= 0)
        *zs_io = 1;
    return lmode;
}
/* Mode 0's page loop of its own (lmode 0 on entry), where runs of pages
 * start and where data with NaNs of both signs, or none, stay: the common
 * page (NS_COMMON16) ends in place, the others in ns_lean16_rare_.  Stops
 * after a page whose end sets a one-sign mode, or before a page it cannot
 * take; returns the first page not done.  Without the one-sign loops and
 * the rare ends beside it, gcc 12 holds the page's state in registers
 * across the rows.  Zen 3, AVX2, 1e6 values in L3, the kernel alone (both
 * builds in one process, best of 300), against ns_lean16_ for every page:
 * - with a bitmap, pages of 1,000 rows: 279 -> 238 instructions a page
 *   besides its rows (callgrind); 1% NaN of both signs 87.5 -> 85.4 us,
 *   0.1% 99.0 -> 95.1 (a NaN alone now ends in place too);
 * - without nulls, pages of 1,000 rows 68.8 -> 66.0 us (0.1% NaN 82.1 ->
 *   77.8), pages of 20,000 57.1 -> 54.8;
 * - +NaN only (the one-sign loop after the first page) and one summary
 *   unchanged.
 * Without cneg (the copy with a bitmap until a page of the call has a
 * zero extreme) the loop does not count the rows' sign bits (negc), which
 * only the sign of a zero extreme needs: such a page takes it from a pass
 * over its rows (NS_ZSIGNS16), sets *zs_io and ends the loop, and the
 * call's pages go on in the copy that counts (data whose pages have zero
 * extremes, such as counts or ReLU outputs, pay that page's pass once a
 * call).  AMD Zen 4, float16 with a bitmap, 1% NaN of both signs, the
 * kernel alone (both builds in one process): pages of 1,000 rows in L3
 * 74.0 -> 72.7 us a million rows, at 1e8 values 8.01 and 7.84 -> 7.82 and
 * 7.71 ms, pages of 4,096 to 65,536 rows about 1% faster; one summary
 * unchanged.  Without nulls the count stays: there the loop waits on
 * memory at 1e8 values, and without it pages of 20,000 and 65,536 rows
 * ran 6-9% slower (6.38 against 5.88 ms, 6.32 against 5.81).
 * With five (the copies ns_lean16_m3_*) the loop runs in mode 3 for the
 * rows hot[2] gives it (ns_hot16_), every page with values ending as the
 * common page (NS_END_FIVE16), and stops when they are done. */
#undef NS_ZSIGNS16
#define NS_ZSIGNS16()                                                         \
    (zs_ >= 0 ? zs_ : (zs_ = NS_FN(ns_avx2_zsigns16_)(row, rows, NS_PAGEBITS16())))
NS_TARGET static inline __attribute__((always_inline)) int64_t
NS_FN(ns_lean16_m0_)(const T *d, int64_t n, const int kind, const uint8_t *validity,
                     int64_t validity_nbytes, int64_t bit_offset, const int64_t *page_starts,
                     int64_t p, int64_t npages,
                     int64_t lim, int64_t *counts, int64_t *keys, int *wmode_io,
                     int64_t *nrun_io, int32_t ref_in, const int cneg, int *zs_io,
                     const int five, const int heads, const int far, int64_t *hot)
{
    NS_CONSTS;
    NS_MASK_CONSTS;
    uint64_t sbuf[NS_LEAN16_ROWS / 64 + 2]; /* the bits of a page not at a byte */
    int64_t unused = 0; /* (the loop counts a bitmap's valid rows itself) */
    const int64_t *ps = page_starts + p, *const plast = page_starts + npages - 1;
    int64_t start = ps[0], stop = ps < plast ? ps[1] : n;
    T refb = (T)ref_in;
    if (ref_in < 0 &&
        !NS_FN(ns_lean16_page_)(d, kind, validity, bit_offset, start, stop, lim,
                                NS_PAGE_EMPTY | (heads ? NS_PAGE_ANYBIT : 0), &refb))
        return p;
    int64_t *pc = counts + 4 * p, *pk = keys + 4 * p;
    int wmode = *wmode_io;
    int64_t nrun = *nrun_io;
    for (;;) {
        const int64_t rows = stop - start;
        NS_LEAN16_OPEN();
        NS_LEAN16_LOOP(five ? 3 : 0);
        const int64_t stop1 = ps + 1 < plast ? ps[2] : n;
        T refb1 = 0;
        int more = ps < plast && NS_FN(ns_lean16_page_)(d, kind, validity, bit_offset, stop,
                                                       stop1, lim,
                                                       NS_PAGE_EMPTY | (heads ? NS_PAGE_ANYBIT : 0),
                                                       &refb1);
        NS_LEAN16_COUNTS();
        /* zs_: the zeros' signs once NS_ZSIGNS16 has passed over the page
         * (-1 before); ns_lean16_rare_ sets *zs_io where it did. */
        int lmode = 0, zs_ = -1;
        const int64_t negc_ = cneg ? negc : -1; /* -1: not counted */
        if (five ? __builtin_expect(valid - nan > 0, 1)
                 : __builtin_expect(NS_COMMON16(valid, nan), 1)) {
            /* The lanes taken (the rows, and those past the page in the last
             * vectors), which only the zeros' signs need: computed there;
             * negc as NS_ZEROFIX16 reads it, -1 where not counted. */
#define lanes NS_LANES16(head, full, rest)
#define negc negc_
            if (five)
                NS_END_FIVE16(pk, valid, nan);
            else
                NS_END_COMMON16(pk, valid, nan);
#undef negc
#undef lanes
        } else {
            /* Copies of the mode's state in, so the loop's own stay in
             * registers. */
            int w_ = wmode;
            int64_t r_ = nrun;
            lmode = NS_FN(ns_lean16_rare_)(vmin, vmax, kmin, kmax, row, rows, NS_PAGEBITS16(),
                                           nanc, negnan, negc_, valid,
                                           NS_LANES16(head, full, rest), pk,
                                           &w_, &r_, zs_io);
            wmode = w_;
            nrun = r_;
            if (!five)
                more &= !NS_FN(ns_hot16_)(hot, start, NS_RARE16_COST(rows));
        }
        ps++;
        pc += 4;
        pk += 4;
        if (__builtin_expect(!cneg && (zs_ >= 0 || *zs_io), 0)) {
            *zs_io = 1;
            break;
        }
        if (five && (hot[2] -= rows) <= 0) {
            /* Mode 3's rows done: the sum begins again, from mode 0. */
            hot[0] = 0;
            hot[1] = stop;
            wmode = 0;
            nrun = 0;
            break;
        }
        if (!more || lmode)
            break;
        start = stop;
        stop = stop1;
        refb = refb1;
    }
    *wmode_io = wmode;
    *nrun_io = nrun;
    return ps - page_starts;
}
#undef NS_PAGEBITS16
#undef NS_ZSIGNS16
#define NS_ZSIGNS16() 0
/* One copy a kind, with and without cneg, in mode 0 and in mode 3, and for
 * a bitmap with heads (pages inside a byte) and far (data from memory: a
 * second prefetch, NS_LEAN16_LOOP), each a function of its own (allocated
 * alone). */
#define NS_LEAN16_M0_KIND(name, KIND, CNEG, FIVE, HEADS, FAR)                 \
    NS_TARGET __attribute__((noinline)) static int64_t NS_FN(name)(           \
        const T *d, int64_t n, const uint8_t *validity, int64_t validity_nbytes, \
        int64_t bit_offset, const int64_t *page_starts, int64_t p, int64_t npages, \
        int64_t lim, int64_t *counts, int64_t *keys, int *wmode_io, int64_t *nrun_io, \
        int32_t ref_in, int *zs_io, int64_t *hot)                             \
    {                                                                         \
        return NS_FN(ns_lean16_m0_)(d, n, (KIND), validity, validity_nbytes, bit_offset, \
                                    page_starts, p,                           \
                                    npages, lim, counts, keys, wmode_io, nrun_io, ref_in, \
                                    (CNEG), zs_io, (FIVE), (HEADS), (FAR), hot); \
    }
NS_LEAN16_M0_KIND(ns_lean16_m0_none_, NS_VALIDITY_NONE, 1, 0, 0, 0)
NS_LEAN16_M0_KIND(ns_lean16_m3_none_, NS_VALIDITY_NONE, 1, 1, 0, 0)
NS_LEAN16_M0_KIND(ns_lean16_m0_bitmap_, NS_VALIDITY_BITMAP, 0, 0, 0, 0)
NS_LEAN16_M0_KIND(ns_lean16_m0_bitmap_cneg_, NS_VALIDITY_BITMAP, 1, 0, 0, 0)
NS_LEAN16_M0_KIND(ns_lean16_m3_bitmap_, NS_VALIDITY_BITMAP, 0, 1, 0, 0)
NS_LEAN16_M0_KIND(ns_lean16_m3_bitmap_cneg_, NS_VALIDITY_BITMAP, 1, 1, 0, 0)
NS_LEAN16_M0_KIND(ns_lean16_m0h_bitmap_, NS_VALIDITY_BITMAP, 0, 0, 1, 0)
NS_LEAN16_M0_KIND(ns_lean16_m0h_bitmap_cneg_, NS_VALIDITY_BITMAP, 1, 0, 1, 0)
NS_LEAN16_M0_KIND(ns_lean16_m3h_bitmap_, NS_VALIDITY_BITMAP, 0, 1, 1, 0)
NS_LEAN16_M0_KIND(ns_lean16_m3h_bitmap_cneg_, NS_VALIDITY_BITMAP, 1, 1, 1, 0)
NS_LEAN16_M0_KIND(ns_lean16_m0f_bitmap_, NS_VALIDITY_BITMAP, 0, 0, 0, 1)
NS_LEAN16_M0_KIND(ns_lean16_m0f_bitmap_cneg_, NS_VALIDITY_BITMAP, 1, 0, 0, 1)
NS_LEAN16_M0_KIND(ns_lean16_m3f_bitmap_, NS_VALIDITY_BITMAP, 0, 1, 0, 1)
NS_LEAN16_M0_KIND(ns_lean16_m3f_bitmap_cneg_, NS_VALIDITY_BITMAP, 1, 1, 0, 1)
NS_LEAN16_M0_KIND(ns_lean16_m0hf_bitmap_, NS_VALIDITY_BITMAP, 0, 0, 1, 1)
NS_LEAN16_M0_KIND(ns_lean16_m0hf_bitmap_cneg_, NS_VALIDITY_BITMAP, 1, 0, 1, 1)
NS_LEAN16_M0_KIND(ns_lean16_m3hf_bitmap_, NS_VALIDITY_BITMAP, 0, 1, 1, 1)
NS_LEAN16_M0_KIND(ns_lean16_m3hf_bitmap_cneg_, NS_VALIDITY_BITMAP, 1, 1, 1, 1)
#undef NS_LEAN16_M0_KIND

#undef NS_LEAN16_LOOP
#undef NS_LEAN16_PAIR
#undef NS_LEAN16_OPEN
#undef NS_LEAN16_COUNTS
#undef NS_COMMON16
#undef NS_END_COMMON16
#undef NS_END_RARE16

/* A run of pages: mode 0's own loop (ns_lean16_m0_) for pages in mode 0,
 * the loop for every mode (ns_lean16_) for the others, each until a page
 * it does not take; a page refused only for its first valid row (a NaN)
 * goes on with a reference row found further on
 * (ns_lean16_nanref_), given to the loop as its first page's (ref_in; -1:
 * the loop finds it).  Mode 0's loop runs in mode 3 while hot (the costly
 * pages' count, ns_hot16_) gives it rows; the loop for every mode stops
 * when a page of its own sets them.  Returns the first page neither
 * takes. */
NS_TARGET static inline __attribute__((always_inline)) int64_t
NS_FN(ns_lean16_run_)(const T *d, int64_t n, const int kind, const uint8_t *validity,
                      int64_t validity_nbytes, int64_t bit_offset, const int64_t *page_starts,
                      int64_t p, int64_t npages, int64_t *counts, int64_t *keys, int *wmode_io,
                      int64_t *nrun_io, int *zs_io, int64_t *hot)
{
    const int64_t lim = NS_FN(ns_lean16_lim_)(n, kind, validity_nbytes, bit_offset);
    const int far = kind == NS_VALIDITY_BITMAP && (uint64_t)n * sizeof(T) >= ns_far16_bytes;
    int32_t ref_in = -1;
    for (;;) {
        int64_t q;
        if (NS_LMODE16(*wmode_io, *nrun_io) == 0) {
            /* The copy: mode 3 or 0; for a bitmap, with or without the
             * count of sign bits, and with heads where this page starts
             * inside a byte (the copy without stops before such a page,
             * the copy with takes pages at a byte too). */
            const int f = hot[2] > 0, h = ((bit_offset + page_starts[p]) & 7) != 0;
            static int64_t (*const m0_bitmap[2][2][2][2])(
                const T *, int64_t, const uint8_t *, int64_t, int64_t, const int64_t *, int64_t,
                int64_t, int64_t, int64_t *, int64_t *, int *, int64_t *, int32_t, int *,
                int64_t *) = { /* [far][h][f][cneg] */
                {{{NS_FN(ns_lean16_m0_bitmap_), NS_FN(ns_lean16_m0_bitmap_cneg_)},
                  {NS_FN(ns_lean16_m3_bitmap_), NS_FN(ns_lean16_m3_bitmap_cneg_)}},
                 {{NS_FN(ns_lean16_m0h_bitmap_), NS_FN(ns_lean16_m0h_bitmap_cneg_)},
                  {NS_FN(ns_lean16_m3h_bitmap_), NS_FN(ns_lean16_m3h_bitmap_cneg_)}}},
                {{{NS_FN(ns_lean16_m0f_bitmap_), NS_FN(ns_lean16_m0f_bitmap_cneg_)},
                  {NS_FN(ns_lean16_m3f_bitmap_), NS_FN(ns_lean16_m3f_bitmap_cneg_)}},
                 {{NS_FN(ns_lean16_m0hf_bitmap_), NS_FN(ns_lean16_m0hf_bitmap_cneg_)},
                  {NS_FN(ns_lean16_m3hf_bitmap_), NS_FN(ns_lean16_m3hf_bitmap_cneg_)}}}};
            q = (kind != NS_VALIDITY_BITMAP
                     ? (f ? NS_FN(ns_lean16_m3_none_) : NS_FN(ns_lean16_m0_none_))
                     : m0_bitmap[far][h][f][*zs_io != 0])(
                d, n, validity, validity_nbytes, bit_offset, page_starts, p, npages, lim, counts,
                keys, wmode_io, nrun_io, ref_in, zs_io, hot);
        } else {
            const int h = ((bit_offset + page_starts[p]) & 7) != 0;
            q = (kind != NS_VALIDITY_BITMAP ? NS_FN(ns_lean16_all_none_)
                 : far ? (h ? NS_FN(ns_lean16_allhf_bitmap_) : NS_FN(ns_lean16_allf_bitmap_))
                       : (h ? NS_FN(ns_lean16_allh_bitmap_) : NS_FN(ns_lean16_all_bitmap_)))(
                d, n, validity, validity_nbytes, bit_offset, page_starts, p, npages, lim, counts,
                keys, wmode_io, nrun_io, ref_in, hot);
        }
        if (q >= npages)
            return q;
        /* Stopped after a page that set a one-sign mode, or before a page
         * this loop does not take (the other may: the loop for every mode
         * takes no page without a valid row near its start), or before one
         * whose first valid row is a NaN. */
        if (q > p) {
            ref_in = -1;
        } else {
            /* (a loop given its first page's row takes that page) */
            const int64_t start = page_starts[q], stop = q + 1 < npages ? page_starts[q + 1] : n;
            if (ref_in >= 0 || !NS_LEAN16_FITS(start, stop, lim))
                return q;
            ref_in = NS_FN(ns_lean16_nanref_)(d, n, kind, validity, bit_offset, page_starts, q,
                                              npages, lim);
            if (ref_in < 0)
                return q;
        }
        p = q;
    }
}
/* One copy a kind, each allocated on its own. */
#define NS_LEAN16_KIND(name, KIND)                                            \
    NS_TARGET __attribute__((noinline)) static int64_t NS_FN(name)(           \
        const T *d, int64_t n, const uint8_t *validity, int64_t validity_nbytes, \
        int64_t bit_offset, const int64_t *page_starts, int64_t p, int64_t npages, \
        int64_t *counts, int64_t *keys, int *wmode_io, int64_t *nrun_io,      \
        int *zs_io, int64_t *hot)                                             \
    {                                                                         \
        return NS_FN(ns_lean16_run_)(d, n, (KIND), validity, validity_nbytes, bit_offset, \
                                     page_starts, p, npages, counts, keys, wmode_io, nrun_io, \
                                     zs_io, hot);                             \
    }
NS_LEAN16_KIND(ns_lean16_none_, NS_VALIDITY_NONE)
NS_LEAN16_KIND(ns_lean16_bitmap_, NS_VALIDITY_BITMAP)
#undef NS_LEAN16_KIND
#endif

/* The rows after the last pair: a whole vector if one is left, then the
 * last LANES rows of the span (overlapping rows already taken, which get the
 * reference row), or for a span shorter than a vector a copy padded with
 * the reference row.  VBITS: the validity of the LANES rows from row r_, a
 * bit a lane.  Every lane goes to `lanes`; those without a valid row of
 * their own count as replaced at the end of the page. */
#define NS_TAIL(base, len, j, VBITS)                                          \
    do {                                                                      \
        NS_MASK_T m0_, g0_;                                                   \
        int64_t r_ = (j);                                                     \
        if ((len) - r_ >= LANES) {                                            \
            VT s_ = NS_LOAD((base) + r_);                                     \
            s_ = FBLEND_BITS(ref, s_, (VBITS));                               \
            NS_STEP(s_, m0_, g0_);                                            \
            NS_COUNT(m0_, g0_);                                               \
            r_ += LANES;                                                      \
            lanes += LANES;                                                   \
        }                                                                     \
        if (r_ < (len)) {                                                     \
            const unsigned fresh_ = ~0u << (LANES - ((len) - r_)); /* lanes not yet taken */ \
            VT s_;                                                            \
            if ((len) >= LANES) {                                             \
                r_ = (len) - LANES;                                           \
                s_ = NS_LOAD((base) + r_);                                    \
                s_ = FBLEND_BITS(ref, s_, (VBITS) & fresh_);                  \
            } else {                                                          \
                T tail_[LANES];                                               \
                for (int k_ = 0; k_ < LANES; k_++)                            \
                    tail_[k_] = refb;                                         \
                memcpy(tail_, (base), (size_t)(len) * sizeof(T));             \
                s_ = NS_LOAD(tail_);                                          \
                r_ = 0;                                                       \
                s_ = FBLEND_BITS(ref, s_, (VBITS) & ((1u << (len)) - 1));        \
            }                                                                 \
            NS_STEP(s_, m0_, g0_);                                            \
            NS_COUNT(m0_, g0_);                                               \
            lanes += LANES;                                                   \
        }                                                                     \
    } while (0)
#define NS_ALL_LANES ((1u << LANES) - 1)

/* LANES validity bits from row r of the bits at bb. */
NS_TARGET static inline unsigned NS_FN(ns_avx2_lanebits_)(const uint8_t *bb, int64_t r)
{
    uint64_t w;
    memcpy(&w, bb + r / 8, sizeof w);
    return (unsigned)(w >> (r % 8)) & ((1u << LANES) - 1);
}

/* ---------------------------------------------------------------- the driver */

/* The length of the chunk at row c of a page of rows rows: NS_CHUNK rows,
 * the first only up to the next byte of a bitmap that starts inside one
 * (head, 0 otherwise), so that the chunks after it read their bits in
 * place rather than shifted into bits[] (an Arrow slice from any row).
 * AMD Zen 4, float16, one summary of 1e6 values with a bitmap from bit 3,
 * the kernel alone: 74.0-79.1 -> 65 us, as from bit 0 (64.5-65.2). */
#define NS_CHUNK_LEN(c, rows)                                                 \
    ((c) == 0 && head_ ? (head_ < (rows) ? head_ : (rows))                    \
                       : ((rows) - (c) < NS_CHUNK ? (rows) - (c) : NS_CHUNK))
/* The driver for one kind of validity (copies per kind: scan_kinds.h). */
NS_TARGET static inline __attribute__((always_inline)) void
NS_FN(ns_scan_kind_)(const void *data, int64_t n, const int kind, const uint8_t *validity,
                     int64_t validity_nbytes, int64_t bit_offset, const int64_t *page_starts,
                     int64_t npages, int64_t *counts, int64_t *keys)
{
    const T *d = (const T *)data;
    NS_CONSTS;
    NS_MASK_CONSTS;
    uint64_t bits[NS_CHUNK / 64 + 1];
#if NS_W == 16
    int wmode = 0; /* the NaNs' signs: the chunks' mode (see below) */
    int64_t nrun = 0; /* NaNs in a row of that sign, as the page loop counts them */
    int wrun = 0;     /* the sign that count is of */
    int zs16 = 0;     /* a page had a zero extreme: ns_lean16_m0_ counts sign bits */
    int64_t hot16[3] = {0, 0, 0}; /* the page loops' costly pages (ns_hot16_) */
#endif
    for (int64_t p = 0; p < npages; p++) {
#if NS_W == 16
        if (kind == NS_VALIDITY_NONE || kind == NS_VALIDITY_BITMAP) {
            if (wmode != wrun) /* pages here since gave the NaNs another sign */
                nrun = 0;
            p = kind == NS_VALIDITY_NONE
                    ? NS_FN(ns_lean16_none_)(d, n, validity, validity_nbytes, bit_offset,
                                             page_starts, p, npages, counts, keys, &wmode,
                                             &nrun, &zs16, hot16)
                    : NS_FN(ns_lean16_bitmap_)(d, n, validity, validity_nbytes, bit_offset,
                                               page_starts, p, npages, counts, keys, &wmode,
                                               &nrun, &zs16, hot16);
            wrun = wmode;
            if (p >= npages)
                break;
        }
#endif
        const int64_t start = page_starts[p];
        const int64_t stop = p + 1 < npages ? page_starts[p + 1] : n;
        const int64_t rows = stop - start;
        const T *row = d + start;
        /* The reference row: the page's first valid row, or for float16 its
         * first valid non-NaN row when there is one (it stands in for the
         * NaN lanes of the value extremes). */
        const int64_t vpos = kind == NS_VALIDITY_BITMAP ? bit_offset + start : start;
        const int64_t head_ = kind == NS_VALIDITY_BITMAP ? -vpos & 7 : 0;
#define NS_VALID_ROW(r) NS_FN(ns_avx2_valid_)(kind, validity, vpos, (r))
        int64_t first = NS_FN(ns_avx2_firstvalid_)(kind, validity, validity_nbytes, vpos, rows);
#if NS_W == 16
        /* A page with values past the rows looked through has its value
         * extremes from a pass over them below (ns_avx2_valuekeys16_). */
        if (first < rows && NS_FN(ns_avx2_isnan_)(row[first])) {
            const int64_t r_ = NS_FN(ns_avx2_ref16_)(row, rows, first + 1, kind, validity, vpos);
            first = r_ < rows ? r_ : first;
        }
#endif
        int64_t *pk = keys + 4 * p;
        pk[0] = INT64_MAX;
        pk[1] = INT64_MIN;
        pk[2] = INT64_MAX;
        pk[3] = INT64_MIN;
        counts[4 * p + 0] = rows;
        if (first >= rows) { /* every row null, or no rows */
            counts[4 * p + 1] = rows;
            counts[4 * p + 2] = counts[4 * p + 3] = 0;
            continue;
        }
        const T refb = row[first];
        const VT ref = NS_REF_SET1(refb);
        NS_PAGE_CONSTS(refb);
        NS_ACC_INIT();
#if NS_W == 16
        int64_t nanc = 0;
        int64_t negc = 0; /* lanes with the sign set */
        uint16_t nanlo = 0xFFFF; /* the smallest NaN bits, where one sign */
#else
        int64_t ordc = 0;
        int64_t negc = 0; /* lanes with the sign set */
#endif
        int64_t negnan = 0, valid = 0, lanes = 0;
#if NS_W == 16
        /* Chunks of NS_CHUNK rows, each through the loop in mode 0 or in a
         * one-sign mode (wf, three copies of the loop): a chunk runs in the
         * mode of the sign that the last chunk holding NaNs held them of
         * (data with NaNs of both signs in mode 0, data with NaNs of one
         * sign in that sign's mode), with the page's accumulators put aside
         * and its extremes merged into them after (NS_AFTER_PM16).  After a
         * chunk run in mode 0 that held NaNs, while the page's NaNs so far
         * all have one sign, the lean pass ns_avx2_nanlo16_ goes over the
         * chunk again (from the cache) for its smallest NaN bits.  So a page
         * whose NaNs turn out to have one sign has their other end from
         * every chunk that held one.  (The lanes that hold the reference row
         * in place of a null carry a page row's sign, so they do not change
         * whether the signs are one.)  Zen 4, one summary of 1e8 values with
         * +NaN only and 10% nulls in a bitmap: 75.7-78.4 -> 69.9-71.1 ns a
         * thousand rows (NaNs of both signs: 67-69).  Once the page has
         * shown NaNs of both signs its chunks run in mode 0, which then
         * needs no second pass, where a one-sign mode still goes over a
         * chunk again when it meets the other sign: with few NaNs of both
         * signs the chunks' NaNs changed sign every few chunks and half the
         * chunks went over their rows twice (Zen 4, in L2, 0.1% NaN, ns a
         * thousand rows: 81.1 -> 52.3 without nulls, 99.2 -> 62.4 with a
         * bitmap; 1% NaN of both signs 63.0 -> 62.2). */
/* The pair loop over a byte mask at vq_: a vector's lanes where the byte
 * is zero take B0 (B1) over A0 (A1), so (s, ref) for a mask of valid rows,
 * (ref, s) for one of null rows.  The pair's 32 bytes are compared with
 * zero at once and counted (zc_, the zero bytes); each vector's 16 bytes
 * are widened to its lanes as they are loaded (vpmovzxbw from memory) and
 * compared with zero there.  Widening the compared bytes instead (one
 * vextracti128 and two vpmovsxbw a pair, shuffles that by the times wait
 * for the pipes of the pair's packs) was slower: AMD Zen 3, 1e6 values
 * in L3, the kernel alone, both builds in one process, best of 300, one
 * summary 104.3 -> 92.4 us with a mask of valid rows and 100.9 -> 92.3
 * with one of null rows, pages of 1,000 rows 130.7 -> 119.9 and 127.1 ->
 * 120.0 (the zero bytes counted in the lanes instead of by popcount: no
 * faster).  The mask is prefetched as many rows ahead as the values.
 * Until 2026-11 a pass before the chunk's rows turned its 2,048 bytes into
 * bits, which gave the count and the last rows' lanes: the two streams
 * were then read in turns of 2 KB and 4 KB, and the pass cost 15% in L3.
 * AMD Zen 3, 1e8 values, one summary, 10% nulls, the kernel alone (both
 * builds, the read ceiling and the mask's floor probe interleaved in one
 * process, best of 12-15 or five blocks' median, ten runs), fraction of
 * the ceiling: a mask of valid rows 0.66-0.86 -> 0.77-0.91, of null rows
 * 0.67-0.84 -> 0.73-0.91, faster in every run (by 1-28%), where the probe
 * read 0.73-0.81; in L3 one summary unchanged (95.3 -> 95.9 us), pages of
 * 1,000 rows 1-2% slower.  With the mask not prefetched 0.81-0.91,
 * prefetched 2.5 or 4 KB ahead no better. */
#define NS_BYTES16_LOOP(A0, B0, A1, B1)                                       \
    do {                                                                      \
        const __m256i z_ = _mm256_setzero_si256();                            \
        for (; j + 2 * LANES <= len; j += 2 * LANES) {                        \
            NS_MASK_T m0, g0, m1, g1;                                         \
            NS_PF((const char *)(crow + j));                                  \
            NS_PF_MASK16((const char *)(vq_ + j));                            \
            VT s0 = NS_LOAD(crow + j), s1 = NS_LOAD(crow + j + LANES);        \
            const __m256i e_ = _mm256_cmpeq_epi8(                             \
                _mm256_loadu_si256((const __m256i *)(vq_ + j)), z_);          \
            zc_ += __builtin_popcount((uint32_t)_mm256_movemask_epi8(e_));    \
            const __m256i e0_ = _mm256_cmpeq_epi16(_mm256_cvtepu8_epi16(      \
                _mm_loadu_si128((const __m128i *)(vq_ + j))), z_);            \
            const __m256i e1_ = _mm256_cmpeq_epi16(_mm256_cvtepu8_epi16(      \
                _mm_loadu_si128((const __m128i *)(vq_ + j + LANES))), z_);    \
            s0 = _mm256_blendv_epi8((A0), (B0), e0_);                         \
            s1 = _mm256_blendv_epi8((A1), (B1), e1_);                         \
            NS_STEP(s0, m0, g0);                                              \
            NS_STEP(s1, m1, g1);                                              \
            NS_COUNT2(m0, g0, m1, g1);                                        \
            NS_KEEP16();                                                      \
        }                                                                     \
    } while (0)
#define NS_RUN16(WF)                                                          \
    do {                                                                      \
        const int wf = (WF);                                                  \
        int64_t j = 0;                                                        \
        if (kind == NS_VALIDITY_NONE) {                                       \
            for (; j + 2 * LANES <= len; j += 2 * LANES) {                    \
                NS_MASK_T m0, g0, m1, g1;                                     \
                NS_PF((const char *)(crow + j));                              \
                VT s0 = NS_LOAD(crow + j), s1 = NS_LOAD(crow + j + LANES);    \
                NS_STEP(s0, m0, g0);                                          \
                NS_STEP(s1, m1, g1);                                          \
                NS_COUNT2(m0, g0, m1, g1);                                    \
                NS_KEEP16();                                                  \
            }                                                                 \
            lanes += j;                                                       \
            NS_TAIL(crow, len, j, NS_ALL_LANES);                              \
        } else if (kind != NS_VALIDITY_BITMAP) {                              \
            /* Byte masks: read by the loop, not turned into bits (see      \
             * NS_BYTES16_LOOP); the valid rows counted from its zero bytes  \
             * and the last rows' bits. */                                   \
            const uint8_t *vq_ = validity + start + c;                        \
            int64_t zc_ = 0; /* zero bytes among the pairs' rows */          \
            if (kind == NS_VALIDITY_NULL_BYTES)                               \
                NS_BYTES16_LOOP(ref, s0, ref, s1);                            \
            else                                                              \
                NS_BYTES16_LOOP(s0, ref, s1, ref);                            \
            lanes += j;                                                       \
            /* The bits of the last 32 rows (all of them if fewer), row t0_ \
             * in bit 0, from their bytes. */                                 \
            const int64_t t0_ = len > 2 * LANES ? len - 2 * LANES : 0;        \
            uint64_t tb_ = 0;                                                 \
            if (len >= 2 * LANES)                                             \
                tb_ = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(       \
                    _mm256_loadu_si256((const __m256i *)(vq_ + t0_)),         \
                    _mm256_setzero_si256()));                                 \
            else                                                              \
                for (int64_t k_ = 0; k_ < len; k_++)                          \
                    tb_ |= (uint64_t)(vq_[k_] == 0) << k_;                    \
            if (kind == NS_VALIDITY_BYTES)                                    \
                tb_ = ~tb_ & ((((uint64_t)1) << (len - t0_)) - 1);            \
            valid += (kind == NS_VALIDITY_BYTES ? j - zc_ : zc_) +            \
                     __builtin_popcountll(tb_ >> (j - t0_));                  \
            NS_TAIL(crow, len, j, (unsigned)(tb_ >> (r_ - t0_)));             \
        } else {                                                              \
            /* Pointers stepped, not an index: fewer integer instructions. */ \
            const T *q_ = crow, *const qend_ = crow + (len & ~(int64_t)(2 * LANES - 1)); \
            const uint8_t *bq_ = bb;                                          \
            int64_t vc_ = 0; /* the valid rows (see ns_avx2_bits_) */         \
            for (; q_ < qend_; q_ += 2 * LANES, bq_ += 2 * LANES / 8) {       \
                NS_MASK_T m0, g0, m1, g1;                                     \
                NS_WV_T const wv = NS_FN(ns_avx2_bcast_)(NS_BCAST_ARGS(bq_)); \
                uint32_t vw_;                                                 \
                memcpy(&vw_, bq_, sizeof vw_);                                \
                vc_ += __builtin_popcount(vw_);                               \
                NS_PF((const char *)q_);                                      \
                VT s0 = NS_LOAD(q_), s1 = NS_LOAD(q_ + LANES);                \
                s0 = NS_BLEND(ref, s0, wv, 0);                                \
                s1 = NS_BLEND(ref, s1, wv, 1);                                \
                NS_STEP(s0, m0, g0);                                          \
                NS_STEP(s1, m1, g1);                                          \
                NS_COUNT2(m0, g0, m1, g1);                                    \
                NS_KEEP16();                                                  \
            }                                                                 \
            j = qend_ - crow;                                                 \
            if (j < len) /* under 32 rows left: their bits from one word */  \
                vc_ += __builtin_popcountll(NS_FN(ns_avx2_load8_)(bb + j / 8) &  \
                                            (((uint64_t)1 << (len - j)) - 1)); \
            valid += vc_;                                                     \
            lanes += j;                                                       \
            NS_TAIL(crow, len, j, NS_FN(ns_avx2_lanebits_)(bb, r_));          \
        }                                                                     \
    } while (0)
        for (int64_t c = 0, len; c < rows; c += len) {
            len = NS_CHUNK_LEN(c, rows);
            const T *crow = row + c;
            /* A bitmap read in place or the bits copied; float16 counts a
             * bitmap's valid rows in its loop (a popcount a pair of
             * vectors, on integer units the loop leaves idle).  The
             * float32/64 driver below does the same choice but counts an
             * in-place bitmap itself; one shared inline helper for both
             * measured float32 with a bitmap 0.02 slower at 1e8. */
            const int64_t bpos = bit_offset + start + c;
            const uint8_t *bb = kind == NS_VALIDITY_BITMAP
                                    ? NS_FN(ns_avx2_inplace_)(validity, validity_nbytes, bpos, len)
                                    : NULL;
            if (!bb && kind == NS_VALIDITY_BITMAP)
                bb = NS_FN(ns_avx2_bits_)(kind, validity, validity_nbytes, bpos, len, bits,
                                          &valid, 0);
            /* Byte masks are read by the loop itself; their bits only where a
             * cold pass over the chunk needs them. */
#define NS_CHUNK_BITS16()                                                     \
    (kind == NS_VALIDITY_NONE || kind == NS_VALIDITY_BITMAP                   \
         ? bb                                                                 \
         : NS_FN(ns_avx2_bytebits16_)(kind, validity, validity_nbytes, start + c, len, bits))
            const int64_t nanc0 = nanc, negnan0 = negnan;
            /* A one-sign mode needs a reference row that is not a NaN. */
            const int mode = NS_FN(ns_avx2_isnan_)(refb) || (negnan > 0 && negnan < nanc) ? 0 : wmode;
            if (mode == 0) {
                NS_RUN16(0);
                NS_AFTER_STRETCH16(crow, len, NS_CHUNK_BITS16(), nanc0, negnan0, 0);
            } else {
                const __m256i o0_ = vmin, o1_ = vmax, o2_ = kmin, o3_ = kmax;
                vmin = smax;
                vmax = smin;
                kmin = smax;
                kmax = smin;
                if (mode == 1)
                    NS_RUN16(1);
                else
                    NS_RUN16(2);
                NS_AFTER_PM16(crow, len, NS_CHUNK_BITS16(), nanc0, negnan0, mode, o0_, o1_, o2_,
                              o3_);
            }
#undef NS_CHUNK_BITS16
        }
        if (kind == NS_VALIDITY_NONE)
            valid = rows;
#undef NS_RUN16
#else
        /* Rows four vectors a step, then a pair, then one vector, then the
         * rest padded with the reference row (whose bits are 0 in the
         * buffer). */
        if (kind == NS_VALIDITY_NONE) {
            int64_t i = 0;
            for (; i + 4 * LANES <= rows; i += 4 * LANES) {
                NS_PF((const char *)(row + i));
                NS_PF((const char *)(row + i + 2 * LANES));
                VT s0 = NS_LOAD(row + i), s1 = NS_LOAD(row + i + LANES);
                VT s2 = NS_LOAD(row + i + 2 * LANES), s3 = NS_LOAD(row + i + 3 * LANES);
                NS_QUAD(s0, s1, s2, s3);
            }
            if (i + 2 * LANES <= rows) {
                NS_MASK_T m0, g0, m1, g1;
                VT s0 = NS_LOAD(row + i), s1 = NS_LOAD(row + i + LANES);
                NS_STEP(s0, m0, g0);
                NS_STEP(s1, m1, g1);
                NS_COUNT2(m0, g0, m1, g1);
                i += 2 * LANES;
            }
            lanes = i;
            NS_TAIL(row, rows, i, NS_ALL_LANES);
            valid = rows;
        } else {
            for (int64_t c = 0, len; c < rows; c += len) {
                len = NS_CHUNK_LEN(c, rows);
                const T *crow = row + c;
                /* A bitmap read in place has its valid rows counted here,
                 * not through ns_avx2_bits_: the call clobbers every vector
                 * register, which cost more than its popcounts (float32
                 * pages of 1,000 rows with a bitmap, at 1e8 values, both
                 * builds in one process: 1.06-1.11 -> 1.03-1.07 times one
                 * summary; in cache 112.6 -> 108.3 ns per 1,000 rows). */
                const int64_t bpos = bit_offset + start + c;
                const uint8_t *bb = kind == NS_VALIDITY_BITMAP
                                        ? NS_FN(ns_avx2_inplace_)(validity, validity_nbytes, bpos,
                                                                  len)
                                        : NULL;
                if (bb)
                    valid += NS_FN(ns_avx2_count_)(bb, len);
                else
                    bb = NS_FN(ns_avx2_bits_)(kind, validity, validity_nbytes,
                                              kind == NS_VALIDITY_BITMAP ? bpos : start + c, len,
                                              bits, &valid, 0);
                /* Four vectors share one broadcast of their bits (a pair
                 * starts at a byte of bits: LANES >= 4); pointers stepped,
                 * not an index: fewer integer instructions. */
                const T *q = crow, *const qend = crow + (len & ~(int64_t)(4 * LANES - 1));
                const uint8_t *bq = bb;
                for (; q < qend; q += 4 * LANES, bq += 4 * LANES / 8) {
                    NS_WV_T const wv = NS_FN(ns_avx2_bcast_)(NS_BCAST_ARGS(bq));
                    NS_PF((const char *)q);
                    NS_PF((const char *)(q + 2 * LANES));
                    VT s0 = NS_LOAD(q), s1 = NS_LOAD(q + LANES);
                    VT s2 = NS_LOAD(q + 2 * LANES), s3 = NS_LOAD(q + 3 * LANES);
                    s0 = NS_BLEND(ref, s0, wv, 0);
                    s1 = NS_BLEND(ref, s1, wv, 1);
                    s2 = NS_BLEND(ref, s2, wv, 2);
                    s3 = NS_BLEND(ref, s3, wv, 3);
                    NS_QUAD(s0, s1, s2, s3);
                }
                int64_t j = qend - crow;
                if (j + 2 * LANES <= len) {
                    NS_MASK_T m0, g0, m1, g1;
                    NS_WV_T const wv = NS_FN(ns_avx2_bcast_)(NS_BCAST_ARGS(bb + j / 8));
                    VT s0 = NS_LOAD(crow + j), s1 = NS_LOAD(crow + j + LANES);
                    s0 = NS_BLEND(ref, s0, wv, 0);
                    s1 = NS_BLEND(ref, s1, wv, 1);
                    NS_STEP(s0, m0, g0);
                    NS_STEP(s1, m1, g1);
                    NS_COUNT2(m0, g0, m1, g1);
                    j += 2 * LANES;
                }
                lanes += j;
                NS_TAIL(crow, len, j, NS_FN(ns_avx2_lanebits_)(bb, r_));
            }
        }
#endif
        /* NaN rows among the lanes; the lanes that held the reference row
         * in place of a null or a pad come off. */
#if NS_W == 16
        int64_t nan = nanc; /* (NS_NEGNUM16 and NS_POSNUM16: the signs of non-NaN lanes) */
#else
        int64_t nan = lanes - ordc;
        /* Non-NaN lanes with the sign set and clear, from the counts before
         * the replaced lanes come off (each is a copy of a valid row of the
         * page, so it adds no sign the page lacks). */
        const int negnum = negc - negnan > 0, posnum = lanes - negc - (nan - negnan) > 0;
#endif
        const int64_t replaced = lanes - valid;
        if (NS_FN(ns_avx2_isnan_)(refb)) {
            nan -= replaced;
            if (refb >> (NS_W - 1))
                negnan -= replaced;
        }
        counts[4 * p + 1] = rows - valid;
        counts[4 * p + 2] = nan - negnan;
        counts[4 * p + 3] = negnan;
        NS_FINISH(pk, valid - nan, nan);
#if NS_W == 16
        /* The reference row is a NaN but the page has values: NaN lanes
         * stood in as that NaN, so the value extremes come from the rows. */
        if (NS_FN(ns_avx2_isnan_)(refb) && valid - nan > 0)
            NS_FN(ns_avx2_valuekeys16_)(row, rows, first, kind, validity, vpos, &pk[0], &pk[1]);
#endif
#undef NS_VALID_ROW
    }
}

#include "scan_kinds.h"

#undef VT
#undef NS_WV_T
#undef NS_LOAD
#undef NS_ACC_INIT
#undef NS_CONSTS
#undef NS_STEP
#undef NS_COUNT
#undef NS_COUNT2
#if NS_W != 16
#undef NS_QUAD
#undef NS_QHALF
#undef NS_QJOIN
#undef NS_COUNT_BITS
#undef NS_QLANES
#endif
#undef NS_REF_SET1
#undef NS_PAGE_CONSTS
#undef NS_MASK_T
#undef NS_BCAST_ARGS
#undef NS_BLEND
#undef NS_MASK_CONSTS
#undef FBLEND_BITS
#undef NS_TAIL
#undef NS_ALL_LANES
#undef NS_FINISH
#undef NS_BYTES16_LOOP
#if NS_W != 16
#undef VF
#undef CASTF
#undef CASTI
#undef FMIN
#undef FMAX
#undef FCMP
#undef FAND
#undef FOR
#undef FBLENDV
#undef FSET1
#undef FMOVMSK
#undef SLLV
#undef SIGN_BIT
#undef EXP_BITS
#undef MANT_BITS
#undef EXP_TOP
#else
#undef NS_PKEY16
#undef NS_KEY16
#undef NS_TOKEY16
#undef NS_KEYS16
#undef NS_ZEROFIX16
#undef NS_FINISH_PM16
#undef NS_DECODE_PM16
#undef NS_AFTER_PM16
#undef NS_KEEP16
#undef NS_COUNT_
#undef NS_PACKMASK
#undef NS_NEGNUM16
#undef NS_POSNUM16
#undef NS_ZSIGNS16
#undef NS_AFTER_STRETCH16
#undef NS_ON_BREAK16
#endif
#undef T
#undef LANES
#undef NS_CHUNK
#undef NS_CHUNK_LEN
#undef NS_LEAN16_ROWS
#undef NS_REF16_ROWS
#undef NS_LEAN16_FITS
#undef NS_PAGE_ANYBIT
#undef NS_PAGE_EMPTY
#undef NS_LMODE16
#undef NS_NEXT_RUN16
#undef NS_LANES16
#undef NS_BITS_DECL
#undef NS_PF
#undef NS_PF_MASK16
#undef NS_PF_L2
