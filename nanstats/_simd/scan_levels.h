/* Instantiate the three widths for one ISA level (NS_SUFFIX set by the includer). */
#include <stdint.h>
#include <string.h>
#include "scan.h"

#define NS_W 16
#include "scan_template.h"
#undef NS_W
#define NS_W 32
#include "scan_template.h"
#undef NS_W
#define NS_W 64
#include "scan_template.h"
#undef NS_W

#define NS_TABLE_NAME NS_CAT(ns_table, NS_SUFFIX)
const ns_scan_fn NS_TABLE_NAME[3] = {
    NS_CAT(NS_CAT(ns_scan_, 16), NS_SUFFIX),
    NS_CAT(NS_CAT(ns_scan_, 32), NS_SUFFIX),
    NS_CAT(NS_CAT(ns_scan_, 64), NS_SUFFIX),
};
