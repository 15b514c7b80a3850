/* The baseline C level: the vector-extension loops for the compiler's default
 * target (SSE2 on x86-64, NEON on arm64). */
#define NS_SUFFIX _baseline
#include "scan_levels.h"
