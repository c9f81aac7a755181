/* probes_share.h — the automatic shared probe set: loaded once by the first probed run, used by the
 * runs that overlap it, kept loaded for an idle period after the last one ends (SBXSUP_PROBES_IDLE
 * seconds, default PR_IDLE_DEFAULT; 0: gone when the last one ends).
 *
 * Promise: pr_share_acquire() gives the run the set pinned under PR_AUTO_DIR — opening its maps and
 * holding its links (no libbpf object, no kernel BTF parse, ~1 ms) — or, when there is none, loads
 * one in a child process (the kernel BTF parse and the verifier's work never grow the supervisor's
 * memory), pins it there, and then opens it the same way. Reference count: each holder keeps a
 * shared flock on the pin directory (released by the kernel when the holder dies, SIGKILL too);
 * every transition (load + pin, the last one out unpinning) happens under an exclusive flock on
 * the bpffs root, so no run ever sees a half-pinned set and no set is unpinned under a run that
 * just found it. The loader pins the programs too. pr_share_release() drops the run's reference
 * and, when no holder is left, removes the link pins of the hot hooks (sys_enter, sys_exit,
 * kmem_cache_free detach: an idle set costs the host's system calls and frees nothing; the
 * process-tree and io_uring hooks stay attached, finding no run; probes_bpf.h), stamps the pin directory's mtime with the deadline (now + the idle
 * period) and leaves maps and programs pinned — the next acquire attaches the pinned programs again
 * (no load, no verification) —, or removes the pins when the idle period is 0 (the kernel detaches the programs when the last link fd
 * is closed). pr_share_reclaim() does that last step for a holder that died (the janitor calls it
 * when the supervisor was killed). pr_share_expire() removes an idle set whose deadline has passed
 * (the janitor of every run without probes calls it at the start; `sbxsup probes unload` forces it);
 * a probed run reuses an idle set whatever its deadline. A stale set found at acquire time with no
 * holder is reused, or removed when it does not open (another layout, half pinned by a killed
 * loader). The operator's `sbxsup probes load` set (PR_PIN_DIR) is separate and never touched here.
 * The reference counting, the gate, the idle deadline and the expiry are bpf_share.h's.
 */
#ifndef SBX_PROBES_SHARE_H
#define SBX_PROBES_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include "bpf_share.h"
#include "probes_bpf.h"

#define PR_IDLE_DEFAULT BS_IDLE_DEFAULT  /* seconds an idle shared set stays loaded */
#define PR_IDLE_MAX BS_IDLE_MAX

struct pr_share {
	int dirfd;          /* holds LOCK_SH on PR_AUTO_DIR while the run uses the set; -1 */
	bool loaded_here;   /* this run loaded and pinned it */
};

/* 0 (L opened on the shared set, links held, s holding its reference), -1 (why: the caller loads
 * privately). */
int pr_share_acquire(struct pr_share *s, struct pr_loaded *L, char *why, size_t whylen);
/* Drop the reference and close L's link fds; the last holder detaches the programs and stamps the
 * idle deadline (or unpins with an idle period of 0). Safe on a struct that acquired nothing. */
void pr_share_release(struct pr_share *s, struct pr_loaded *L);
/* A dead holder's release: when nobody holds the set, stamp its deadline or unpin. 1 unpinned, 0 not. */
int pr_share_reclaim(void);
/* SBXSUP_PROBES_IDLE (seconds, 0..PR_IDLE_MAX), PR_IDLE_DEFAULT when unset or not a number. */
long pr_share_idle_secs(void);
/* Unpin an idle set (no holder) past its deadline, or whatever its deadline with force. Without
 * force it never waits for the gate (busy: nothing done). 1 unpinned, 0 not. */
int pr_share_expire(bool force);
/* The deadline of an idle set (no holder), -1 when none is pinned or a run holds it. */
time_t pr_share_idle_until(void);
/* Holders now (a probe: takes no lock). -1 when no set is pinned. */
int pr_share_holders(void);

#endif
