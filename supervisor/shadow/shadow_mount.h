/* shadow_mount.h — the executor's view of a shadow workspace: an OverlayFS whose lower layer is
 * the real workspace and whose upper/work layers are the run's store directories
 * (shadow_store.h), mounted over the workspace path in a mount namespace of the run.
 *
 * Promise: nothing here touches the supervisor's own mount namespace.
 * - shadow_enter_bwrap(): in the forked child, before it execs bwrap. As root it unshares a mount
 *   namespace; as a normal user a user namespace (mapping only its own uid/gid) and a mount
 *   namespace. Propagation is made private, then the overlay is mounted over the workspace path;
 *   bwrap then binds the workspace from this namespace, so the executor sees it at its usual path.
 * - shadow_mount_at(): in the run's init of the direct mode (already in its own mount namespace,
 *   sandbox_direct.h): the overlay over the workspace path.
 * - shadow_overlay_fd(): root's direct mode, in the parent: a detached overlay mount built from
 *   descriptors (lower: the workspace's idmapped clone, upper/work: idmapped clones of the store's
 *   directories), moved over the workspace in the run's mount namespace by sandbox_direct.c.
 * With the copy fallback (sp->copy) the same functions bind the store's copy of the workspace
 * (nosuid, nodev) over the workspace path instead of mounting an overlay.
 * In a user namespace the overlay is mounted with `userxattr` (its whiteouts stay character
 * devices 0/0, its opaque markers become user.overlay.opaque). The overlay is nosuid and nodev.
 * Each returns 0 (an fd for shadow_overlay_fd) or -1 with errno and one line on stderr.
 */
#ifndef SBX_SHADOW_MOUNT_H
#define SBX_SHADOW_MOUNT_H

#include <stdbool.h>

struct shadow_plan {
	bool on;                     /* --shadow / workspace.mode "shadow" */
	bool copy;                   /* the copy fallback (shadow_copy.h): `tree` is bound, no overlay */
	const char *mech;            /* "overlay", "reflink" or "copy" */
	char store[4200];            /* the run's store directory ("" until the set-up made it) */
	char upper[4300], work[4300];
	char tree[4300];             /* copy: the workspace's copy */
	char workspace[4096];
};

int shadow_enter_bwrap(const struct shadow_plan *sp);
int shadow_mount_at(const struct shadow_plan *sp, bool userxattr);
int shadow_overlay_fd(int lower_fd, const char *lower, int upper_fd, int work_fd, bool userxattr);

#endif
