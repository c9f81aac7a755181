/* grant_link.h — a granted path that leads through a symbolic link, for every layer that binds or
 * opens grants: bwrap's argv, Landlock's rules, the direct sandbox's binds and idmapped mounts, and
 * the run.start record that names what was left out.
 *
 * Promise: the kernel layers grant an object as the policy decides a call — on the object reached.
 * A grant whose path resolves (every link followed, as mount(2) and open(2) follow them) to an
 * object the policy does not grant for the same access is not followed: no layer binds it, idmaps
 * it or gives Landlock a rule for it, so a link planted at a granted name (an earlier executor in
 * the workspace, another user in /tmp) cannot widen the grant in any mode. Kernel file systems
 * (/proc, /dev, /sys: magic links, nothing an executor can plant) are taken as they are.
 *
 * Ownership: the supervisor scans the policy's directory table once per plan (sbx_grant_links_scan,
 * owned by the run's plan, freed with it) and its consumers read that view by table index; the
 * exec stage, another process, asks sbx_grant_fd_followed of each descriptor Landlock's rules are
 * made from.
 */
#ifndef SBX_GRANT_LINK_H
#define SBX_GRANT_LINK_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

/* false when `path`, granted with `access` (a pol_dir's), reaches through a link an object the
 * policy does not grant for that access (its read/write part; a list-only entry: read). true when
 * the path has no link in it, does not resolve (the layers skip a missing grant themselves), or
 * the object is granted too. `real` (may be NULL) gets the object's path whenever the path leads
 * through a link (followed or not), else "". Pure: realpath(3) and pol_path(). */
bool sbx_grant_followed(const struct policy *p, const char *path, unsigned access, char *real,
			size_t reallen);

/* The same on a descriptor already open at `path` (O_PATH, links followed): the object it holds is
 * what is decided (fdpath.h), so a link swapped in after the check cannot be what a rule or bind
 * is made on. false when `path` reached through a link an object the policy does not grant for
 * `access`; true when the descriptor is `path` itself, deleted, on a kernel file system or not
 * nameable. Landlock's rules are made this way (every entry, a deny's carve too). */
bool sbx_grant_fd_followed(const struct policy *p, const char *path, unsigned access, int fd);

/* sbx_grant_followed for every entry of the policy's directory table (pol_dir_get index i). */
struct sbx_grant_links {
	size_t n;
	char **real;    /* [i]: the object entry i reaches through a link (malloc'd), NULL: no link */
	bool *followed; /* [i]: false: a link to what the policy does not grant */
};
/* 0, or -1 (out of memory; *g empty): the caller fails, it never goes on without the view. */
int sbx_grant_links_scan(const struct policy *p, struct sbx_grant_links *g);
void sbx_grant_links_free(struct sbx_grant_links *g);
/* Entry i, as scanned; NULL g or an index beyond it: followed, no link. */
bool sbx_grant_links_followed(const struct sbx_grant_links *g, size_t i);
const char *sbx_grant_links_real(const struct sbx_grant_links *g, size_t i);

#endif
