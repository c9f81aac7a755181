/* preload_layer.h — the preload layer's entry (layer.h): the supervisor's side of libsbxpreload.so.
 *
 * Promise: detect_preload() finds the library (SBXSUP_PRELOAD_LIB, else beside the sbxsup binary, else ../lib/sbxsup relative to it, so an
 * installed tree works whatever PREFIX it was built with,
 * else SBXSUP_LIBDIR) and returns its real path; the entry turns the layer off for a command that
 * cannot load it (static, not glibc: elfcheck.h) and sets LD_PRELOAD and the report address in the
 * executor's environment (the paths inside bwrap when the run is wrapped).
 */
#ifndef SBX_PRELOAD_LAYER_H
#define SBX_PRELOAD_LAYER_H

#include <stdbool.h>
#include <stddef.h>

/* `sbxsup`: the sbxsup binary the run uses (struct detect's self: the library's helper), NULL or "":
 * /proc/self/exe. Returns 0 (path set to the library's real path) or -1 (why set). */
int detect_preload(const char *sbxsup, char *path, size_t pathlen, char *why, size_t whylen);

/* The entry's stage op (layer.h): preload_stage.c. */
struct layer_stage;
int sbx_preload_stage(struct layer_stage *s, bool on);

#endif
