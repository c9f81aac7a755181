/* detect.h — which layers this host can give a run, without starting any process.
 *
 * Promise: detect_layers() marks every wanted layer that is available as active (tentatively: the
 * run confirms or withdraws bwrap, Landlock and seccomp when the stage reports, and netfilter and
 * probes when they start) and every other one off with its reason; it never forks or execs (the
 * functional probes that start processes live in `sbxsup status`). It also finds the bwrap binary,
 * the real path of sbxsup and the preload library (SBXSUP_PRELOAD_LIB, else beside the sbxsup
 * binary, else ../lib/sbxsup/ relative to the binary — so an install works whatever PREFIX was at
 * build time —, else SBXSUP_LIBDIR).
 */
#ifndef SBX_DETECT_H
#define SBX_DETECT_H

#include <linux/limits.h>
#include "layers.h"

struct detect {
	char bwrap[PATH_MAX];      /* "" when none */
	char self[PATH_MAX];       /* real path of the running sbxsup */
	char preload[PATH_MAX];    /* real path of libsbxpreload.so, "" when none */
	int landlock_abi;          /* 0 when none */
};

/* Find the preload library. Returns 0 (path set) or -1 (why set). */
int detect_preload(char *path, size_t pathlen, char *why, size_t whylen);
void detect_layers(struct sbx_layers *L, struct detect *d);

#endif
