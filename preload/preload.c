/* STUB — to be replaced by issue 4 (preload). */
#include "policy.h"
#include "report.h"
__attribute__((visibility("default"))) int sbx_preload_stub;
