/* policy_build.h — manifest -> compiled policy blob (see policy/policy.h for the format's promise).
 *
 * Promise: pol_build() turns a validated manifest into the one blob every layer evaluates. It adds
 * the SPEC's built-in rules (system paths read-only, the needed /etc parts, never-readable secrets,
 * other users' homes, workspace and private /tmp writable, /dev/null and friends, /proc/self), and
 * resolves granted host names when `resolve` is true (for the kernel layers). The result is
 * malloc'd, 8-byte aligned, and passes pol_open().
 */
#ifndef SBX_POLICY_BUILD_H
#define SBX_POLICY_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include "manifest.h"

struct pol_build_opts {
	bool resolve;              /* resolve host names with getaddrinfo at build time */
	uid_t uid;
};

int pol_build(const struct manifest *m, const struct pol_build_opts *o, void **blob, size_t *len,
	      char *err, size_t errlen);

/* Copy a blob into a sealed (F_SEAL_WRITE|F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_SEAL), read-only memfd.
 * Returns the fd (not O_CLOEXEC: it is meant to be inherited) or -1 with errno. */
int pol_to_sealed_memfd(const void *blob, size_t len);

#endif
