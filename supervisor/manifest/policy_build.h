/* policy_build.h — manifest -> compiled policy blob (see policy/policy.h for the format's promise).
 *
 * Promise: pol_build() turns a validated manifest into the one blob every layer evaluates. It adds
 * the SPEC's built-in rules (system paths read-only, the needed /etc parts, never-readable secrets,
 * other users' homes, workspace and private /tmp writable, /dev/null and friends, /proc/self), and
 * resolves granted host names when `resolve` is true (for the kernel layers). The result is
 * malloc'd, 8-byte aligned, and passes pol_open(). `o` may be NULL (all defaults). On failure
 * returns -1 with a message in err ("capabilities[1].hints[0]: ...", or what went wrong).
 *
 * Built-in rules (texts as pol_rule_text shows them):
 *   grant read (+exec in the dir table): builtin:system (/usr /bin /sbin /lib /lib64 /lib32 /opt
 *     /var/lib/python3), builtin:code (code dir), builtin:etc (the /etc parts programs need),
 *     builtin:sbxsup (opts->extra_read)
 *   grant write of one file (no dir-table entry): builtin:report (opts->extra_write)
 *   grant read+write: builtin:workspace, builtin:tmp, builtin:dev (/dev/null and friends)
 *   grant read: builtin:proc (/proc/self/ **, /proc/thread-self/ **, /proc/ *), builtin:sys
 *   hard deny: builtin:secret (/etc/shadow* /etc/gshadow* /etc/sudoers* /etc/sudoers.d ~/.ssh
 *     ~/.gnupg ~/.aws ~/.config/gcloud ~/.netrc ~/.docker/config.json)
 *   soft deny: builtin:home-blanket (/root, /home/ *)
 *   net: builtin:dns (each resolv.conf nameserver, port 53) when a host name is granted
 * Manifest rules: "capabilities[i].hints[j]: GLOB", "deny[i]: GLOB", "capabilities[i].hosts[j]: H".
 * A `deny` glob written with a leading "**" component matches anywhere ("**" + "/.env" denies
 * every .env), not only under the workspace; hints are used as the manifest expanded them.
 */
#ifndef SBX_POLICY_BUILD_H
#define SBX_POLICY_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include "manifest.h"

struct pol_build_opts {
	bool resolve;              /* resolve host names with getaddrinfo at build time */
	uid_t uid;
	/* Added (all optional: zero/NULL = default). */
	const char *const *extra_read; /* NULL-terminated: more read+exec paths (the preload library,
					* the sbxsup binary), rule text "builtin:sbxsup: PATH" */
	const char *const *extra_write; /* NULL-terminated: single files the executor's own machinery
					 * writes (the preload's report socket: a connect to an
					 * AF_UNIX path is a write of it); write to exactly that
					 * path, no directory entry; rule text "builtin:report: PATH" */
	const char *tmp_dir;       /* the writable tmp dir; default "/tmp" (no-bwrap modes pass a
				    * private per-run dir) */
	const char *resolv_conf;   /* nameservers for builtin:dns; default "/etc/resolv.conf" */
};

int pol_build(const struct manifest *m, const struct pol_build_opts *o, void **blob, size_t *len,
	      char *err, size_t errlen);

/* Copy a blob into a sealed (F_SEAL_WRITE|F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_SEAL), read-only memfd.
 * Returns the fd (not O_CLOEXEC: it is meant to be inherited) or -1 with errno. */
int pol_to_sealed_memfd(const void *blob, size_t len);

#endif
