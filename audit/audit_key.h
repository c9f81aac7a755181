/* audit_key.h — the secret key that authenticates the audit stream (docs/audit-keys.md).
 *
 * Promise: a key is 32 random bytes. Its id is the lowercase hex of the unkeyed BLAKE2b-64 of
 * those bytes (16 hex digits; `b2sum -l 64 KEYFILE` prints the same). The MAC of a line is keyed
 * BLAKE2b with a 32-byte output (libsodium crypto_generichash with the key; Python:
 * hashlib.blake2b(data, key=key, digest_size=32)) over the same bytes the unkeyed stream hashed
 * (the line before `,"hash":`), as 64 lowercase hex digits. (Keyed BLAKE2b, not HMAC-SHA-256:
 * libsodium's BLAKE2b is ~3x faster here, which keeps the writer above 200 000 lines/s.)
 *
 * The host key lives in one directory per invoking user: root (euid 0) /var/lib/sbxsup, anyone
 * else $XDG_STATE_HOME/sbxsup (when absolute) or $HOME/.local/state/sbxsup; file `audit.key`,
 * mode 0600, directory 0700, both owned by the euid. audit_key_host() creates them on first use,
 * race-free: the directory with mkdir(0700) and opened O_NOFOLLOW|O_DIRECTORY (refused if it is
 * not owned by the euid or is group/world-accessible); the key written to a fresh O_EXCL|O_NOFOLLOW
 * temporary file, fsync'ed, then linkat()ed to `audit.key` (two first runs racing both end up with
 * the one key that won the link; nobody ever reads a half-written key). Retired keys are kept in
 * the same directory as `<id>.key` (see docs/audit-keys.md: rotation).
 *
 * A key file is read with O_NOFOLLOW and must be a regular file of exactly 32 bytes (raw) or 64
 * hex digits (+ optional newline). Nothing here keeps global state; keys live in the caller's
 * structs (a keyring owns its array; audit_keys_free wipes and frees it).
 */
#ifndef SBX_AUDIT_KEY_H
#define SBX_AUDIT_KEY_H

#include <stdbool.h>
#include <stddef.h>

#define AUDIT_KEY_BYTES 32
#define AUDIT_KEY_ID_LEN 16
#define AUDIT_MAC_BYTES 32
#define AUDIT_KEY_FILE "audit.key"

struct audit_key {
	unsigned char k[AUDIT_KEY_BYTES];
	char id[AUDIT_KEY_ID_LEN + 1];
};

/* The host key directory of the current euid into out. Returns 0, or -1 with a message. */
int audit_key_dir(char *out, size_t outlen, char *err, size_t errlen);
/* Load the host key, creating directory and key when missing (create=true). path_out (may be NULL)
 * gets the key file's path. Returns 0, or -1 with a message (nothing is created when create=false). */
int audit_key_host(struct audit_key *k, bool create, char *path_out, size_t pathlen, char *err,
		   size_t errlen);
/* Load one key file. Returns 0, or -1 with a message. */
int audit_key_load(const char *path, struct audit_key *k, char *err, size_t errlen);
/* id of raw key bytes. */
void audit_key_id(const unsigned char k[AUDIT_KEY_BYTES], char id[AUDIT_KEY_ID_LEN + 1]);
/* Keyed BLAKE2b-256 of buf[0..len) as 64 hex digits + NUL. */
void audit_key_mac_hex(const struct audit_key *k, const void *buf, size_t len, char out[65]);
/* true when s is a well-formed key id (16 lowercase hex digits). */
bool audit_key_id_valid(const char *s);

/* A keyring for `audit verify`: single key files and directories of keys named by id. */
struct audit_keys {
	struct audit_key *keys;  /* loaded keys (owned) */
	size_t n, cap;
	char **dirs;             /* directories searched for <id>.key, then <id> (owned) */
	size_t ndirs;
};
/* Add a FILE (one key) or a DIR (keys named by id; its audit.key, when present, is loaded too). */
int audit_keys_add(struct audit_keys *ks, const char *path, char *err, size_t errlen);
/* The key with this id, loading it from a directory when needed; NULL when unknown. */
const struct audit_key *audit_keys_find(struct audit_keys *ks, const char *id);
void audit_keys_free(struct audit_keys *ks);

#endif
