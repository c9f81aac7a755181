/* STUB — to be replaced by issue 6 (probes). */
#include <stdio.h>
#include "probes_layer.h"
int sbx_probes_probe(char *level, size_t levellen, char *why, size_t whylen)
{ (void)level; (void)levellen; snprintf(why, whylen, "not implemented"); return 0; }
int sbx_probes_start(const struct policy *p, uint64_t id, struct sbx_probes **out, char *level, size_t ll,
		     char *why, size_t whylen)
{ (void)p; (void)id; (void)level; (void)ll; *out = NULL; snprintf(why, whylen, "not implemented"); return -1; }
int sbx_probes_arm(struct sbx_probes *pr, pid_t pid) { (void)pr; (void)pid; return -1; }
int sbx_probes_fd(const struct sbx_probes *pr) { (void)pr; return -1; }
int sbx_probes_drain(struct sbx_probes *pr, struct audit *a) { (void)pr; (void)a; return 0; }
uint64_t sbx_probes_lost(const struct sbx_probes *pr) { (void)pr; return 0; }
void sbx_probes_stop(struct sbx_probes *pr) { (void)pr; }
