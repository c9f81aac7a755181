/* grant_nest.h — which write grants share one mount, for every wrapper (bwrap's argv, the direct
 * sandbox's sd_writable).
 *
 * Promise: a pure predicate on two host paths (stat only; nothing is mounted or kept).
 */
#ifndef SBX_GRANT_NEST_H
#define SBX_GRANT_NEST_H

#include <stdbool.h>

/* A write grant `path` inside the write grant `outer` (both directories, on one file system, of
 * the same owner and group) is not mounted again, in either mode: the outer mount shows it
 * writable with the same idmap, and a mount of its own would make a rename or a hard link between
 * the two fail with EXDEV (the SPEC's "./out" in the workspace: `ln src/f out/`, os.rename, git's
 * object moves; mv falls back to a copy). */
bool sbx_wr_inside(const char *outer, const char *path);

#endif
