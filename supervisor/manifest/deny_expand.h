/* deny_expand.h — the host files a manifest `deny` matches inside the granted directories, found
 * when the run starts, for the directory-level layers (issue 28: a deny is a secret the manifest
 * names). bwrap masks each one (bwrap_layer.c, the mask table), Landlock grants the directories on
 * the way to one entry by entry and leaves it out (landlock_layer.c).
 *
 * Promise: deny_expand() walks the writer's directory table (entries with read or write access;
 * never /proc, /sys, /dev; a directory below another walked one only once; the workspace first)
 * and, for every deny glob that can match there — a floating one ("**" "/.env") everywhere but in
 * the never-writable system trees (syspaths.h never_writable: /usr, /etc, ...: read-only, root's
 * and large; the seccomp layer's decision holds matches there), one with a literal prefix only on
 * the way to or below that prefix — adds each existing match as a
 * mask (pol_writer_mask, with the deny's rule). A matching directory is masked whole, not entered.
 * Symbolic links are not followed (a link is decided by its own name; the seccomp layer decides
 * what it resolves to). Bounded: at most `budget` directory entries are looked at and at most
 * DX_MAX_MASKS masks added; when either bound is hit the walk stops and `r->note` says where —
 * what was not walked is held only by the seccomp layer's deny decision (seccomp_notify.h). Files
 * created after the start are never in the table: that decision is what holds them too.
 * Cost: one readdir per directory walked (d_type spares an lstat where the file system fills it)
 * and one glob match per entry and deny (`make bench`: bench_deny).
 */
#ifndef SBX_DENY_EXPAND_H
#define SBX_DENY_EXPAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pol_writer;

#define DX_MAX_MASKS 4096
#define DX_BUDGET    400000   /* directory entries looked at, per run start */

struct dx_deny {
	const char *glob;   /* absolute, normalised ("/" "**" "/.env" floating) */
	uint32_t rule;
};

struct dx_result {
	size_t walked;      /* directory entries looked at */
	size_t matches;     /* masks added */
	bool truncated;     /* a bound was hit: some grant not walked (note says which) */
	char note[256];
};

/* 0, or -1 when the writer failed (out of memory; its error says why). `workspace` (may be NULL)
 * is walked first. */
int deny_expand(struct pol_writer *w, const struct dx_deny *d, size_t nd, const char *workspace,
		size_t budget, struct dx_result *r);

#endif
