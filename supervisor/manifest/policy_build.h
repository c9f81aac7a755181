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
 *     /var/lib/python3), builtin:code (code dir), builtin:etc (/etc),
 *     builtin:sbxsup (opts->extra_read), builtin:command (opts->command: that file only, exec
 *     allowed without code:exec)
 *   grant read of exactly one directory (its listing; no dir-table entry): builtin:list ("/")
 *   grant write of one file (no dir-table entry): builtin:report (opts->extra_write)
 *   grant read+write: builtin:workspace, builtin:tmp, builtin:dev (/dev/null and friends)
 *   grant read: builtin:proc (/proc/self/ **, /proc/thread-self/ **, /proc/ *), builtin:sys
 *   grant read, own_pidns only: builtin:proc-pidns (/proc listed; /proc/ * /{stat,statm,status,
 *     cmdline,comm,cgroup,wchan,oom_score,...} and the same under /proc/ * /task/ *; never environ)
 *   hard deny: builtin:secret (/etc's secrets: shadow, gshadow, sudoers*, ssh host private keys,
 *     ssl/private, keytabs, stored network/VPN credentials ... — etc_secrets[] in policy_build.c;
 *     ~/.ssh ~/.gnupg ~/.aws ~/.config/gcloud ~/.netrc ~/.docker/config.json)
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
#include "deny_expand.h"

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
	const char *stage_exe;     /* sbxsup's own binary (NULL: none): its (dev, ino) go into the
				    * policy, so only it runs as "__stage" behind a passive preload */
	bool private_root;         /* "/" is the sandbox's own (bwrap): Landlock may let it be listed
				    * (POL_LIST dir entry for builtin:list; READ_DIR is hierarchical in
				    * Landlock, so on the host's "/" it is not given) */
	bool own_netns;            /* the run gets a network namespace of its own (plan_own_netns, run/plan.h):
				    * POL_F_ABSTRACT_INSIDE (pol_own_netns: its loopback is the run's) */
	bool own_pidns;            /* the run's /proc is the procfs of its own pid namespace (bwrap, or
				    * direct mode with a mount namespace): POL_F_OWN_PIDNS and the
				    * builtin:proc-pidns grants (ps, top, pgrep) */
	struct dx_result *deny_walk; /* non-NULL: the existing host files the manifest's denies match
				      * inside the granted directories are added as masks, bounded
				      * (deny_expand.h); what the walk did is written here. NULL (validate,
				      * explain, learn): no walk, only the masks a deny names literally */
	const char *command;       /* absolute path of the command named after "--" (NULL: none):
				    * read+exec of that one file even without code:exec, rule
				    * "builtin:command: PATH" (and its symlink-resolved path) */
};

int pol_build(const struct manifest *m, const struct pol_build_opts *o, void **blob, size_t *len,
	      char *err, size_t errlen);

/* What `sbxsup validate` (and the library's sbx_manifest_load) checks beyond parsing: the manifest
 * compiles (pol_build, host names not resolved, for `uid`) and the blob verifies (pol_open).
 * Returns 0, or -1 with err = "cannot compile the policy: ..." / "the compiled policy does not
 * verify: ...". */
int pol_check(const struct manifest *m, uid_t uid, char *err, size_t errlen);

/* The i-th built-in never-readable path (as a glob; "~/..." for the per-user ones), for
 * `explain`; NULL past the end. buf holds the "~/..." forms. */
const char *pol_build_secret(size_t i, char *buf, size_t len);

/* The absolute path of the command named after "--" as execvp would find it (PATH search on
 * `path_env`, NULL: $PATH), for pol_build_opts.command. 0, or -1 (not found: out is ""). */
int pol_command_path(const char *cmd, const char *path_env, char *out, size_t outlen);

/* Copy a blob into a sealed (F_SEAL_WRITE|F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_SEAL), read-only memfd.
 * Returns the fd (not O_CLOEXEC: it is meant to be inherited) or -1 with errno. */
int pol_to_sealed_memfd(const void *blob, size_t len);

#endif
