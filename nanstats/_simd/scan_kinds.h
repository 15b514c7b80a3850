/* Included at the end of a level's template (NS_W, NS_FN and NS_TARGET
 * set): one copy of the driver NS_FN(ns_scan_kind_) per kind of validity,
 * the kind a constant in each (byte masks of both senses share one), and
 * NS_FN(ns_scan_), which picks the copy.  A copy holds only its own loops,
 * and the compiler allocates registers for them alone.  gcc 12, AVX2,
 * float16 pages of 1,000 rows, instructions a page besides those of its
 * rows (counted by callgrind): 294 -> 247 without nulls, 360 -> 337 with
 * an Arrow bitmap. */
#define NS_SCAN_KIND(name, KIND)                                              \
    NS_TARGET __attribute__((noinline)) static void NS_FN(name)(              \
        const void *data, int64_t n, int kind, const uint8_t *validity,      \
        int64_t validity_nbytes, int64_t bit_offset, const int64_t *page_starts, \
        int64_t npages, int64_t *counts, int64_t *keys)                      \
    {                                                                         \
        (void)kind;                                                           \
        NS_FN(ns_scan_kind_)(data, n, (KIND), validity, validity_nbytes, bit_offset, \
                             page_starts, npages, counts, keys);              \
    }
NS_SCAN_KIND(ns_scan_none_, NS_VALIDITY_NONE)
NS_SCAN_KIND(ns_scan_bitmap_, NS_VALIDITY_BITMAP)
NS_SCAN_KIND(ns_scan_bytes_, kind)
#undef NS_SCAN_KIND

NS_TARGET static void NS_FN(ns_scan_)(const void *data, int64_t n, int kind, const uint8_t *validity,
                                      int64_t validity_nbytes, int64_t bit_offset,
                                      const int64_t *page_starts, int64_t npages,
                                      int64_t *counts, int64_t *keys)
{
    /* Direct calls: each copy has one caller, which gcc may specialise it for. */
    if (kind == NS_VALIDITY_NONE)
        NS_FN(ns_scan_none_)(data, n, kind, validity, validity_nbytes, bit_offset, page_starts,
                             npages, counts, keys);
    else if (kind == NS_VALIDITY_BITMAP)
        NS_FN(ns_scan_bitmap_)(data, n, kind, validity, validity_nbytes, bit_offset, page_starts,
                               npages, counts, keys);
    else
        NS_FN(ns_scan_bytes_)(data, n, kind, validity, validity_nbytes, bit_offset, page_starts,
                              npages, counts, keys);
}
