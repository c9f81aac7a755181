/* shadow_store.h — where a shadow run keeps its changes (docs/shadow.md).
 *
 * Promise: the store of the invoking user is `<state dir>/shadow` (the audit key's directory,
 * audit_key.h: root /var/lib/sbxsup, anyone else $XDG_STATE_HOME/sbxsup or
 * ~/.local/state/sbxsup), one directory per run, `<store>/<run id>`, mode 0700, owned by the euid;
 * the policy builder hard-denies the whole state directory, so no layer lets an executor reach it.
 * A run directory holds `upper/` and `work/` (the overlay's layers) or `tree/` (the copy fallback,
 * shadow_copy.h), `meta.json` (what the run
 * recorded: run id, workspace, start time, mechanism, audit file, change set summary) and, after
 * the run, `changes.json` (changeset.h) and `committed.json` (paths already committed). Nothing
 * here follows a symlink: run ids are 32 lowercase hex digits, every directory is opened
 * O_NOFOLLOW and must be owned by the euid with no group/other access.
 * Ownership: the caller owns the cJSON objects returned; no global state.
 */
#ifndef SBX_SHADOW_STORE_H
#define SBX_SHADOW_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#define SHADOW_META "meta.json"
#define SHADOW_CHANGES "changes.json"
#define SHADOW_COMMITTED "committed.json"

/* The store directory (not created) into out. 0, or -1 with err. */
int shadow_store_root(char *out, size_t outlen, char *err, size_t errlen);
/* true when run is a well-formed run id (32 lowercase hex digits). */
bool shadow_run_id_ok(const char *run);
/* <store>/<run> into out (not created). 0, or -1 with err (bad id, no state dir). */
int shadow_run_dir(const char *run, char *out, size_t outlen, char *err, size_t errlen);
/* Create the store (when missing) and the run's directory with upper/ and work/ (the copy
 * fallback adds tree/ itself). Returns an
 * O_PATH|O_DIRECTORY fd on the run directory, or -1 with err. */
int shadow_store_create(const char *run, char *dir_out, size_t dirlen, char *err, size_t errlen);
/* Open an existing run's directory (checked: a directory owned by the euid, 0700). fd or -1 + err. */
int shadow_store_open(const char *run, char *dir_out, size_t dirlen, char *err, size_t errlen);
/* shadow_store_open, then the run's meta.json into *meta (the caller's). The fd or -1 + err as
 * shadow_store_open; with an fd, *meta is NULL when meta.json is missing or malformed, and err
 * says so ("run R: its meta.json is missing or malformed"). */
int shadow_store_load(const char *run, char *dir_out, size_t dirlen, cJSON **meta, char *err, size_t errlen);
/* Write obj as <dirfd>/name atomically (temp file + rename, 0600). 0 or -1 (errno). */
int shadow_write_json(int dirfd, const char *name, const cJSON *obj);
/* Read <dirfd>/name (O_NOFOLLOW, regular, at most 64 MiB). NULL (errno) when missing or bad. */
cJSON *shadow_read_json(int dirfd, const char *name);
/* Remove the run's directory and everything in it (never following a symlink). 0 or -1 + err. */
int shadow_store_remove(const char *run, char *err, size_t errlen);
/* The run ids in the store, sorted (strv-like NULL-terminated array, free with shadow_ids_free). */
char **shadow_store_list(char *err, size_t errlen);
void shadow_ids_free(char **ids);

#endif
