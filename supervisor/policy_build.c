/* STUB — to be replaced by issue 2 (foundation). */
#include "policy_build.h"
int pol_build(const struct manifest *m, const struct pol_build_opts *o, void **blob, size_t *len,
	      char *err, size_t errlen)
{ (void)m; (void)o; (void)blob; (void)len; (void)err; (void)errlen; return -1; }
int pol_to_sealed_memfd(const void *blob, size_t len) { (void)blob; (void)len; return -1; }
