/* kviolation.h — one kernel.violation event: the view its two writers fill — the probes' decode of a
 * kernel record (probes_decode.h) and the seccomp entry's reports (seccomp_notify.h: the report-only
 * sensor, the user-notification decisions, the exec stops) — and the one function that writes it,
 * so both sensors write the same event (docs/audit-schema.json "kernel.violation").
 *
 * Promise: kv_emit() writes every field the view holds, bounded (audit_add_str), with the outcome
 * kv_outcome() gives; no other code builds a kernel.violation. The only system call is the
 * /proc/PID/exe lookup when the view names no exe path.
 * Ownership: the view's strings (syscall, sensor, access, rule, outcome, exe_path) are the
 * caller's and must outlive the call.
 */
#ifndef SBX_KVIOLATION_H
#define SBX_KVIOLATION_H

#include <stdbool.h>
#include <stdint.h>
#include "audit.h"

#define KV_REQ_MAX 4096            /* a requested string (the probes' PR_REQ_MAX at most) */
#define KV_EXE_MAX 64              /* the exe's dentry name (the probes' PR_EXE_MAX at most) */
/* The rule of an escape-class call, whichever sensor saw it. */
#define KV_RULE_ESCAPE "escape-class syscall"

struct kv_view {
	bool violation;
	bool is_net;
	bool is_escape;
	bool is_signal;             /* kill family / pidfd_open to a process outside the run */
	bool is_unix;               /* AF_UNIX connect/sendto/sendmsg/bind: path = the socket name */
	int target;                 /* signals: target pid as given (negative: a process group) */
	int sig;                    /* signals: signal number, -1 none (pidfd_open) */
	const char *syscall;        /* "openat", "connect", "io_uring_submit_req", ... */
	const char *sensor;         /* "tp_btf:sys_exit", ... */
	const char *access;         /* "read", "write", "exec", "connect", "bind", "escape" */
	const char *rule;           /* pol_rule_text or a fixed text */
	bool contained;             /* ret < 0 (and not EINPROGRESS for connect) */
	bool failed;                /* the call failed (err is its errno) */
	bool undecidable;           /* the probes could not decide: outcome "undecidable" */
	const char *outcome;        /* NULL, or the outcome to write instead (a report-only sensor:
				     * "attempted" — the call went on to the kernel, result unseen) */
	int err;                    /* errno when contained */
	char path[8192];            /* absolute (path syscalls): a cwd of up to PATH_MAX joined with a
				     * requested string of up to PATH_MAX */
	char requested[KV_REQ_MAX + 1];
	char addr[64];              /* textual (network syscalls) */
	uint16_t port;
	int io_op;                  /* io_uring opcode, -1 otherwise */
	char sock[96];              /* socket(): what the allowlist refuses ("AF_VSOCK", ...), else "" */
	uint32_t pid, tid;
	char comm[17];
	char exe[KV_EXE_MAX + 1];   /* dentry name of the exe (kernel) */
	const char *exe_path;       /* full exe path from the process records, or NULL */
	bool compat;
	uint64_t count;             /* > 0: a summary of this many identical records (ring overflow) */
	bool raced;                 /* PR_EVF_RACED: path = what the kernel used, path_raced = the name
				     * the buffer held when the call began */
	bool raced_denied;          /* raced, and either name is denied (sev critical) */
	char path_raced[8192];
};

/* "breach", "contained" or "undecidable" (v->outcome when set). */
const char *kv_outcome(const struct kv_view *v);
/* Write the kernel.violation event. Returns audit_emit's result. */
int kv_emit(struct audit *a, const struct kv_view *v);

#endif
