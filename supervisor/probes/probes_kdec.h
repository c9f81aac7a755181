/* probes_kdec.h — compiling a run's policy into the probes' in-kernel decision maps.
 *
 * Promise: pr_kdec_fill() puts into the maps of bpf/probes.h "In-kernel decisions", under the run's
 * slot only, every directory or file S of the policy's dir table (pol_dir_get) for which
 * pol_subtree() proves an access allowed for S and everything below it — keyed by S's (device,
 * inode) as the kernel numbers them (lstat now; symlinks, "/", /proc and what does not exist are
 * skipped) with S's path in the walk's encoding — and the floating "**" "/NAME" names
 * (pol_leaf_names) the kernel must leave to user space; then turns the slot's decision on. A policy
 * with a floating glob of another form turns it off (nothing provable). pr_kdec_clear() turns the
 * slot off and removes its entries (a run's stop, a slot reclaimed from a dead owner, a re-plan).
 * Pure map updates: no record changes meaning — what the kernel allows is exactly what pr_decide()
 * would allow without an event (tests/unit/test_probes.c compares both on a real tree).
 */
#ifndef SBX_PROBES_KDEC_H
#define SBX_PROBES_KDEC_H

#include <stdint.h>
#include "policy.h"

struct pr_kdec_fds { int safe, leaves, kdec; };

struct pr_kdec_stats {
	unsigned subtrees;     /* entries put into the safe map */
	unsigned leaves;       /* basenames left to user space */
	bool on;
};

/* 0, or -1 with errno (the slot is then left off: every record goes to user space). */
int pr_kdec_fill(const struct pr_kdec_fds *m, uint32_t slot, const struct policy *p,
		 struct pr_kdec_stats *st);
void pr_kdec_clear(const struct pr_kdec_fds *m, uint32_t slot);
/* S's path in the walk's encoding (names leaf first, each NUL-terminated): its length, or 0 when
 * it is "/" or does not fit `len` (<= PR_KD_ENC). */
size_t pr_kdec_encode(const char *path, char *out, size_t len);

#endif
