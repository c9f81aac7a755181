/* landlock_deny.h — Landlock's part of a manifest `deny` (issue 28). Landlock cannot subtract a file
 * from a granted directory, so a granted directory that holds an existing match of a deny (the
 * policy's masks whose rule is a manifest deny: the ones a deny names literally and the ones the
 * run's start-up walk found, deny_expand.h) is granted entry by entry instead, leaving the matches
 * out — the same idea as the policy's own /etc tree (policy_build.c pb_dirs_except_secrets).
 *
 * Promise: ll_deny_carve() rewrites the directory table `in` into `c->dirs`: an entry with read or
 * write access that has a match strictly below it becomes POL_LIST on the directory itself (plus
 * LL_POL_NAMES for a write grant: names may be made and removed there, no file content is granted
 * by it), its children each with the entry's access, a child holding a match entered the same way,
 * the matches themselves left out; an entry that a match covers whole is dropped. Every other entry
 * is copied. Consequence, documented: a file created after the start directly in a directory so
 * entered is not readable or writable through Landlock (the entry-by-entry grants were made at the
 * start; nor can a program made there run: exec needs READ_FILE), so a write grant is carved only
 * when `carve_writes` (no seccomp deny decision behind it: the seccomp layer off and no filter of
 * the stage able to have a listener, e.g. --layers landlock inside another sandbox); otherwise the
 * decision of the layer's, the sensor's or the guard's filter holds the denies in write grants.
 * Bounded: at most LL_CARVE_MAX entries per grant; a grant past the bound is kept whole and named
 * in `c->note` (the seccomp layer's decision holds it). Nothing is allocated into `in`.
 */
#ifndef SBX_LANDLOCK_DENY_H
#define SBX_LANDLOCK_DENY_H

#include <stdbool.h>
#include <stddef.h>
#include "policy.h"

/* A Landlock-private access bit on a carved directory (never in a policy blob): MAKE_* (not
 * MAKE_CHAR/MAKE_BLOCK), REMOVE_*, REFER — the directory's names, not its files' contents. */
#define LL_POL_NAMES 0x100u
#define LL_CARVE_MAX 8192

struct ll_carve {
	struct pol_dir *dirs;
	size_t ndirs, cap;
	char **owned;             /* the paths made here (children), freed by ll_deny_carve_free */
	size_t nowned, cowned;
	unsigned carved;          /* grants entered entry by entry */
	char note[256];           /* "" or the grants kept whole (too large, or writes left to seccomp) */
};

/* 0, or -1 (out of memory). */
int ll_deny_carve(const struct policy *p, const struct pol_dir *in, size_t n, bool carve_writes,
		  struct ll_carve *c);
void ll_deny_carve_free(struct ll_carve *c);

#endif
