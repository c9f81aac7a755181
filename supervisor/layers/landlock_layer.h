/* landlock_layer.h — the Landlock layer; its entry in the layer table is layer_landlock.
 *
 * Promise: sbx_landlock_apply() restricts the calling process (the exec stage, just before execve)
 * with the compiled policy's directory-level grants (pol_dir_*): read / write / execute per
 * directory, TCP connect/bind ports from the network rules (ABI >= 4, only when every granted
 * host has a port and the network is not unrestricted), signal and abstract-unix-socket scoping
 * (ABI >= 6), the audit flags where the ABI has them. Each right the ABI lacks is dropped with its
 * reason in `degraded`; nothing is silently widened.
 *
 * Rights: handled = every fs right the ABI knows (REFER from 2, TRUNCATE from 3, IOCTL_DEV from 5).
 * POL_READ -> READ_FILE|READ_DIR (+EXECUTE with POL_EXEC); POL_WRITE -> WRITE_FILE, REMOVE_*,
 * MAKE_{DIR,REG,SOCK,FIFO,SYM}, REFER, TRUNCATE, IOCTL_DEV (never MAKE_CHAR/MAKE_BLOCK). A table
 * entry that is a file gets only the file rights. Entries whose path does not exist are skipped.
 * The root of a procfs is never granted as a tree (that would expose every /proc/<pid>): only its
 * top-level regular files are; /proc/self resolves, in the stage, to the command's own /proc/<pid>.
 * Network: POL_NET_LIST with a port on every rule -> CONNECT_TCP allowed on those ports, BIND_TCP
 * denied; POL_NET_NONE -> all TCP connect/bind denied; POL_NET_ANY or a port-less rule -> TCP not
 * handled (recorded in `net_why`). Audit flags (ABI >= 7): LOG_SAME_EXEC_OFF|LOG_NEW_EXEC_ON, so
 * the kernel audit log records the executor's denials, not the stage's.
 * no_new_privs is set before landlock_restrict_self.
 *
 * Exec (escape finding 1): without code:exec, sbx_landlock_apply_cmd() grants EXECUTE to no
 * directory at all, only to the files the command's own execve needs, as file rules: the resolved
 * command, its ELF interpreter (PT_INTERP — the kernel opens it with FMODE_EXEC, so Landlock checks
 * EXECUTE on it too), and for a `#!` script its interpreter (one level; for `#!/usr/bin/env NAME`
 * also NAME found on the stage's PATH) and that interpreter's PT_INTERP. Any later execve of
 * another program fails with EACCES. Known limit: the dynamic loader keeps EXECUTE, so a raw
 * `execve("/lib64/ld-linux-x86-64.so.2", ["ld.so", "/bin/true"])` still starts a program (ld.so maps
 * it with mmap, which Landlock does not check); seccomp's exec gate (seccomp_layer.h) refuses that one.
 * With code:exec the directory EXECUTE grants of the table stay, plus the command file.
 */
#ifndef SBX_LANDLOCK_LAYER_H
#define SBX_LANDLOCK_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "policy.h"

struct sbx_landlock_result {
	int abi;
	bool fs, net, scope;
	char degraded[512];        /* "" or "abi 3: no TCP port rules; ..." */
	char net_why[160];         /* why TCP is not handled ("" when it is) */
	char flags[96];            /* restrict_self flags set ("log_same_exec_off|log_new_exec_on" or "none") */
	unsigned rules, skipped;   /* fs rules added; table entries skipped (path missing) */
	char notes[256];           /* "" or how a grant was narrowed to fit Landlock (e.g. /proc) */
	bool exec_cmd_only;        /* EXECUTE only on the files in `exec` (no code:exec) */
	char exec[1024];           /* files granted EXECUTE when exec_cmd_only, space-separated */
};

/* Returns the ABI (>=1) when usable, 0 when not (why). */
int sbx_landlock_probe(char *why, size_t whylen);
/* = sbx_landlock_apply_cmd(p, NULL, ...). */
int sbx_landlock_apply(const struct policy *p, struct sbx_landlock_result *r, char *why, size_t whylen);
/* As above, and the command about to be exec'd (absolute, resolved path; may be NULL) gets
 * READ_FILE|EXECUTE on that one file: the initial command is exempt from the policy (SPEC), but
 * Landlock would otherwise refuse to execve it when it lies outside every executable directory.
 * Without code:exec (pol_code_exec false) and with a command: no directory keeps EXECUTE; only the
 * command, its ELF interpreter and its `#!` interpreter chain get it (see above). NULL command: the
 * table's grants as they are (old behaviour). */
int sbx_landlock_apply_cmd(const struct policy *p, const char *cmd, struct sbx_landlock_result *r,
			   char *why, size_t whylen);
/* As _cmd, knowing whether netfilter enforces the network (issue 15): then Landlock handles no TCP
 * right at all — netfilter refuses and reports, Landlock would refuse first and silently. Without
 * netfilter the port rules are the backstop, plus BIND_TCP on the ports of granted loopback hosts. */
int sbx_landlock_apply_net(const struct policy *p, const char *cmd, bool netfilter,
			   struct sbx_landlock_result *r, char *why, size_t whylen);
/* As _net, saying whether a write grant holding a manifest deny's match may be entered entry by
 * entry around it (landlock_deny.h: carve_writes, true when no seccomp deny decision stands behind
 * Landlock), and whether /etc is bwrap's /etc view (etc_view: the secrets below /etc are whiteouts,
 * absent; etc_view.h). With etc_view the policy's /etc tree is one rule on /etc with its entries'
 * rights instead of one rule per entry (each a cold lookup through the overlay); without it (direct
 * mode, /etc bound with masks) Landlock leaves the secrets out itself, entry by entry.
 * _net = _stage(..., true, false). Read grants are always entered around a match; how is said in
 * r->notes. */
int sbx_landlock_apply_stage(const struct policy *p, const char *cmd, bool netfilter, bool carve_writes,
			     bool etc_view, struct sbx_landlock_result *r, char *why, size_t whylen);
/* The ruleset sbx_landlock_apply_stage would make (etc_view: as there), for --dry-run. */
cJSON *sbx_landlock_plan(const struct policy *p, int abi, bool etc_view);

/* Which source puts Landlock's refusals in the stream (issue 15), for run.start.level.landlock:
 * the probes (kernel.violation contained), else the seccomp file/exec reporter, else the preload
 * (it refuses first for the programs it sees), else none — then what the kernel audit subsystem
 * does with them (ABI >= 7 logs denials there; asked with AUDIT_GET at run time: "off", "not
 * readable", or enabled but not read into the stream by this version). Returns buf. */
const char *sbx_landlock_denials(int abi, bool probes, bool reporter, bool preload, char *buf, size_t len);

/* Lower level (used by the functions above and by tests): the grants given directly. */
struct sbx_landlock_spec {
	const struct pol_dir *dirs;
	size_t ndirs;
	enum pol_net_mode net_mode;
	const uint16_t *ports;     /* TCP ports of the rules (POL_NET_LIST) */
	size_t nports;
	bool portless;             /* some POL_NET_LIST rule has no port */
	const char *cmd;           /* may be NULL */
	int abi_cap;               /* 0: the kernel's ABI; N > 0: behave as ABI min(N, kernel) (tests) */
	bool exec_cmd_only;        /* no code:exec: strip POL_EXEC from dirs; EXECUTE on cmd's exec chain only */
	const uint16_t *bind_ports; /* TCP ports of granted loopback hosts: BIND_TCP allowed there */
	size_t nbind_ports;
	bool netfilter;            /* netfilter enforces (and reports) the hosts: TCP not handled */
	bool own_netns;            /* the run's own network namespace (pol_own_netns): its loopback is
				    * the run's on every port, the way out is the gateway: TCP not handled */
	const struct policy *links; /* a dir entry reaching through a link an object this policy does
				    * not grant gets no rule (grant_link.h sbx_grant_fd_followed, on the
				    * descriptor the rule is made from); NULL: entries taken as they are */
};
int sbx_landlock_apply_spec(const struct sbx_landlock_spec *s, struct sbx_landlock_result *r,
			    char *why, size_t whylen);

/* The entry's stage op (layer.h): applies the ruleset in the exec stage. */
struct layer_stage;
int sbx_landlock_stage(struct layer_stage *s, bool on);

#endif
