/* shadow_commit.h — applying a shadow run's change set (or part of it) to the real workspace.
 *
 * Promise: shadow_commit() applies the selected entries of a change set (changeset.h), each on its
 * own and atomically: a file's new content is written to a temporary file in the same directory
 * (O_EXCL, 0600), checked against the content hash the set recorded, given its mode, synced, then
 * renamed over the real file (a new file: renameat2 RENAME_NOREPLACE); a rename is one renameat2.
 * Every real path is reached with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS) from the workspace's descriptor, and every store path likewise from the
 * upper directory's, so no symlink is ever followed and nothing is written outside the workspace.
 * An entry is refused, with a reason, when: its real file changed after the run started (its
 * identity — dev, inode, size, mtime, ctime — differs from the listing, its ctime is after the
 * run's start, it appeared or disappeared); it is a symlink, a fifo, a socket, a device, or a type
 * change (commit never creates them, whatever a symlink points at: inside the workspace or out of
 * it); its mode has the setuid or setgid bit; its mode makes it world-writable (o+w) where the real
 * file was not — unless the caller allows that (SHADOW_ALLOW_WORLD_WRITABLE, `commit
 * --allow-world-writable`, recorded in the audit); its stored content no longer matches the set's
 * hash. shadow_commit_refusal() is the part of these checks that needs only the entry (type and
 * mode), so that `shadow diff` shows what commit will refuse. Permission bits are kept (mode &
 * 0777, directories & 01777). As root, a replaced file keeps its owner and a new one gets its
 * directory's owner.
 * Order: created directories (parents first), then files, modes and renames, then deletions
 * (children first; a directory is removed only when empty).
 * Ownership: the caller owns every descriptor and the change set; the result arrays are the
 * caller's (cJSON_Delete).
 */
#ifndef SBX_SHADOW_COMMIT_H
#define SBX_SHADOW_COMMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "changeset.h"

/* What the caller allows beyond the defaults (never setuid/setgid, devices, fifos, sockets,
 * symlinks). */
enum { SHADOW_ALLOW_WORLD_WRITABLE = 1u };

struct shadow_commit_out {
	cJSON *done;                 /* [{path, kind, type, mode[, from]}] */
	cJSON *refused;              /* [{path, kind, type, mode[, from], reason}] */
	size_t ndone, nrefused;
};

/* sel[i]: entry i is to be applied; committed[i] is set for each entry applied. t0_ns: the run's
 * start (CLOCK_REALTIME_COARSE, ns). Returns 0 (see out for refusals) or -1 (memory). */
int shadow_commit(int ws_fd, int upper_fd, const struct changeset *cs, const bool *sel, int64_t t0_ns,
		  unsigned allow, bool *committed, struct shadow_commit_out *out);
/* Why commit refuses the entry whatever the real workspace holds (its type, its mode), or NULL.
 * The reason is static or written into buf. */
const char *shadow_commit_refusal(const struct cs_entry *e, unsigned allow, char *buf, size_t len);
/* "0644" — the mode an entry would get (perm bits with setuid/setgid/sticky), in buf. */
const char *shadow_mode_str(mode_t m, char *buf, size_t len);

#endif
