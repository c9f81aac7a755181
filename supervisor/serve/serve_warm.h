/* serve_warm.h — the pre-created sandbox of `sbxsup serve` (serve_warm.c, docs/serve.md "What is
 * warm"): after its first call a child prepares the next run for the same command, options,
 * directory and environment and parks it until the server hands it a matching call.
 */
#ifndef SBX_SERVE_WARM_H
#define SBX_SERVE_WARM_H

#include "serve_call.h"

/* serve_warm.c: the pre-created sandbox loop of a child after its first call (c: that call, the
 * template); never returns. */
__attribute__((noreturn)) void serve_warm_loop(struct serve_call *c, int ch, const struct serve_cfg *cfg);

#endif
