/* etc_view.h — the sandbox's /etc as both wrappers make it (bwrap's: run/wrap_bwrap.c and the
 * bwrap entry's argv; the direct sandbox's: run/sd_fixed.c, run/wrap_direct.c), neither wrapper's
 * own: the "/etc view" in one bind and the executor's own passwd, group and resolv.conf.
 *
 * The view: the host's /etc, with the preload's ld.so.preload added and the secrets below /etc
 * removed, as a read-only OverlayFS that bwrap's parent mounts in a private mount namespace of its
 * own (common/mntns.h) at a directory of the run; bwrap binds it at /etc.
 *
 * Why: bwrap must make /etc/ld.so.preload (the preload named for ld.so, so that an executor that
 * clears its environment is still preloaded), and it cannot create that mount point in a read-only
 * bind of the host's /etc. Without the view /etc is rebuilt entry by entry, ~150 binds, and bwrap
 * (0.8) re-reads the mount table after each: most of a run's start-up. The view is mounted at a
 * directory of the run, never over the host's /etc: bwrap itself, a dynamic program, would read
 * that ld.so.preload. Secrets are whiteouts in the view (absent, ENOENT, as with the per-entry
 * binds), so nothing of them — not even a name to stat — is in the sandbox.
 *
 * Layout: a tmpfs of the child's own at `view` (nothing of it on the host: files created in the
 * host's /tmp cost an inode allocation each, which a disk file system with much churn makes slow)
 * holds `lower`: ld.so.preload and one whiteout (character device 0/0) per secret below /etc whose
 * directory exists on the host, with the directories leading to it; the overlay is
 * lowerdir=`lower`:/etc, no upper (read-only), nosuid, nodev, mounted over that tmpfs at `view`.
 * A whiteout for a name the host does not have hides nothing and shows nothing, so a secret that
 * appears below an existing directory while the run lives stays absent too.
 *
 * Promise:
 * - etc_view_wanted(): reads only: the view applies — SBXSUP_ETC_OVERLAY is not "0", the host
 *   has no /etc/ld.so.preload of its own, the kernel has overlayfs, nothing is mounted below the
 *   host's /etc (an overlay would hide such a mount, e.g. a container's resolv.conf), and `lower`
 *   is a plain path (no ',', ':' or '\\', which the overlay's options would misread).
 * - etc_view_make(): on the host, in the run's private directory: the empty mount point `view`.
 *   0, or -1 with errno.
 * - etc_view_hides(): a mask path the view removes, so bwrap must not mask it: any path below
 *   /etc (bwrap's masks are only for paths that exist, so their directory exists, and
 *   etc_view_mount() whiteouts every mask whose directory exists).
 * - etc_view_mount(): in the forked child, inside its private mount namespace: the tmpfs, `lower`
 *   (a path inside `view`) and the overlay at `view`, as above; with `files`, `lower` also holds
 *   the run's passwd and group (copies of the memfds etc_identity_memfds made) and, when
 *   the host has an /etc/resolv.conf to cover, the run's resolv.conf: the view shows them over the
 *   host's, so bwrap binds none of them (three mounts fewer, each costing bwrap a mount table
 *   parse). 0 or -1 with errno.
 * - etc_identity_make(): the text of the run's /etc/passwd and /etc/group (malloc'd, the
 *   caller frees them with etc_identity_free): the host's files without the
 *   entries of the executor's uid/gid or of the name SBX_EXEC_USER, and without the name of the
 *   host user of that uid in any group's member list, plus SBX_EXEC_USER's own entries (uid, gid
 *   inside the run, `home` as its home, /bin/sh). So whoami, id and getent name the executor
 *   "sbxsup" and getpwuid() gives the run's HOME, never a host user's name or home.
 *   etc_identity_memfds() puts them in two new memfds (close-on-exec, offset 0) that bwrap
 *   binds with --ro-bind-data at /etc/passwd and /etc/group (bwrap_layer.h etc_identity) when /etc
 *   is bound from the host (masks or per-entry binds), and that the /etc view holds copies of
 *   (etc_view_mount); direct mode's init binds them over /etc/passwd
 *   and /etc/group (and /etc/resolv.conf when id->resolv: SBX_ETC_RESOLV)
 *   (sd_fixed_identity: the text is made before, in the supervisor, so the init
 *   needs one descriptor at a time whatever RLIMIT_NOFILE says). 0, or -1 with errno (memfds: none
 *   left open).
 * - etc_view_overlay(): the bare overlay lowerdir=`lower`:/etc at `at` (read-only, nosuid,
 *   nodev); for direct mode's /etc (sd_fixed.c), whose lower holds only ld.so.preload.
 */
#ifndef SBX_ETC_VIEW_H
#define SBX_ETC_VIEW_H

#include <stdbool.h>
#include <sys/types.h>
#include "policy.h"

#define SBX_EXEC_USER "sbxsup"  /* the executor's user and group name inside every run */

/* Who the executor is inside the run, for its passwd and group entries; resolv: the run's own
 * /etc/resolv.conf too (SBX_ETC_RESOLV: the gateway's DNS stub, docs/network.md). */
struct etc_identity { uid_t uid; gid_t gid; const char *home; bool resolv; };

bool etc_view_wanted(const char *lower);
int etc_view_make(const char *view);
bool etc_view_hides(const char *path);
/* The run's own files in the view (etc_view_mount): memfds read from offset 0, -1 for none. */
struct etc_view_files { int passwd_fd, group_fd, resolv_fd; };
int etc_view_mount(const struct policy *p, const char *lower, const char *view, const char *preload,
		    const struct etc_view_files *files);
/* The run's /etc/resolv.conf where the gateway answers DNS (netns.h SBX_NETNS_DNS_ADDR). */
#define SBX_ETC_RESOLV "# the run's own resolver: sbxsup's gateway answers granted names only\n" \
		       "nameserver 127.0.0.53\n"
struct etc_identity_text { char *passwd, *group; size_t passwd_len, group_len; const char *resolv; };
int etc_identity_make(const struct etc_identity *id, struct etc_identity_text *t);
void etc_identity_free(struct etc_identity_text *t);
int etc_identity_memfds(const struct etc_identity *id, int *pw_fd, int *gr_fd);
/* A memfd holding SBX_ETC_RESOLV (close-on-exec, offset 0) for bwrap's --ro-bind-data at
 * /etc/resolv.conf (bwrap_layer.h resolv_fd). -1 with errno. */
int etc_resolv_memfd(void);
int etc_view_overlay(const char *lower, const char *at);

#endif
