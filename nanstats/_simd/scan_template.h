/* The scan loops for one bit width, included once per width and per ISA
 * level by scan_levels.h with NS_W (16, 32, 64) and NS_SUFFIX set.
 *
 * How the loops stay cheap:
 * - Everything is in the width of the data: keys, masks, block counters.  A
 *   float16 lane never widens, so 16 float16 values fill one AVX2 register.
 *   Block counters of that width cannot overflow: a block is at most
 *   NS_BLOCK rows, and its counts are added to int64 totals once per block.
 * - No per-row selects for NaN: the four extremes (min/max of the non-NaN
 *   values, min/max of the NaNs) come from six plain min/max reductions over
 *   the key k and two rotations of it, k - c and k + c, where c is the number
 *   of NaN payloads of one sign.  Rotating by -c moves the -NaN keys above
 *   everything; rotating by +c moves the +NaN keys below everything (keys
 *   wrap around modulo 2^W).  Which reduction gives which extreme then
 *   depends only on the block's NaN counts (ns_fold_).
 * - Nulls are replaced by a valid row of the same block (the reference row),
 *   which cannot change a min or a max; one select per vector.
 * - An Arrow bitmap is read a word at a time (NS_W rows per word) and tested
 *   against a constant vector of single-bit masks; it is never expanded. */

#define NS_CAT2(a, b) a##b
#define NS_CAT(a, b) NS_CAT2(a, b)
#define NS_FN(name) NS_CAT(NS_CAT(name, NS_W), NS_SUFFIX)

#if NS_W == 16
#define T uint16_t
#define S int16_t
#define S_MAX INT16_MAX
#define S_MIN INT16_MIN
#define ABS_MASK ((T)0x7FFF)
#define INF_BITS ((T)0x7C00)
#elif NS_W == 32
#define T uint32_t
#define S int32_t
#define S_MAX INT32_MAX
#define S_MIN INT32_MIN
#define ABS_MASK ((T)0x7FFFFFFFu)
#define INF_BITS ((T)0x7F800000u)
#else
#define T uint64_t
#define S int64_t
#define S_MAX INT64_MAX
#define S_MIN INT64_MIN
#define ABS_MASK ((T)0x7FFFFFFFFFFFFFFFull)
#define INF_BITS ((T)0x7FF0000000000000ull)
#endif
/* NaN payloads per sign: keys of +NaN are (INF, S_MAX], of -NaN [S_MIN, S_MIN + C). */
#define C_NAN ((T)(ABS_MASK - INF_BITS))

/* Vector registers of NS_VBYTES (set by the level: 16 for SSE2, 32 for AVX2). */
#ifndef NS_VBYTES
#define NS_VBYTES 16
#endif
typedef S NS_FN(ns_v_) __attribute__((vector_size(NS_VBYTES)));
typedef T NS_FN(ns_vu_) __attribute__((vector_size(NS_VBYTES)));
typedef uint8_t NS_FN(ns_vb_) __attribute__((vector_size(NS_VBYTES / (NS_W / 8))));
#define V NS_FN(ns_v_)
#define VU NS_FN(ns_vu_)
#define VB NS_FN(ns_vb_)
#define LANES ((int)(NS_VBYTES / sizeof(S)))

/* One block's accumulators: six extremes and three counts, of the data's width. */
typedef struct {
    S kmin, kmax;    /* over k */
    S amin, amax;    /* over k - c (-NaN on top) */
    S bmin, bmax;    /* over k + c (+NaN at the bottom) */
    int64_t valid, nan, negnan;
} NS_FN(ns_block_);
#define BLOCK_T NS_FN(ns_block_)

NS_TARGET static inline S NS_FN(ns_key_)(T b)
{
    S s = (S)b;
    return (S)(s ^ (S)((T)(s >> (NS_W - 1)) >> 1));
}

NS_TARGET static inline S NS_FN(ns_rot_)(S k, T by) { return (S)((T)k + by); }

#define NS_SEL(m, a, b) (((a) & (m)) | ((b) & ~(m)))
/* A level may provide native lane min/max (NS_NATIVE_MIN16 etc.); gcc does
 * not turn the compare-and-select form into them inside these loops. */
#if NS_W == 16 && defined(NS_NATIVE_MIN16)
#define NS_VMIN(a, b) ((V)NS_NATIVE_MIN16(a, b))
#define NS_VMAX(a, b) ((V)NS_NATIVE_MAX16(a, b))
#elif NS_W == 32 && defined(NS_NATIVE_MIN32)
#define NS_VMIN(a, b) ((V)NS_NATIVE_MIN32(a, b))
#define NS_VMAX(a, b) ((V)NS_NATIVE_MAX32(a, b))
#else
#define NS_VMIN(a, b) NS_SEL((V)((a) < (b)), (a), (b))
#define NS_VMAX(a, b) NS_SEL((V)((a) > (b)), (a), (b))
#endif

#define NS_VLOCALS                                                            \
    V xkmin = (V){} + S_MAX, xkmax = (V){} + S_MIN;                           \
    V xamin = (V){} + S_MAX, xamax = (V){} + S_MIN;                           \
    V xbmin = (V){} + S_MAX, xbmax = (V){} + S_MIN;                           \
    V xvalid = (V){}, xnan = (V){}, xneg = (V){}

/* `ok`: lane mask, all ones = valid; `ref`: the reference row's key.
 * 64-bit lanes have no native min/max before AVX-512, so for float64 the hot
 * loop keeps only the two value extremes (NS_NAN_PASS); the four NaN-related
 * reductions run in a second pass over the block, from cache, and only when
 * the block holds a NaN. */
#if NS_W == 64
#define NS_NAN_PASS 1
#else
#define NS_NAN_PASS 0
#endif

#define NS_VCOMMON(s, ok, ref)                                                \
    V sg_ = (s) >> (NS_W - 1);                                                \
    V key_ = (s) ^ (V)((VU)sg_ >> 1);                                         \
    V k_ = NS_SEL((ok), key_, (ref));                                         \
    V a_ = (V)((VU)k_ - C_NAN);                                               \
    V b_ = (V)((VU)k_ + C_NAN)

#define NS_VNAN_REDUCE                                                        \
    do {                                                                      \
        xkmin = NS_VMIN(k_, xkmin);                                           \
        xkmax = NS_VMAX(k_, xkmax);                                           \
        xamax = NS_VMAX(a_, xamax);                                           \
        xbmin = NS_VMIN(b_, xbmin);                                           \
    } while (0)

#define NS_VUPDATE(s, ok, ref)                                                \
    do {                                                                      \
        NS_VCOMMON(s, ok, ref);                                               \
        V nanm_ = (V)(((VU)(s) & ABS_MASK) > INF_BITS);                       \
        V vnan_ = nanm_ & (ok);                                               \
        xamin = NS_VMIN(a_, xamin);                                           \
        xbmax = NS_VMAX(b_, xbmax);                                           \
        if (!NS_NAN_PASS)                                                     \
            NS_VNAN_REDUCE;                                                   \
        xvalid -= (ok);                                                       \
        xnan -= vnan_;                                                        \
        xneg -= vnan_ & sg_;                                                  \
    } while (0)

/* The second pass (float64 only): min and max of the NaN lanes alone. */
#define NS_VUPDATE_NAN(s, ok)                                                 \
    do {                                                                      \
        V sg_ = (s) >> (NS_W - 1);                                            \
        V key_ = (s) ^ (V)((VU)sg_ >> 1);                                     \
        V m_ = (V)(((VU)(s) & ABS_MASK) > INF_BITS) & (ok);                   \
        V lo_ = NS_SEL(m_, key_, (V){} + S_MAX);                              \
        V hi_ = NS_SEL(m_, key_, (V){} + S_MIN);                              \
        xkmin = NS_VMIN(lo_, xkmin);                                          \
        xkmax = NS_VMAX(hi_, xkmax);                                          \
    } while (0)

/* After a NaN pass: xkmin/xkmax hold the NaN extremes of the vector rows.
 * Store them where ns_fold_ looks for NaN extremes whatever the signs. */
#define NS_NAN_PASS_STORE(acc)                                                \
    do {                                                                      \
        S lo_ = S_MAX, hi_ = S_MIN;                                           \
        for (int l_ = 0; l_ < LANES; l_++) {                                  \
            lo_ = xkmin[l_] < lo_ ? xkmin[l_] : lo_;                          \
            hi_ = xkmax[l_] > hi_ ? xkmax[l_] : hi_;                          \
        }                                                                     \
        S blo_ = NS_FN(ns_rot_)(lo_, C_NAN), ahi_ = NS_FN(ns_rot_)(hi_, (T)-C_NAN); \
        (acc)->kmin = lo_ < (acc)->kmin ? lo_ : (acc)->kmin;                  \
        (acc)->kmax = hi_ > (acc)->kmax ? hi_ : (acc)->kmax;                  \
        (acc)->bmin = blo_ < (acc)->bmin ? blo_ : (acc)->bmin;                \
        (acc)->amax = ahi_ > (acc)->amax ? ahi_ : (acc)->amax;                \
        xkmin = (V){} + S_MAX;                                                \
        xkmax = (V){} + S_MIN;                                                \
    } while (0)

/* The scalar form, for the rows after the last full vector. */
NS_TARGET static inline void NS_FN(ns_row_)(BLOCK_T *acc, T b, int ok, S ref)
{
    S s = (S)b;
    S key = NS_FN(ns_key_)(b);
    int nan = (T)(b & ABS_MASK) > INF_BITS;
    S k = ok ? key : ref;
    S a = NS_FN(ns_rot_)(k, (T)-C_NAN), bb = NS_FN(ns_rot_)(k, C_NAN);
    acc->kmin = k < acc->kmin ? k : acc->kmin;
    acc->kmax = k > acc->kmax ? k : acc->kmax;
    acc->amin = a < acc->amin ? a : acc->amin;
    acc->amax = a > acc->amax ? a : acc->amax;
    acc->bmin = bb < acc->bmin ? bb : acc->bmin;
    acc->bmax = bb > acc->bmax ? bb : acc->bmax;
    acc->valid += ok;
    acc->nan += ok & nan;
    acc->negnan += ok & nan & (s < 0);
}

NS_TARGET static inline void NS_FN(ns_block_init_)(BLOCK_T *acc)
{
    acc->kmin = acc->amin = acc->bmin = S_MAX;
    acc->kmax = acc->amax = acc->bmax = S_MIN;
    acc->valid = acc->nan = acc->negnan = 0;
}

#define NS_VFOLD(acc)                                                         \
    do {                                                                      \
        for (int l_ = 0; l_ < LANES; l_++) {                                  \
            (acc)->kmin = xkmin[l_] < (acc)->kmin ? xkmin[l_] : (acc)->kmin;  \
            (acc)->kmax = xkmax[l_] > (acc)->kmax ? xkmax[l_] : (acc)->kmax;  \
            (acc)->amin = xamin[l_] < (acc)->amin ? xamin[l_] : (acc)->amin;  \
            (acc)->amax = xamax[l_] > (acc)->amax ? xamax[l_] : (acc)->amax;  \
            (acc)->bmin = xbmin[l_] < (acc)->bmin ? xbmin[l_] : (acc)->bmin;  \
            (acc)->bmax = xbmax[l_] > (acc)->bmax ? xbmax[l_] : (acc)->bmax;  \
            (acc)->valid += xvalid[l_];                                       \
            (acc)->nan += xnan[l_];                                           \
            (acc)->negnan += xneg[l_];                                        \
        }                                                                     \
    } while (0)

/* True when no lane counted a NaN. */
#define NS_NO_NAN(x) NS_FN(ns_all_zero_)(x)
NS_TARGET static inline int NS_FN(ns_all_zero_)(V x)
{
    S any = 0;
    for (int l = 0; l < LANES; l++)
        any |= x[l];
    return any == 0;
}

/* LANES mask bytes widened to lanes of the data's width.  A level may provide
 * a native widening load (NS_NATIVE_WIDEN8_16 etc.); the generic form goes
 * through a byte vector, which gcc handles poorly at narrow sizes. */
NS_TARGET static inline V NS_FN(ns_widen_bytes_)(const uint8_t *p)
{
    VB raw;
    memcpy(&raw, p, sizeof raw);
    return __builtin_convertvector(raw, V);
}
#if NS_W == 16 && defined(NS_NATIVE_WIDEN8_16)
#define NS_WIDEN_BYTES(p) ((V)NS_NATIVE_WIDEN8_16(p))
#elif NS_W == 32 && defined(NS_NATIVE_WIDEN8_32)
#define NS_WIDEN_BYTES(p) ((V)NS_NATIVE_WIDEN8_32(p))
#elif NS_W == 64 && defined(NS_NATIVE_WIDEN8_64)
#define NS_WIDEN_BYTES(p) ((V)NS_NATIVE_WIDEN8_64(p))
#else
#define NS_WIDEN_BYTES(p) NS_FN(ns_widen_bytes_)(p)
#endif

NS_TARGET static inline V NS_FN(ns_vload_)(const T *p)
{
    V v;
    memcpy(&v, p, sizeof v);
    return v;
}

NS_TARGET static void NS_FN(ns_rows_none_)(const T *restrict d, int64_t n, BLOCK_T *acc)
{
    NS_VLOCALS;
    const V all = (V){} - 1;
    int64_t i = 0;
    for (; i + LANES <= n; i += LANES) {
        V s = NS_FN(ns_vload_)(d + i);
        NS_VUPDATE(s, all, all);
    }
    if (NS_NAN_PASS && !NS_NO_NAN(xnan)) {
        for (int64_t j = 0; j + LANES <= n; j += LANES) {
            V s = NS_FN(ns_vload_)(d + j);
            NS_VUPDATE_NAN(s, all);
        }
        NS_NAN_PASS_STORE(acc);
    }
    NS_VFOLD(acc);
    for (; i < n; i++)
        NS_FN(ns_row_)(acc, d[i], 1, 0);
}

NS_TARGET static void NS_FN(ns_rows_bytes_)(const T *restrict d, const uint8_t *restrict v, int64_t n,
                                  int null_bytes, BLOCK_T *acc)
{
    int64_t first = 0;
    while (first < n && (null_bytes ? v[first] != 0 : v[first] == 0))
        first++;
    if (first == n) {  /* every row null */
        acc->valid += 0;
        return;
    }
    S ref = NS_FN(ns_key_)(d[first]);
    V refv = (V){} + ref;
    NS_VLOCALS;
    int64_t i = 0;
    for (; i + LANES <= n; i += LANES) {
        V wide = NS_WIDEN_BYTES(v + i);
        V ok = null_bytes ? (V)(wide == 0) : (V)(wide != 0);
        V s = NS_FN(ns_vload_)(d + i);
        NS_VUPDATE(s, ok, refv);
    }
    if (NS_NAN_PASS && !NS_NO_NAN(xnan)) {
        for (int64_t j = 0; j + LANES <= n; j += LANES) {
            V wide = NS_WIDEN_BYTES(v + j);
            V ok = null_bytes ? (V)(wide == 0) : (V)(wide != 0);
            V s = NS_FN(ns_vload_)(d + j);
            NS_VUPDATE_NAN(s, ok);
        }
        NS_NAN_PASS_STORE(acc);
    }
    NS_VFOLD(acc);
    for (; i < n; i++)
        NS_FN(ns_row_)(acc, d[i], null_bytes ? v[i] == 0 : v[i] != 0, ref);
}

/* Single-bit masks, one per row of a bitmap word. */
static const T NS_FN(ns_bit_)[NS_W] __attribute__((aligned(32))) = {
#define B(i) (T)((T)1 << (i))
    B(0), B(1), B(2), B(3), B(4), B(5), B(6), B(7), B(8), B(9), B(10), B(11), B(12), B(13),
    B(14), B(15)
#if NS_W >= 32
    , B(16), B(17), B(18), B(19), B(20), B(21), B(22), B(23), B(24), B(25), B(26), B(27),
    B(28), B(29), B(30), B(31)
#endif
#if NS_W == 64
    , B(32), B(33), B(34), B(35), B(36), B(37), B(38), B(39), B(40), B(41), B(42), B(43),
    B(44), B(45), B(46), B(47), B(48), B(49), B(50), B(51), B(52), B(53), B(54), B(55),
    B(56), B(57), B(58), B(59), B(60), B(61), B(62), B(63)
#endif
#undef B
};

/* NS_W validity bits starting at bit `pos`, reading only bytes < nbytes. */
NS_TARGET static inline T NS_FN(ns_load_bits_)(const uint8_t *v, int64_t nbytes, int64_t pos)
{
    int64_t byte = pos >> 3;
    unsigned shift = (unsigned)(pos & 7);
    uint64_t w = 0;
    if (byte + 9 <= nbytes) {
        uint64_t lo;
        memcpy(&lo, v + byte, 8);
        if (shift == 0)
            return (T)lo;
        w = (lo >> shift) | ((uint64_t)v[byte + 8] << (64 - shift));
    } else {
        for (int k = 0; k < 9 && byte + k < nbytes; k++) {
            if (k < 8)
                w |= ((uint64_t)v[byte + k] << (8 * k)) >> shift;
            else if (shift)
                w |= (uint64_t)v[byte + k] << (64 - shift);
        }
    }
    return (T)w;
}

NS_TARGET static inline int NS_FN(ns_bit_at_)(const uint8_t *v, int64_t pos)
{
    return (v[pos >> 3] >> (pos & 7)) & 1;
}

NS_TARGET static void NS_FN(ns_rows_bitmap_)(const T *restrict d, const uint8_t *restrict v,
                                   int64_t nbytes, int64_t pos, int64_t n, BLOCK_T *acc)
{
    int64_t first = 0;
    while (first < n && !NS_FN(ns_bit_at_)(v, pos + first))
        first++;
    if (first == n)
        return;
    S ref = NS_FN(ns_key_)(d[first]);
    V refv = (V){} + ref;
    NS_VLOCALS;
    V lane_bits[NS_W / LANES];
    for (int q = 0; q < NS_W / LANES; q++)
        memcpy(&lane_bits[q], NS_FN(ns_bit_) + q * LANES, sizeof(V));
    int64_t i = 0;
    /* One bitmap word covers NS_W rows: NS_W / LANES vectors. */
    for (; i + NS_W <= n; i += NS_W) {
        T word = NS_FN(ns_load_bits_)(v, nbytes, pos + i);
        V wv = (V){} + (S)word;
        for (int q = 0; q < NS_W / LANES; q++) {
            V ok = (V)((wv & lane_bits[q]) != 0);
            V s = NS_FN(ns_vload_)(d + i + q * LANES);
            NS_VUPDATE(s, ok, refv);
        }
    }
    if (NS_NAN_PASS && !NS_NO_NAN(xnan)) {
        for (int64_t j = 0; j + NS_W <= n; j += NS_W) {
            T word = NS_FN(ns_load_bits_)(v, nbytes, pos + j);
            V wv = (V){} + (S)word;
            for (int q = 0; q < NS_W / LANES; q++) {
                V ok = (V)((wv & lane_bits[q]) != 0);
                V s = NS_FN(ns_vload_)(d + j + q * LANES);
                NS_VUPDATE_NAN(s, ok);
            }
        }
        NS_NAN_PASS_STORE(acc);
    }
    NS_VFOLD(acc);
    for (; i < n; i++)
        NS_FN(ns_row_)(acc, d[i], NS_FN(ns_bit_at_)(v, pos + i), ref);
}

/* Rows per block: per-lane counters of the data's width must not overflow. */
#if NS_W == 64
#define NS_BLOCK 2048 /* 16 KiB: the NaN pass re-reads the block from L1 */
#else
#define NS_BLOCK 8192
#endif

NS_TARGET static void NS_FN(ns_scan_)(const void *data, int64_t n, int kind, const uint8_t *validity,
                            int64_t validity_nbytes, int64_t bit_offset,
                            const int64_t *page_starts, int64_t npages,
                            int64_t *counts, int64_t *keys)
{
    const T *d = (const T *)data;
    for (int64_t p = 0; p < npages; p++) {
        int64_t start = page_starts[p];
        int64_t stop = p + 1 < npages ? page_starts[p + 1] : n;
        int64_t valid = 0, nan = 0, negnan = 0;
        int64_t vmin = INT64_MAX, vmax = INT64_MIN, nmin = INT64_MAX, nmax = INT64_MIN;
        for (int64_t b = start; b < stop; b += NS_BLOCK) {
            int64_t len = stop - b < NS_BLOCK ? stop - b : NS_BLOCK;
            BLOCK_T acc;
            NS_FN(ns_block_init_)(&acc);
            switch (kind) {
            case NS_VALIDITY_BYTES:
            case NS_VALIDITY_NULL_BYTES:
                NS_FN(ns_rows_bytes_)(d + b, validity + b, len,
                                      kind == NS_VALIDITY_NULL_BYTES, &acc);
                break;
            case NS_VALIDITY_BITMAP:
                NS_FN(ns_rows_bitmap_)(d + b, validity, validity_nbytes, bit_offset + b, len,
                                       &acc);
                break;
            default:
                NS_FN(ns_rows_none_)(d + b, len, &acc);
            }
            valid += acc.valid;
            nan += acc.nan;
            negnan += acc.negnan;
            /* Which reduction holds which extreme follows from the counts. */
            int64_t posnan = acc.nan - acc.negnan;
            if (acc.valid - acc.nan > 0) {
                S lo = NS_FN(ns_rot_)(acc.amin, C_NAN);
                S hi = NS_FN(ns_rot_)(acc.bmax, (T)-C_NAN);
                vmin = lo < vmin ? lo : vmin;
                vmax = hi > vmax ? hi : vmax;
            }
            if (acc.nan > 0) {
                S lo = acc.negnan > 0 ? acc.kmin : NS_FN(ns_rot_)(acc.bmin, (T)-C_NAN);
                S hi = posnan > 0 ? acc.kmax : NS_FN(ns_rot_)(acc.amax, C_NAN);
                nmin = lo < nmin ? lo : nmin;
                nmax = hi > nmax ? hi : nmax;
            }
        }
        counts[4 * p + 0] = stop - start;
        counts[4 * p + 1] = (stop - start) - valid;
        counts[4 * p + 2] = nan - negnan;
        counts[4 * p + 3] = negnan;
        keys[4 * p + 0] = vmin;
        keys[4 * p + 1] = vmax;
        keys[4 * p + 2] = nmin;
        keys[4 * p + 3] = nmax;
    }
}

#undef T
#undef S
#undef S_MAX
#undef S_MIN
#undef ABS_MASK
#undef INF_BITS
#undef C_NAN
#undef V
#undef VU
#undef VB
#undef LANES
#undef BLOCK_T
#undef NS_BLOCK
#undef NS_SEL
#undef NS_VMIN
#undef NS_VMAX
#undef NS_VLOCALS
#undef NS_VUPDATE
#undef NS_VUPDATE_NAN
#undef NS_NAN_PASS_STORE
#undef NS_VCOMMON
#undef NS_VNAN_REDUCE
#undef NS_NAN_PASS
#undef NS_NO_NAN
#undef NS_WIDEN_BYTES
#undef NS_VFOLD
