/* STUB — to be replaced by issue 5 (kernel layers). */
#include <stdio.h>
#include "netfilter_layer.h"
int sbx_netfilter_probe(char *why, size_t whylen) { snprintf(why, whylen, "not implemented"); return 0; }
int sbx_netfilter_start(const struct policy *p, int fd, struct sbx_netfilter **out, char *why, size_t whylen)
{ (void)p; (void)fd; *out = NULL; snprintf(why, whylen, "not implemented"); return -1; }
int sbx_netfilter_fd(const struct sbx_netfilter *nf) { (void)nf; return -1; }
int sbx_netfilter_drain(struct sbx_netfilter *nf, struct audit *a) { (void)nf; (void)a; return 0; }
void sbx_netfilter_stop(struct sbx_netfilter *nf) { (void)nf; }
cJSON *sbx_netfilter_plan(const struct policy *p) { (void)p; return cJSON_CreateObject(); }
