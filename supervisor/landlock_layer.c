/* STUB — to be replaced by issue 5 (kernel layers). */
#include <stdio.h>
#include "landlock_layer.h"
int sbx_landlock_probe(char *why, size_t whylen) { snprintf(why, whylen, "not implemented"); return 0; }
int sbx_landlock_apply(const struct policy *p, struct sbx_landlock_result *r, char *why, size_t whylen)
{ (void)p; (void)r; snprintf(why, whylen, "not implemented"); return -1; }
cJSON *sbx_landlock_plan(const struct policy *p, int abi) { (void)p; (void)abi; return cJSON_CreateObject(); }
