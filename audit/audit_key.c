/* audit_key.c — see audit_key.h. */
#include "audit_key.h"
#include "msg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ROOT_KEY_DIR "/var/lib/sbxsup"

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sbx_verrf(err, errlen, e, fmt, ap);
	va_end(ap);
	return -1;
}

void audit_key_id(const unsigned char k[AUDIT_KEY_BYTES], char id[AUDIT_KEY_ID_LEN + 1])
{
	unsigned char h[AUDIT_KEY_ID_LEN / 2];
	crypto_generichash(h, sizeof h, k, AUDIT_KEY_BYTES, NULL, 0);
	sodium_bin2hex(id, AUDIT_KEY_ID_LEN + 1, h, sizeof h);
}

void audit_key_mac_hex(const struct audit_key *k, const void *buf, size_t len, char out[65])
{
	unsigned char mac[AUDIT_MAC_BYTES];
	crypto_generichash(mac, sizeof mac, buf, len, k->k, AUDIT_KEY_BYTES);
	sodium_bin2hex(out, 65, mac, sizeof mac);
}

bool audit_key_id_valid(const char *s)
{
	size_t i;
	for (i = 0; s && s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s && i == AUDIT_KEY_ID_LEN;
}

int audit_key_dir(char *out, size_t outlen, char *err, size_t errlen)
{
	if (geteuid() == 0) {
		snprintf(out, outlen, "%s", ROOT_KEY_DIR);
		return 0;
	}
	const char *xdg = getenv("XDG_STATE_HOME");
	int n;
	if (xdg && xdg[0] == '/') {
		n = snprintf(out, outlen, "%s/sbxsup", xdg);
	} else {
		const char *home = getenv("HOME");
		if (!home || home[0] != '/') {
			struct passwd *pw = getpwuid(geteuid());
			home = pw ? pw->pw_dir : NULL;
		}
		if (!home || home[0] != '/')
			return fail(err, errlen, 0, "audit key: no absolute HOME or XDG_STATE_HOME");
		n = snprintf(out, outlen, "%s/.local/state/sbxsup", home);
	}
	if (n < 0 || (size_t)n >= outlen)
		return fail(err, errlen, 0, "audit key: directory path too long");
	return 0;
}

/* Parse key file bytes: 32 raw bytes, or 64 hex digits with an optional trailing newline. */
static int parse_key(const unsigned char *b, size_t n, struct audit_key *k)
{
	if (n == AUDIT_KEY_BYTES) {
		memcpy(k->k, b, AUDIT_KEY_BYTES);
	} else if (n == 64 || (n == 65 && b[64] == '\n')) {
		size_t got = 0;
		if (sodium_hex2bin(k->k, AUDIT_KEY_BYTES, (const char *)b, 64, NULL, &got, NULL) != 0 ||
		    got != AUDIT_KEY_BYTES)
			return -1;
	} else {
		return -1;
	}
	audit_key_id(k->k, k->id);
	return 0;
}

/* Read a key from an open fd. strict: owner euid, no group/other permission bits. */
static int read_key_fd(int fd, const char *shown, bool strict, struct audit_key *k, char *err, size_t errlen)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return fail(err, errlen, errno, "audit key %s", shown);
	if (!S_ISREG(st.st_mode))
		return fail(err, errlen, 0, "audit key %s: not a regular file", shown);
	if (strict && st.st_uid != geteuid())
		return fail(err, errlen, 0, "audit key %s: owned by uid %u, not by uid %u (refusing it)", shown,
			    (unsigned)st.st_uid, (unsigned)geteuid());
	if (strict && (st.st_mode & 077))
		return fail(err, errlen, 0, "audit key %s: mode %04o, must be 0600 (chmod 600 it)", shown,
			    (unsigned)(st.st_mode & 07777));
	unsigned char buf[80];
	ssize_t n = read(fd, buf, sizeof buf);
	int rc = 0;
	if (n < 0)
		rc = fail(err, errlen, errno, "audit key %s", shown);
	else if (parse_key(buf, (size_t)n, k) < 0)
		rc = fail(err, errlen, 0, "audit key %s: not a key (32 raw bytes or 64 hex digits)", shown);
	sodium_memzero(buf, sizeof buf);
	return rc;
}

int audit_key_load(const char *path, struct audit_key *k, char *err, size_t errlen)
{
	if (sodium_init() < 0)
		return fail(err, errlen, 0, "libsodium initialisation failed");
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return fail(err, errlen, errno, "audit key %s", path);
	int rc = read_key_fd(fd, path, false, k, err, errlen);
	close(fd);
	return rc;
}

/* mkdir -p of the parents of dir (0700 for what we create), then dir itself (0700). */
static int make_dirs(char *dir, char *err, size_t errlen)
{
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int r = mkdir(dir, 0700);
		int e = errno;
		*p = '/';
		if (r < 0 && e != EEXIST)
			return fail(err, errlen, e, "audit key directory: mkdir of a parent of %s", dir);
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return fail(err, errlen, errno, "audit key directory %s", dir);
	return 0;
}

/* Open the key directory (never through a symlink) and make sure only the euid can use it. */
static int open_key_dir(const char *dir, bool create, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s", dir);
	if (create && make_dirs(tmp, err, errlen) < 0)
		return -1;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return fail(err, errlen, errno, "audit key directory %s", dir);
	struct stat st;
	if (fstat(dfd, &st) < 0 || st.st_uid != geteuid()) {
		close(dfd);
		return fail(err, errlen, 0, "audit key directory %s: not owned by uid %u (refusing it)", dir,
			    (unsigned)geteuid());
	}
	if ((st.st_mode & 077) && fchmod(dfd, 0700) < 0) {
		int e = errno;
		close(dfd);
		return fail(err, errlen, e, "audit key directory %s: chmod 700", dir);
	}
	return dfd;
}

/* Create audit.key in dfd: a fresh temporary file, linked into place only when complete. */
static int create_key(int dfd, const char *dir, char *err, size_t errlen)
{
	struct audit_key k;
	randombytes_buf(k.k, sizeof k.k);
	char tmpname[64];
	int fd = -1;
	for (int tries = 0; tries < 16 && fd < 0; tries++) {
		snprintf(tmpname, sizeof tmpname, ".audit.key.%08x", randombytes_random());
		fd = openat(dfd, tmpname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		sodium_memzero(&k, sizeof k);
		return fail(err, errlen, errno, "audit key: cannot create a key file in %s", dir);
	}
	int rc = 0;
	if (write(fd, k.k, sizeof k.k) != (ssize_t)sizeof k.k || fsync(fd) < 0)
		rc = fail(err, errlen, errno, "audit key: writing %s/%s", dir, tmpname);
	close(fd);
	sodium_memzero(&k, sizeof k);
	if (rc == 0 && linkat(dfd, tmpname, dfd, AUDIT_KEY_FILE, 0) < 0 && errno != EEXIST)
		rc = fail(err, errlen, errno, "audit key: linking %s/%s", dir, AUDIT_KEY_FILE);
	(void)unlinkat(dfd, tmpname, 0);
	return rc;
}

int audit_key_host(struct audit_key *k, bool create, char *path_out, size_t pathlen, char *err,
		   size_t errlen)
{
	if (sodium_init() < 0)
		return fail(err, errlen, 0, "libsodium initialisation failed");
	char dir[PATH_MAX], path[PATH_MAX + 16];
	if (audit_key_dir(dir, sizeof dir, err, errlen) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/%s", dir, AUDIT_KEY_FILE);
	if (path_out)
		snprintf(path_out, pathlen, "%s", path);
	int dfd = open_key_dir(dir, create, err, errlen);
	if (dfd < 0)
		return -1;
	int fd = openat(dfd, AUDIT_KEY_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT && create) {
		if (create_key(dfd, dir, err, errlen) < 0) {
			close(dfd);
			return -1;
		}
		fd = openat(dfd, AUDIT_KEY_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	}
	int e = errno;
	close(dfd);
	if (fd < 0)
		return fail(err, errlen, e, "audit key %s", path);
	int rc = read_key_fd(fd, path, true, k, err, errlen);
	close(fd);
	return rc;
}

/* ---- keyring ------------------------------------------------------------------------------------ */

static int keys_push(struct audit_keys *ks, const struct audit_key *k)
{
	for (size_t i = 0; i < ks->n; i++)
		if (strcmp(ks->keys[i].id, k->id) == 0)
			return 0;
	if (ks->n == ks->cap) {
		size_t nc = ks->cap ? ks->cap * 2 : 8;
		struct audit_key *nk = sodium_allocarray(nc, sizeof *nk);
		if (!nk)
			return -1;
		if (ks->n)
			memcpy(nk, ks->keys, ks->n * sizeof *nk);
		sodium_free(ks->keys);
		ks->keys = nk;
		ks->cap = nc;
	}
	ks->keys[ks->n++] = *k;
	return 0;
}

int audit_keys_add(struct audit_keys *ks, const char *path, char *err, size_t errlen)
{
	if (sodium_init() < 0)
		return fail(err, errlen, 0, "libsodium initialisation failed");
	struct stat st;
	if (stat(path, &st) < 0)
		return fail(err, errlen, errno, "key %s", path);
	if (S_ISDIR(st.st_mode)) {
		char **nd = realloc(ks->dirs, (ks->ndirs + 1) * sizeof *nd);
		if (!nd)
			return fail(err, errlen, ENOMEM, "key %s", path);
		ks->dirs = nd;
		if (!(ks->dirs[ks->ndirs] = strdup(path)))
			return fail(err, errlen, ENOMEM, "key %s", path);
		ks->ndirs++;
		char p[PATH_MAX + 16];
		struct audit_key k;
		snprintf(p, sizeof p, "%s/%s", path, AUDIT_KEY_FILE);
		if (audit_key_load(p, &k, NULL, 0) == 0 && keys_push(ks, &k) < 0)
			return fail(err, errlen, ENOMEM, "key %s", path);
		sodium_memzero(&k, sizeof k);
		return 0;
	}
	struct audit_key k;
	if (audit_key_load(path, &k, err, errlen) < 0)
		return -1;
	int rc = keys_push(ks, &k) < 0 ? fail(err, errlen, ENOMEM, "key %s", path) : 0;
	sodium_memzero(&k, sizeof k);
	return rc;
}

const struct audit_key *audit_keys_find(struct audit_keys *ks, const char *id)
{
	if (!audit_key_id_valid(id))
		return NULL;
	for (size_t i = 0; i < ks->n; i++)
		if (strcmp(ks->keys[i].id, id) == 0)
			return &ks->keys[i];
	for (size_t d = 0; d < ks->ndirs; d++) {
		for (int f = 0; f < 2; f++) {
			char p[PATH_MAX + 32];
			struct audit_key k;
			snprintf(p, sizeof p, "%s/%s%s", ks->dirs[d], id, f == 0 ? ".key" : "");
			if (audit_key_load(p, &k, NULL, 0) < 0)
				continue;
			bool match = strcmp(k.id, id) == 0; /* a file named by an id must hold that key */
			int rc = match ? keys_push(ks, &k) : 0;
			sodium_memzero(&k, sizeof k);
			if (match && rc == 0)
				return &ks->keys[ks->n - 1];
		}
	}
	return NULL;
}

void audit_keys_free(struct audit_keys *ks)
{
	sodium_free(ks->keys); /* sodium_free wipes */
	for (size_t i = 0; i < ks->ndirs; i++)
		free(ks->dirs[i]);
	free(ks->dirs);
	memset(ks, 0, sizeof *ks);
}
