/* The portable level: whatever the compiler's default target allows (SSE2 on x86-64). */
#define NS_SUFFIX _baseline
#include "scan_levels.h"
