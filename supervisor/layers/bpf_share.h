/* bpf_share.h — one BPF set loaded once, pinned under a versioned bpffs directory and shared by the
 * runs that overlap it, kept loaded for an idle period after the last one ends. Used by the probes
 * (probes_share.h) and by netfilter (netfilter_share.h); what a set is — how it is loaded, opened,
 * detached and unpinned — is the caller's, given as bs_ops.
 *
 * Promise: bs_acquire() opens the set pinned under ops->dir for the run (ops->open), or, when there
 * is none, loads and pins one in a child process (the verifier's and libbpf's work never grow the
 * supervisor's memory) and then opens it. Reference count: each holder keeps a shared flock on the
 * pin directory (released by the kernel when the holder dies, SIGKILL too); every transition (load +
 * pin, the last one out detaching or unpinning) happens under an exclusive flock on the bpffs root,
 * so no run ever sees a half-pinned set and no set is unpinned under a run that just found it.
 * bs_release() drops the run's reference (ops->drop first, under the gate) and, when no holder is
 * left, keeps the set idle — ops->detach, then the pin directory's mtime stamped with the deadline
 * (now + the idle period) — or unpins it when the idle period is 0 or the detach fails. A set that
 * does not open (another layout, half pinned by a killed loader) and that nobody holds is removed
 * and loaded again. bs_reclaim() is the last step for a holder that died (the janitor), bs_expire()
 * removes an idle set past its deadline (or whatever its deadline, forced).
 */
#ifndef SBX_BPF_SHARE_H
#define SBX_BPF_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define BS_IDLE_DEFAULT 600L         /* seconds an idle shared set stays loaded */
#define BS_IDLE_MAX (7L * 24 * 3600)

struct bs_ops {
	const char *dir;                 /* the pin directory, versioned by layout */
	const char *idle_env;            /* the idle period's variable (seconds) */
	/* Load and pin under dir (runs in a child process). 0 or -1 (why). */
	int (*load_pin)(const char *dir, char *why, size_t whylen);
	/* Open the pinned set into arg (fresh: just loaded by this run). 0, 1 (nothing pinned),
	 * -1 (unusable: why). On failure arg holds nothing. */
	int (*open)(const char *dir, void *arg, bool fresh, char *why, size_t whylen);
	/* Called under the gate before the reference is dropped (close what keeps programs attached). */
	void (*drop)(void *arg);
	/* The last holder left: detach what the set keeps attached; 0 lets it idle, -1 unpins. NULL: 0. */
	int (*detach)(const char *dir);
	/* Remove every pin under dir (and dir). */
	void (*unpin)(const char *dir);
};

struct bs_ref {
	int dirfd;          /* holds LOCK_SH on ops->dir while the run uses the set; -1 */
	bool loaded_here;   /* this run loaded and pinned it */
};

int bs_acquire(const struct bs_ops *o, struct bs_ref *s, void *arg, char *why, size_t whylen);
/* Safe on a ref that acquired nothing (ops->drop is not called then). */
void bs_release(const struct bs_ops *o, struct bs_ref *s, void *arg);
/* A dead holder's release: when nobody holds the set, keep it idle or unpin. 1 unpinned, 0 not. */
int bs_reclaim(const struct bs_ops *o);
/* ops->idle_env (seconds, 0..BS_IDLE_MAX), BS_IDLE_DEFAULT when unset or not a number. */
long bs_idle_secs(const struct bs_ops *o);
/* Unpin an idle set (no holder) past its deadline, or whatever its deadline with force. Without
 * force it never waits for the gate (busy: nothing done). 1 unpinned, 0 not. */
int bs_expire(const struct bs_ops *o, bool force);
/* The deadline of an idle set (no holder), -1 when none is pinned or a run holds it. */
time_t bs_idle_until(const struct bs_ops *o);
/* 1 held, 0 idle (takes no lock), -1 when no set is pinned. */
int bs_holders(const struct bs_ops *o);
/* Run fn under the gate (the exclusive flock on the bpffs root). 0, or -1 when it cannot lock. */
int bs_locked(void (*fn)(void *), void *arg);

/* /sys/fs/bpf is a bpffs (mounted there when missing). 0, or -1 with why. */
int bs_ensure_fs(char *why, size_t whylen);

#endif
