/* STUB — to be replaced by issue 2 (foundation). */
#include <stdlib.h>
#include "manifest.h"
const char manifest_default_json[] = "{\"sbxsup\":1,\"name\":\"default\"}";
int manifest_parse(const char *buf, size_t len, const char *source, const struct mf_ctx *ctx,
		   struct manifest **out, struct mf_errors *errs)
{ (void)buf; (void)len; (void)source; (void)ctx; (void)errs; *out = NULL; return -1; }
int manifest_load(const char *path, const struct mf_ctx *ctx, struct manifest **out, struct mf_errors *errs)
{ (void)path; (void)ctx; (void)errs; *out = NULL; return -1; }
int manifest_load_default(const struct mf_ctx *ctx, struct manifest **out, struct mf_errors *errs)
{ (void)ctx; (void)errs; *out = NULL; return -1; }
int mf_ctx_init(struct mf_ctx *ctx, const char *ws, char *err, size_t errlen)
{ (void)ctx; (void)ws; (void)err; (void)errlen; return -1; }
void manifest_free(struct manifest *m) { (void)m; }
void mf_errors_free(struct mf_errors *e) { (void)e; }
char *mf_expand_path(const char *hint, const struct mf_ctx *ctx) { (void)hint; (void)ctx; return NULL; }
