/* Instantiate the three widths for one ISA level: NS_SUFFIX set by the
 * includer, and NS_TEMPLATE when the level has loops of its own. */
#include <stdint.h>
#include <string.h>
#include "scan.h"

/* Every function of a level carries NS_TARGET, the level's
 * __attribute__((target(...))) (empty for the baseline level): gcc and clang
 * both honour the attribute, where clang ignores `#pragma GCC target`. */
#ifndef NS_TARGET
#define NS_TARGET
#endif
#ifndef NS_TEMPLATE
#define NS_TEMPLATE "scan_template.h"
#endif
#define NS_W 16
#include NS_TEMPLATE
#undef NS_W
#define NS_W 32
#include NS_TEMPLATE
#undef NS_W
#define NS_W 64
#include NS_TEMPLATE
#undef NS_W

#define NS_TABLE_NAME NS_CAT(ns_table, NS_SUFFIX)
const ns_scan_fn NS_TABLE_NAME[3] = {
    NS_CAT(NS_CAT(ns_scan_, 16), NS_SUFFIX),
    NS_CAT(NS_CAT(ns_scan_, 32), NS_SUFFIX),
    NS_CAT(NS_CAT(ns_scan_, 64), NS_SUFFIX),
};
