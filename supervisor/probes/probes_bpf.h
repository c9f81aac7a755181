/* probes_bpf.h — loading, attaching, pinning and opening the probes' BPF program set.
 *
 * Promise: pr_bpf_load() loads bpf/probes.bpf.c through its skeleton and attaches the best tier the
 * kernel accepts, trying each tier by loading AND attaching (a load can succeed where an attach
 * fails): syscalls + process tree on tp_btf, else raw_tp; io_uring_submit_req on the same tier
 * when the kernel's BTF has it, else left off with its reason. The result exposes the map fds in
 * `struct pr_maps`, which is all the per-run code (probes_layer.c) needs — the same for a private
 * per-run load and for a set pinned once under bpffs (pr_bpf_pin / pr_bpf_open_pinned).
 * A private load keeps only what it needs once attached: the fds of the maps user space uses and
 * of the links (which hold the programs); the skeleton, its BTF and every other fd are released
 * (fewer descriptors inherited by the run's stage, less memory). Closing the links detaches.
 * Nothing here prints: failures come back as text in `why`. SBXSUP_PROBES_TIER=raw_tp|tp_btf
 * restricts the tiers tried (tests of the fallback, diagnosis).
 */
#ifndef SBX_PROBES_BPF_H
#define SBX_PROBES_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include "bpf/probes.h"

#define PR_PIN_DIR "/sys/fs/bpf/sbxsup/probes"
/* The automatic shared set: pinned by the first run that finds none, opened (links held) by the
 * runs that start while it is there, kept idle (programs pinned, the hot hooks detached) after the last one
 * (probes_share.h). Named by the record layout so sbxsup builds of another layout never meet it,
 * and "warm" since the programs are pinned too: builds that pinned only links and maps
 * (probes-auto-v<N>) would remove the links and maps of an idle set and leave its programs. */
#define PR_AUTO_STR_(x) #x
#define PR_AUTO_STR(x) PR_AUTO_STR_(x)
#define PR_AUTO_DIR "/sys/fs/bpf/sbxsup/probes-warm-v" PR_AUTO_STR(PR_ABI_VERSION_NUM)

struct pr_maps {
	int rings, lost, untracked, armed, tracked, cgroups, owners, config, overflow, lost_ok, live;
	int safe, leaves, kdec, kallow;    /* the in-kernel decision (probes_kdec.h) */
};
#define PR_NMAPS 15

/* links of the tier in use, in this order (names: "link_<program name>" when pinned) */
#define PR_NLINKS 8

struct pr_loaded {
	struct pr_maps m;          /* fds owned by this struct (CLOEXEC) */
	int links[PR_NLINKS];      /* private load: link fds (-1 when pinned or not attached) */
	char link_names[PR_NLINKS][24];
	bool pinned;
	char tier[8];              /* "tp_btf" / "raw_tp" */
	char level[128];           /* "tp_btf: syscalls, sched, io_uring" (tier and hooks attached) */
	char uring_why[128];       /* why io_uring_submit_req is not covered ("" when it is) */
};

/* Functional probe + load: returns 0, or -1 with why. */
int pr_bpf_load(struct pr_loaded *L, char *why, size_t whylen);
/* Pin maps and links of a loaded set under dir (mounting bpffs on /sys/fs/bpf when missing). */
int pr_bpf_pin(struct pr_loaded *L, const char *dir, char *why, size_t whylen);
/* Open a pinned set. Returns 0, 1 when none is pinned (not an error), -1 with why when broken. */
int pr_bpf_open_pinned(const char *dir, struct pr_loaded *L, char *why, size_t whylen);
/* Open the link pins of an opened set too (L->links): while this struct holds them the programs
 * stay attached, even if the pins are removed. 0, or -1 with why. */
int pr_bpf_hold_links(const char *dir, struct pr_loaded *L, char *why, size_t whylen);
/* Pin the programs of the set's links too ("prog_<name>"): the automatic shared set keeps them
 * while idle, detached. 0, or -1 with why. */
int pr_bpf_pin_progs(const struct pr_loaded *L, const char *dir, char *why, size_t whylen);
/* Remove the link pins of the hooks on hot paths (sys_enter, sys_exit, kmem_cache_free) whose
 * program is pinned (they detach when the last link fd closes; maps and programs stay). The
 * process-tree hooks (exec, fork, exit, free) and io_uring's submit stay attached: they run only
 * on those calls and find no run's entry, while each detach + attach again costs a warm run a
 * kernel text patch with a wait on every CPU. 0, or -1 when an unlink failed. */
int pr_bpf_detach_pinned(const char *dir);
/* Attach each pinned program of the tier that has no link pin, and pin the new link ("link_<name>"):
 * an idle set is live again, no load, no verification. 0, or -1 with why. */
int pr_bpf_attach_pinned(const char *dir, const char *tier, char *why, size_t whylen);
/* Remove the pins (the programs detach when the last reference goes). Returns 0 or -1 with why. */
int pr_bpf_unpin(const char *dir, char *why, size_t whylen);
/* Close fds / destroy the skeleton (a private load is detached here). */
void pr_bpf_close(struct pr_loaded *L);
/* Capability and BTF checks only (no load): 1 ok, 0 not (why). */
int pr_bpf_precheck(char *why, size_t whylen);

#endif
