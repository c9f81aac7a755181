/* STUB — to be replaced by issue 5 (kernel layers). */
#include <stdio.h>
#include "seccomp_layer.h"
int sbx_seccomp_probe(char *level, size_t levellen, char *why, size_t whylen)
{ (void)level; (void)levellen; snprintf(why, whylen, "not implemented"); return 0; }
int sbx_seccomp_install(int *listener, char *why, size_t whylen)
{ *listener = -1; snprintf(why, whylen, "not implemented"); return -1; }
int sbx_seccomp_handle(int listener, struct audit *a) { (void)listener; (void)a; return -1; }
cJSON *sbx_seccomp_plan(void) { return cJSON_CreateObject(); }
