/* changeset.h — what a shadow run changed: the entries, their sizes, and one hash of the set.
 *
 * Promise: cs_from_overlay() reads an OverlayFS upper directory against its lower directory (the
 * real workspace) and lists every change the executor saw: created, modified, deleted, renamed,
 * mode-changed. Deletions are the overlay's whiteouts (a character device 0/0) and its opaque
 * directories (`trusted.overlay.opaque` or, in a user namespace, `user.overlay.opaque` = "y": the
 * lower entries missing from the upper directory are deleted). A copied-up file whose content is
 * the lower file's (a chmod, an open for writing without a write) is a mode change or nothing, never
 * a modification. A rename is never seen as such by the overlay: a created regular file whose
 * content is byte-for-byte a deleted file's is reported as one `renamed` entry (from -> path).
 * cs_from_copy() reads the copy mechanism's full tree the same way: what differs from the real
 * workspace (content, mode, existence, type) is a change; real sockets and devices are never
 * copied, so their absence is not a deletion.
 * Types other than regular files and directories (symlinks, fifos, sockets, devices) and type
 * changes are listed (type "symlink" / "special"), so that commit can refuse them by name.
 * Each entry records the real file's identity at the time of the listing (dev, ino, size, mtime,
 * ctime), which commit compares to refuse a file changed since. The set's hash is BLAKE2b-256
 * (libsodium crypto_generichash) over every entry, sorted by path, as
 * "<kind> <type> <len>:<path> <len>:<from> <mode octal> <size> <content hash>\n" (content hash:
 * BLAKE2b-256 of a regular file's new content, "-" otherwise). Nothing follows a symlink.
 * Ownership: a struct changeset owns its entries and their strings (cs_free).
 */
#ifndef SBX_CHANGESET_H
#define SBX_CHANGESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

enum cs_kind { CS_CREATED, CS_MODIFIED, CS_DELETED, CS_RENAMED, CS_MODE, CS__N };
enum cs_type { CS_T_FILE, CS_T_DIR, CS_T_SYMLINK, CS_T_SPECIAL };

struct cs_real {                 /* the real file when the set was listed */
	bool exists;
	uint64_t dev, ino, size;
	int64_t mtime_ns, ctime_ns;
	mode_t mode;
};

struct cs_entry {
	enum cs_kind kind;
	enum cs_type type;
	char *path;                  /* relative to the workspace, no leading '/' */
	char *from;                  /* renamed: the old path; else NULL */
	mode_t mode;                 /* the new mode (deleted: the old one) */
	mode_t old_mode;             /* the real file's mode (0 when created) */
	uint64_t size;               /* new size (deleted: the old size) */
	char hash[65];               /* BLAKE2b-256 of a regular file's new content, "" otherwise */
	char why[96];                /* type "special"/type change: what it is */
	struct cs_real real;         /* path's real file (renamed: `from`'s) */
};

struct changeset {
	struct cs_entry *e;
	size_t n, cap;
	size_t count[CS__N];
	uint64_t bytes;              /* sum of sizes of created, modified, renamed files */
	char hash[65];
};

const char *cs_kind_name(enum cs_kind k);
const char *cs_type_name(enum cs_type t);

/* List the changes of an overlay: upper_fd and lower_fd are directory fds. 0, or -1 with err. */
int cs_from_overlay(int upper_fd, int lower_fd, struct changeset *cs, char *err, size_t errlen);
/* The same from a full copy of the workspace (shadow_copy.h): tree_fd against lower_fd. */
int cs_from_copy(int tree_fd, int lower_fd, struct changeset *cs, char *err, size_t errlen);
/* Sort by path, count, and hash the set (called by cs_from_overlay and cs_from_json). */
void cs_finish(struct changeset *cs);
/* {"hash","count":{kind:n},"bytes","entries":[...]} and back. */
cJSON *cs_to_json(const struct changeset *cs);
cJSON *cs_summary_json(const struct changeset *cs); /* {"hash","count","bytes"} */
int cs_from_json(const cJSON *j, struct changeset *cs);
/* BLAKE2b-256 of an open file's content from its start, as hex. 0 or -1. */
int cs_hash_fd(int fd, char out[65]);
void cs_free(struct changeset *cs);

#endif
