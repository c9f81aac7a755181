/* landlock_layer.h — the Landlock layer. Owner: kernel-layers work (issue 5).
 *
 * Promise: sbx_landlock_apply() restricts the calling process (the exec stage, just before execve)
 * with the compiled policy's directory-level grants (pol_dir_*): read / write / execute per
 * directory, TCP connect/bind ports from the network rules (ABI >= 4, only when every granted
 * host has a port and the network is not unrestricted), signal and abstract-unix-socket scoping
 * (ABI >= 6), the audit flags where the ABI has them. Each right the ABI lacks is dropped with its
 * reason in `degraded`; nothing is silently widened.
 */
#ifndef SBX_LANDLOCK_LAYER_H
#define SBX_LANDLOCK_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>
#include "policy.h"

struct sbx_landlock_result {
	int abi;
	bool fs, net, scope;
	char degraded[512];        /* "" or "abi 3: no TCP port rules; ..." */
};

/* Returns the ABI (>=1) when usable, 0 when not (why). */
int sbx_landlock_probe(char *why, size_t whylen);
int sbx_landlock_apply(const struct policy *p, struct sbx_landlock_result *r, char *why, size_t whylen);
cJSON *sbx_landlock_plan(const struct policy *p, int abi);

#endif
