/* shadow_copy.h — the shadow workspace's fallback where OverlayFS is not available: a copy of the
 * workspace in the run's store (`<store>/<run>/tree`), bound over the workspace path in the run's
 * mount namespace like the overlay would be.
 *
 * Promise: shadow_copy_tree() copies the workspace into an empty directory without following a
 * symlink: directories, regular files (FICLONE reflink where the file system supports it, else a
 * plain copy), symlinks (as symlinks) and fifos, with their modes, times and (as root) owners;
 * sockets and device nodes are not copied (they are never part of a change set either). Plain-copied
 * bytes are bounded by limit_bytes: above it the copy stops and -1 is returned with a reason naming
 * the limit. *reflinked is true when every regular file was cloned (the mechanism is then
 * "reflink", else "copy").
 * Ownership: the caller owns both descriptors; no global state.
 */
#ifndef SBX_SHADOW_COPY_H
#define SBX_SHADOW_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHADOW_COPY_DEFAULT_MB 1024

int shadow_copy_tree(int src_dir, int dst_dir, uint64_t limit_bytes, bool *reflinked, char *err, size_t errlen);

#endif
