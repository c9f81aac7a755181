/* STUB — to be replaced by issue 2 (foundation). */
#include "policy.h"
const struct policy *pol_open(const void *blob, size_t len, const char **why)
{ (void)blob; (void)len; *why = "not implemented"; return 0; }
