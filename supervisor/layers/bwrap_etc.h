/* bwrap_etc.h — the sandbox's /etc in one bind (the "/etc view"): the host's /etc, with the
 * preload's ld.so.preload added and the secrets below /etc removed, as a read-only OverlayFS that
 * bwrap's parent mounts in a private mount namespace of its own (common/mntns.h) at a directory of
 * the run; bwrap binds it at /etc.
 *
 * Why: bwrap must make /etc/ld.so.preload (the preload named for ld.so, so that an executor that
 * clears its environment is still preloaded), and it cannot create that mount point in a read-only
 * bind of the host's /etc. Without the view /etc is rebuilt entry by entry, ~150 binds, and bwrap
 * (0.8) re-reads the mount table after each: most of a run's start-up. The view is mounted at a
 * directory of the run, never over the host's /etc: bwrap itself, a dynamic program, would read
 * that ld.so.preload. Secrets are whiteouts in the view (absent, ENOENT, as with the per-entry
 * binds), so nothing of them — not even a name to stat — is in the sandbox.
 *
 * Layout: `lower` (in the run's private report directory, removed with it) holds ld.so.preload
 * and one whiteout (character device 0/0, which the kernel lets anyone create) per existing
 * secret below /etc, with the directories leading to it; the overlay is lowerdir=`lower`:/etc,
 * no upper (read-only), nosuid, nodev, mounted at `view`.
 *
 * Promise:
 * - bwrap_etc_wanted(): reads only: the view applies — SBXSUP_ETC_OVERLAY is not "0", the host
 *   has no /etc/ld.so.preload of its own, the kernel has overlayfs, nothing is mounted below the
 *   host's /etc (an overlay would hide such a mount, e.g. a container's resolv.conf), and `lower`
 *   is a plain path (no ',', ':' or '\\', which the overlay's options would misread).
 * - bwrap_etc_make(): creates `lower` as above (the secrets: the policy's masks below /etc that
 *   exist on the host now) and the empty mount point `view`. 0, or -1 with errno.
 * - bwrap_etc_hides(): a mask path the view removes, so bwrap must not mask it: below /etc, and a
 *   whiteout for it in `lower` — or, before `lower` exists (the plan, --dry-run), one that
 *   bwrap_etc_make would create (it exists on the host). A secret that appeared after the view
 *   was made is not hidden by it: bwrap masks it as usual.
 * - bwrap_etc_mount(): in the forked child, inside its private mount namespace: the overlay at
 *   `view`. 0 or -1 with errno.
 */
#ifndef SBX_BWRAP_ETC_H
#define SBX_BWRAP_ETC_H

#include <stdbool.h>
#include "policy.h"

bool bwrap_etc_wanted(const char *lower);
int bwrap_etc_make(const struct policy *p, const char *lower, const char *view, const char *preload);
bool bwrap_etc_hides(const char *lower, const char *path);
int bwrap_etc_mount(const char *lower, const char *view);

#endif
