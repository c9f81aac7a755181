/* etc_view.h — the sandbox's /etc in one bind: the host's /etc with the preload's ld.so.preload
 * added, by a read-only OverlayFS mounted in the bwrap child's private mount namespace at a
 * directory of the run's own (never over the host's /etc: bwrap itself, a dynamic program, would
 * then read that ld.so.preload), which bwrap binds at /etc.
 *
 * Why: bwrap must make /etc/ld.so.preload (the preload named for ld.so, so that an executor that
 * clears its environment is still preloaded). In a read-only bind of the host's /etc it cannot
 * create that mount point, so without this view /etc is rebuilt entry by entry, ~150 binds, and
 * bwrap (0.8) re-reads the mount table after each: most of a run's start-up. With the view, bwrap
 * binds /etc once and masks the secrets as before; what the executor can read is unchanged.
 *
 * Promise:
 * - etc_view_wanted(): pure (reads only): the view applies — SBXSUP_ETC_OVERLAY is not "0", the
 *   host has no /etc/ld.so.preload of its own (then /etc is bound whole anyway), the kernel has
 *   overlayfs, nothing is mounted below the host's /etc (an overlay would hide such a mount, e.g. a
 *   container's resolv.conf), and `lower` is a plain path (no ',', ':' or '\\', which the overlay's
 *   options would misread).
 * - etc_view_make(): creates `lower` (0755) holding ld.so.preload (0644, naming `preload`) and the
 *   empty mount point `view`. Both live in the run's private report directory and go with it.
 *   0, or -1 with errno.
 * - etc_view_mount(): in the forked child, inside a private mount namespace (common/mntns.h): the
 *   overlay at `view` — lower layers /etc on top (every host entry and /etc's own owner and mode
 *   win), then `lower` (only ld.so.preload, which the host lacks); no upper: read-only, nosuid,
 *   nodev. 0 or -1 with errno.
 */
#ifndef SBX_ETC_VIEW_H
#define SBX_ETC_VIEW_H

#include <stdbool.h>

bool etc_view_wanted(const char *lower);
int etc_view_make(const char *lower, const char *view, const char *preload);
int etc_view_mount(const char *lower, const char *view);

#endif
