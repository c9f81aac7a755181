/* probes_share.h — the automatic shared probe set: loaded once by the first probed run, used by the
 * runs that overlap it, gone when the last one ends.
 *
 * Promise: pr_share_acquire() gives the run the set pinned under PR_AUTO_DIR — opening its maps and
 * holding its links (no libbpf object, no kernel BTF parse, ~1 ms) — or, when there is none, loads
 * one in a child process (the kernel BTF parse and the verifier's work never grow the supervisor's
 * memory), pins it there, and then opens it the same way. Reference count: each holder keeps a
 * shared flock on the pin directory (released by the kernel when the holder dies, SIGKILL too);
 * every transition (load + pin, the last one out unpinning) happens under an exclusive flock on
 * the bpffs root, so no run ever sees a half-pinned set and no set is unpinned under a run that
 * just found it. pr_share_release() drops the run's reference and, when no holder is left, removes
 * the pins (the kernel detaches the programs when the last link fd is closed). pr_share_reclaim()
 * does that last step for a holder that died (the janitor calls it when the supervisor was
 * killed); a stale set found at acquire time with no holder is reused, or removed when it does
 * not open (another layout, half pinned by a killed loader). The operator's `sbxsup probes load`
 * set (PR_PIN_DIR) is separate and never touched here.
 */
#ifndef SBX_PROBES_SHARE_H
#define SBX_PROBES_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include "probes_bpf.h"

struct pr_share {
	int dirfd;          /* holds LOCK_SH on PR_AUTO_DIR while the run uses the set; -1 */
	bool loaded_here;   /* this run loaded and pinned it */
};

/* 0 (L opened on the shared set, links held, s holding its reference), -1 (why: the caller loads
 * privately). */
int pr_share_acquire(struct pr_share *s, struct pr_loaded *L, char *why, size_t whylen);
/* Drop the reference; the last holder unpins. Safe on a struct that acquired nothing. */
void pr_share_release(struct pr_share *s);
/* Unpin the shared set when nobody holds it (a dead holder's leftovers). 1 unpinned, 0 not. */
int pr_share_reclaim(void);
/* Holders now (a probe: takes no lock). -1 when no set is pinned. */
int pr_share_holders(void);

#endif
