/* policy.h — the compiled policy: one flat, position-independent, read-only blob.
 *
 * Promise: the supervisor builds the blob once from a parsed manifest (pol_build, policy_build.c);
 * every enforcing or observing part — the preload (from a sealed memfd), the supervisor's
 * `explain`, the probe consumer, the Landlock stage — evaluates the *same* blob with the *same*
 * decision functions below, so no two layers can disagree about what a manifest means.
 *
 * The blob holds offsets, never pointers; pol_open() bounds-checks every offset once, after which
 * the decision functions do no allocation and no system calls. Path decisions cost O(depth of the
 * path + rules sharing a literal prefix), not O(number of rules): rules are indexed by the literal
 * directory prefix before their first glob component (a hash table over prefixes); only "floating"
 * rules with no literal prefix (e.g. "**" + "/.env") are scanned linearly.
 *
 * The byte layout and the writer live in policy_format.h / policy_write.h (private to the policy
 * module and the builder); glob matching in glob.c; decisions and validation in policy.c.
 *
 * libc only: this file and its .c are linked into libsbxpreload.so.
 */
#ifndef SBX_POLICY_H
#define SBX_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define POL_MAGIC   0x4c4f5042u /* "BPOL" little endian */
#define POL_VERSION 1u
#define POL_MAX_BLOB (64u << 20)

/* Access bits. WRITE means any call that can change the file (O_WRONLY/O_RDWR/O_CREAT/O_TRUNC/
 * O_APPEND, unlink, rename, chmod, chown, utimes, truncate, mkdir, link, symlink). EXEC is a read
 * that starts a program; it is allowed when the path is readable AND the manifest has code:exec
 * (the initial command is exempt: that is the caller's business, not the policy's). */
enum pol_access { POL_READ = 1u, POL_WRITE = 2u, POL_EXEC = 4u,
		  POL_LIST = 8u /* dir table only: list this directory's names, no content below it
				 * (Landlock READ_DIR; bwrap binds nothing for it) */,
		  POL_TREE = 16u /* dir table only, on a POL_LIST entry: this directory is a tree
				  * readable as a whole except its hard-denied parts, which the entries
				  * below it (same rule) leave out. Landlock, which cannot subtract,
				  * uses those entries; bwrap binds the tree once, read-only, and hides
				  * the denied parts with the masks (cheaper: one mount, not one per
				  * entry; the masked names stay visible, their contents do not). */ };

enum pol_verdict { POL_ALLOW = 0, POL_DENY = 1 };

/* Rule kinds, in order of strength when several match a path:
 *   POL_R_HARD_DENY  manifest `deny` + the SPEC's never-readable secrets (~/.ssh, /etc/shadow, ...):
 *                    wins over everything.
 *   POL_R_SOFT_DENY  whole-tree blankets (/root, other users' homes): a grant whose literal prefix
 *                    lies strictly inside the blanket (e.g. a workspace under /root) overrides it.
 *   POL_R_GRANT      read or read+write grant (system paths, /etc parts, code dir, workspace,
 *                    /tmp, /dev/null..., fs:read / fs:write hints).
 * No match: denied by the implicit rule POL_RULE_DEFAULT. */
enum pol_rule_kind { POL_R_GRANT = 0, POL_R_SOFT_DENY = 1, POL_R_HARD_DENY = 2, POL_R_NET = 3 };

#define POL_RULE_DEFAULT   0xffffffffu /* "default: not granted" */
#define POL_RULE_NET_ANY   0xfffffffeu /* network unrestricted (autonomy full / cap without hosts) */
#define POL_RULE_NET_NONE  0xfffffffdu /* no network capability */
#define POL_RULE_NO_EXEC   0xfffffffcu /* readable, but the manifest has no code:exec */
#define POL_RULE_NET_OWN   0xfffffffbu /* loopback (or the any-address) of the run's own network
					* namespace (pol_own_netns): inside the run, no grant needed */

struct pol_decision {
	int verdict;      /* POL_ALLOW or POL_DENY */
	uint32_t rule;    /* index into the rule table, or one of POL_RULE_* above */
	uint32_t examined; /* diagnostics: rules tested for this decision (bounded by path depth,
			    * rules sharing a literal prefix and floating rules; not by the total) */
};

/* Network mode of the whole policy. */
enum pol_net_mode { POL_NET_NONE = 0, POL_NET_LIST = 1, POL_NET_ANY = 2 };

/* A read-only view on a validated blob. The struct itself is opaque; it lives inside the blob
 * mapping (no allocation), so it is valid as long as the mapping is. */
struct policy;

/* Validate `len` bytes at `blob` (magic, version, every offset and length in bounds, strings NUL
 * terminated, hash table well formed). Returns the view, or NULL with *why set to a static string.
 * `blob` must be 8-byte aligned (mmap and malloc results are). */
const struct policy *pol_open(const void *blob, size_t len, const char **why);

/* Lexical normalisation: join `path` onto `cwd` when relative, collapse "//", ".", "..", drop a
 * trailing "/". `out` gets an absolute path. Returns 0, or -1 (ENAMETOOLONG) when it does not fit.
 * No system calls: symlinks are the caller's job (the preload resolves them as the kernel would).
 * A relative path with a NULL or relative cwd: -1 (EINVAL). ".." at "/" stays "/". */
int pol_normalize(const char *cwd, const char *path, char *out, size_t outlen);

/* Decide a path access. `path` must be absolute and normalised (pol_normalize); anything else is
 * denied (POL_RULE_DEFAULT). `access` is a combination of enum pol_access (0 counts as READ); all
 * requested bits must be granted by one rule. Strength: a matching hard deny wins; else the grant
 * with the longest literal prefix covering the access competes with the longest soft deny, and
 * the grant wins only when its prefix is strictly longer; else POL_RULE_DEFAULT. EXEC = READ plus
 * code:exec (POL_RULE_NO_EXEC when the manifest lacks it). Returns the verdict (also in
 * out->verdict, which may be NULL). */
int pol_path(const struct policy *p, const char *path, unsigned access, struct pol_decision *out);

/* Decide a path known only as "anc/<unknown components>/tail" (a relative call from a current
 * directory deeper than PATH_MAX: the preload knows an ancestor `anc` of the cwd and the relative
 * `tail`, without "." or "..", or "" for the unknown path itself). Returns the verdict when every rule gives the same answer whatever
 * the unknown middle is — rules covering anc's whole subtree, floating "**"-suffix globs decided on
 * the tail — else -1 (undecidable: the caller refuses). Linear in the number of rules (rare). */
int pol_path_deep(const struct policy *p, const char *anc, const char *tail, unsigned access,
		  struct pol_decision *out);

/* For the probes' in-kernel decision (supervisor/probes/probes_kdec.c): 1 when `access`
 * (POL_READ or POL_WRITE) is allowed for `anc` itself and for every path below it whose last
 * component is not the NAME of a "**" "/NAME" deny (pol_leaf_names), else 0 — a deny for
 * part of the subtree, a deny glob that may match part of it, any other floating deny: not
 * provable. Grants inside the subtree are ignored (a grant never denies). Same strength rules as
 * pol_path. Linear in the number of rules. */
int pol_subtree(const struct policy *p, const char *anc, unsigned access);
/* Call fn with the NAME of each "**" "/NAME" deny, floating or under a literal prefix (NAME
 * literal, one component). Returns 0, or -1 when some floating deny is of another form (then
 * pol_subtree proves nothing). */
int pol_leaf_names(const struct policy *p, void (*fn)(void *arg, const char *name), void *arg);

/* Decide a network peer. family is AF_INET or AF_INET6 (IPv4-mapped IPv6 is decided as IPv4);
 * addr points at 4 or 16 bytes in network order; port in host order (0: "any port" asked, e.g. a
 * connect whose port is not known — then only a rule with no port allows). */
int pol_net_addr(const struct policy *p, int family, const void *addr, uint16_t port,
		 struct pol_decision *out);

/* Decide a name resolution (port 0 = any port). Case-insensitive, trailing dot ignored. A name is
 * allowed when some rule names it (any port, or that port when one is given): a lookup without a
 * port (gethostbyname) of a name granted on some port is allowed (the connect checks the port).
 * With pol_own_netns, "localhost" (and "localhost.", "*.localhost") is the run's own loopback. */
int pol_net_name(const struct policy *p, const char *name, uint16_t port, struct pol_decision *out);

/* Human-readable rule: "deny[0]: ~/.ssh/ **" (the glob as written), "capabilities[1].hints[0]:
 * ~/notes/ **", "capabilities[3].hosts[0]: api.example.com:443", "builtin:system: /usr",
 * "builtin:secret: ~/.ssh", "builtin:etc: /etc/resolv.conf", "builtin:workspace: /w",
 * "builtin:tmp: /tmp", "builtin:dev: /dev/null", "builtin:proc: /proc/self/ **",
 * "builtin:home-blanket: /home/ *", "builtin:dns: 192.168.1.1:53", "builtin:code: DIR",
 * "builtin:sbxsup: PATH", "builtin:sys: ...", and for the pseudo rules "default: not granted",
 * "no code:exec capability", "network: unrestricted", "network: no capability".
 * Unknown index: "unknown rule". Never NULL. */
const char *pol_rule_text(const struct policy *p, uint32_t rule);
/* Is a refusal by `rule` evidence that must never be buried (critical: a never-readable secret or a
 * manifest deny — a hard deny — or a privilege rule)? The preload gives such records precedence
 * when its report queue is full. */
bool pol_rule_urgent(const struct policy *p, uint32_t rule);

/* Whether `rule` is a hard deny (a manifest `deny` or a built-in secret): what the kernel layers'
 * deny enforcement (seccomp_notify.h files_deny_only) refuses, and nothing else. */
bool pol_rule_hard_deny(const struct policy *p, uint32_t rule);
/* The i-th manifest `deny` (rule text "deny[N]: ..."): its absolute glob as the policy matches it
 * ("/" "**" "/.env" for a floating one; the literal prefix is pol_glob_literal_prefix), its rule
 * index in *rule (may be NULL). NULL past the end. Linear in the number of rules. */
const char *pol_manifest_deny(const struct policy *p, size_t i, uint32_t *rule);

bool pol_code_exec(const struct policy *p);
/* The run has a network namespace of its own (no network granted, and bwrap or a mount namespace
 * made it): abstract AF_UNIX names stay inside the run, so binding and connecting them is allowed
 * (issue 17). False: only where the run shares the host's network namespace. */
bool pol_abstract_inside(const struct policy *p);
/* The run has a network namespace of its own (the same flag): its loopback addresses (127.0.0.0/8,
 * ::1) and the any-address (0.0.0.0, ::, for a bind) belong to the run, so pol_net_addr allows
 * them on every port whatever the network mode (rule POL_RULE_NET_OWN); the way out of that
 * namespace is the gateway (docs/network.md). */
bool pol_own_netns(const struct policy *p);
/* pol_own_netns and a network grant (a host list, or unrestricted: every TCP port redirected by
 * nftables): the gateway is the run's way out, its DNS stub the
 * run's resolver (docs/network.md). */
bool pol_gateway(const struct policy *p);
/* The run's /proc belongs to a pid namespace of its own (bwrap, or the direct sandbox with its
 * mount namespace): every /proc/<pid> there is one of the run's processes, so the policy grants
 * reading their process-listing files (builtin:proc-pidns, policy_build.h) — ps, top, pgrep work.
 * False (no pid namespace, the host's pids): only the process's own /proc/self. */
bool pol_own_pidns(const struct policy *p);
/* The identity of sbxsup's own binary (st_dev, st_ino) as the supervisor recorded it: the preload
 * stays passive only in a "__stage" process whose /proc/self/exe is that file (a program merely
 * named "sbxsup" is not the stage). False when none was recorded. */
bool pol_stage_exe(const struct policy *p, uint64_t *dev, uint64_t *ino);
enum pol_net_mode pol_net_mode(const struct policy *p);
const char *pol_executor_name(const struct policy *p);   /* manifest name */
const char *pol_workspace(const struct policy *p);        /* absolute workspace */
const char *pol_home(const struct policy *p);             /* invoking user's home */

/* Directory-level view for layers that work on directories (bwrap, Landlock): each granted hint
 * truncated before its first glob component, with its access (POL_READ, POL_READ|POL_WRITE;
 * POL_EXEC added for system paths and the code dir, and for every readable dir under code:exec).
 * Entries whose directory does not exist are still listed; the consumer skips them.
 * Masks: paths wholly covered by a hard deny, for bwrap to mask when they exist: a literal deny
 * path, the LITERAL part of a "LITERAL/" "**" deny, and /etc/shadow, /etc/gshadow, /etc/sudoers,
 * /etc/sudoers.d. Other deny globs ("**" "/.env", "/etc/shadow*"'s variants) have no mask: the
 * preload and the probes match them. A mask's access is READ|WRITE; its rule is the deny rule.
 * The dir table may list a path whose grant a hard deny partly covers: consumers apply the masks
 * after the dirs. */
struct pol_dir { const char *path; unsigned access; uint32_t rule; };
size_t pol_dir_count(const struct policy *p);
int pol_dir_get(const struct policy *p, size_t i, struct pol_dir *out);
size_t pol_mask_count(const struct policy *p);
int pol_mask_get(const struct policy *p, size_t i, struct pol_dir *out);

/* Network rules, for the kernel layers (netfilter map entries, Landlock ports, DNS resolvers).
 * A name rule appears once per address it resolved to at build time (is_name set, name given). */
struct pol_net {
	int family;            /* AF_INET, AF_INET6, or 0 for a name rule with no resolved address */
	uint8_t addr[16];      /* network order; first 4 bytes for IPv4 */
	uint8_t prefix;        /* CIDR prefix length (32/128 for a single address) */
	uint16_t port;         /* 0 = any */
	bool is_name;
	const char *name;      /* the granted name, or NULL */
	uint32_t rule;
};
size_t pol_net_count(const struct policy *p);
int pol_net_get(const struct policy *p, size_t i, struct pol_net *out);

/* Host name grant match: "*.example.com" matches one or more labels under example.com (never
 * example.com itself); any other pattern matches the name exactly. ASCII case-insensitive; `name`
 * is name[0..len) without a trailing dot. The preload, the policy and the network gateway all
 * decide names with it. */
bool pol_host_match(const char *pattern, const char *name, size_t len);

/* Glob matching on path components (glob.c): '*' matches within one component, '?' one character
 * other than '/', '**' (a whole component) any number of components including none, '\\' makes the
 * next byte literal. Both strings absolute or both relative. Returns true on match. No allocation,
 * no recursion deeper than the number of '**' components (bounded). */
bool pol_glob_match(const char *glob, const char *path);
/* `path` as a glob that matches exactly that path: '*', '?' and '\\' escaped with '\\'. 0, or -1
 * when it does not fit in outlen. */
int pol_glob_escape(const char *path, char *out, size_t outlen);
/* Length of the literal directory prefix of `glob`: the components before the first one holding
 * '*', '?' or '\\'. "/home/u/notes/" "**" -> 13 ("/home/u/notes"); "**" + "/.env" -> 0; "/a/b" -> 4;
 * "/" -> 1; "/" "*" -> 0 (a rule with an empty prefix is "floating": tested on every decision). */
size_t pol_glob_literal_prefix(const char *glob);
bool pol_glob_has_magic(const char *s);

/* The socket allowlist (SPEC v2: only AF_UNIX, AF_INET/AF_INET6 with TCP, UDP and ping, and the
 * netlink family libc needs are ever created). Returns true when (domain, type, protocol) may be
 * created; else false with *err (EAFNOSUPPORT unknown family, EPERM packet/raw, EPROTONOSUPPORT
 * protocol/type, EACCES ping sockets without an unrestricted network) and `what` = "AF_VSOCK",
 * "AF_INET SOCK_DGRAM IPPROTO_UDPLITE", .... net_mode decides ICMP ping sockets (only POL_NET_ANY:
 * no layer filters their peers). Pure. */
bool pol_socket_ok(int domain, int type, int protocol, enum pol_net_mode net_mode, int *err,
		   char *what, size_t whatlen);
/* "AF_INET", "AF_VSOCK", ... or "AF_<n>" in buf. */
const char *pol_family_name(int domain, char *buf, size_t len);

/* Privilege (contract version 3): by no route may the executor create or set a setuid or setgid
 * bit, a device node or a file capability in anything it can write. Every layer asks these two
 * pure predicates (the always-on seccomp filter is built from the same bits). They return the
 * rule text of the refusal (one of POL_PRIV_*), or NULL when the call gains nothing.
 *   POL_PRIV_CHMOD   chmod/fchmod/fchmodat/fchmodat2: the new mode
 *   POL_PRIV_CREATE  open/openat/openat2/creat: the mode, when flags create a file (O_CREAT,
 *                    O_TMPFILE)
 *   POL_PRIV_MKNOD   mknod/mknodat: a character or block device, or the setuid/setgid bits of any
 *                    other type (S_IFREG|04755 makes a setuid regular file)
 * pol_priv_xattr: security.capability (v2 or v3), any other security.* attribute, and a POSIX
 * access ACL on a file whose mode (obj_mode; 0 unknown) holds a setuid or setgid bit. */
enum pol_priv_call { POL_PRIV_CHMOD, POL_PRIV_CREATE, POL_PRIV_MKNOD };
#define POL_PRIV_SETUID  "privilege: setuid bit"
#define POL_PRIV_SETGID  "privilege: setgid bit"
#define POL_PRIV_DEVICE  "privilege: device node"
#define POL_PRIV_FCAPS   "privilege: file capability"
#define POL_PRIV_SECATTR "privilege: security attribute"
/* The rule index a report record carries for a POL_PRIV_* text (pol_rule_text maps it back):
 * POL_RULE_PRIV_FIRST.. ; POL_RULE_DEFAULT for a text that is not one of them. */
#define POL_RULE_PRIV_FIRST 0xfffffff0u
uint32_t pol_priv_rule_id(const char *text);
const char *pol_priv_rule_text(uint32_t rule); /* NULL: not a privilege rule index */
const char *pol_priv_mode(enum pol_priv_call call, uint64_t flags, uint32_t mode);
const char *pol_priv_xattr(const char *name, uint32_t obj_mode);

#endif
