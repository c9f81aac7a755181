/* changeset.c — the change set of an overlay's upper directory (changeset.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <sodium.h>

#include "changeset.h"
#include "dirnames.h"

static const char *const kind_names[CS__N] = {"created", "modified", "deleted", "renamed", "mode"};
static const char *const type_names[] = {"file", "dir", "symlink", "special"};

const char *cs_kind_name(enum cs_kind k)
{
	return (unsigned)k < CS__N ? kind_names[k] : "?";
}

const char *cs_type_name(enum cs_type t)
{
	return (unsigned)t <= CS_T_SPECIAL ? type_names[t] : "?";
}

struct walk {
	struct changeset *cs;
	char *err;
	size_t errlen;
	bool failed;
};

static int64_t ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static void real_of(struct cs_real *r, const struct stat *st)
{
	memset(r, 0, sizeof *r);
	if (!st)
		return;
	r->exists = true;
	r->dev = st->st_dev;
	r->ino = st->st_ino;
	r->size = (uint64_t)st->st_size;
	r->mtime_ns = ns(&st->st_mtim);
	r->ctime_ns = ns(&st->st_ctim);
	r->mode = st->st_mode;
}

static enum cs_type type_of(mode_t m)
{
	return S_ISREG(m) ? CS_T_FILE : S_ISDIR(m) ? CS_T_DIR : S_ISLNK(m) ? CS_T_SYMLINK : CS_T_SPECIAL;
}

static const char *special_name(mode_t m)
{
	return S_ISFIFO(m) ? "a fifo" : S_ISSOCK(m) ? "a socket" : S_ISCHR(m) ? "a character device"
	       : S_ISBLK(m) ? "a block device" : S_ISLNK(m) ? "a symlink" : S_ISDIR(m) ? "a directory"
	       : "a regular file";
}

static struct cs_entry *add(struct walk *w, enum cs_kind k, enum cs_type t, const char *path)
{
	struct changeset *cs = w->cs;
	if (cs->n == cs->cap) {
		size_t nc = cs->cap ? cs->cap * 2 : 32;
		struct cs_entry *ne = realloc(cs->e, nc * sizeof *ne);
		if (!ne) {
			w->failed = true;
			return NULL;
		}
		cs->e = ne;
		cs->cap = nc;
	}
	struct cs_entry *e = &cs->e[cs->n];
	memset(e, 0, sizeof *e);
	e->path = strdup(path);
	if (!e->path) {
		w->failed = true;
		return NULL;
	}
	e->kind = k;
	e->type = t;
	cs->n++;
	return e;
}

int cs_hash_fd(int fd, char out[65])
{
	crypto_generichash_state s;
	unsigned char buf[65536], h[32];
	crypto_generichash_init(&s, NULL, 0, sizeof h);
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	for (;;) {
		ssize_t k = read(fd, buf, sizeof buf);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		crypto_generichash_update(&s, buf, (size_t)k);
	}
	crypto_generichash_final(&s, h, sizeof h);
	sodium_bin2hex(out, 65, h, sizeof h);
	return 0;
}

static int hash_at(int dirfd, const char *name, char out[65])
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = cs_hash_fd(fd, out);
	close(fd);
	return rc;
}

static bool xattr_y(int dirfd, const char *name, const char *suffix)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	char v[8], k[64];
	bool y = false;
	for (int i = 0; i < 2 && !y; i++) {
		snprintf(k, sizeof k, "%s.overlay.%s", i ? "user" : "trusted", suffix);
		ssize_t n = fgetxattr(fd, k, v, sizeof v);
		y = n >= 1 && (v[0] == 'y' || !strcmp(suffix, "metacopy"));
	}
	close(fd);
	return y;
}

static void join(char *out, size_t len, const char *rel, const char *name)
{
	snprintf(out, len, "%s%s%s", rel, *rel ? "/" : "", name);
}

/* A real entry (and, for a directory, everything below it) deleted: children first. */
static void deleted_tree(struct walk *w, int lfd, const char *name, const char *rel, const struct stat *st, int depth)
{
	if (S_ISDIR(st->st_mode) && depth < 256) {
		int c = openat(lfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		char **v = c >= 0 ? sbx_dir_names(c, NULL) : NULL;
		for (size_t i = 0; v && v[i]; i++) {
			struct stat cs;
			char cr[4096];
			if (fstatat(c, v[i], &cs, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			join(cr, sizeof cr, rel, v[i]);
			deleted_tree(w, c, v[i], cr, &cs, depth + 1);
		}
		sbx_names_free(v);
		if (c >= 0)
			close(c);
	}
	struct cs_entry *e = add(w, CS_DELETED, type_of(st->st_mode), rel);
	if (!e)
		return;
	e->mode = e->old_mode = st->st_mode;
	e->size = S_ISREG(st->st_mode) ? (uint64_t)st->st_size : 0;
	real_of(&e->real, st);
}

/* The names in a directory of the store, or NULL with the walk failed (too deep, unreadable). */
static char **walk_names(struct walk *w, int fd, const char *rel, int depth, const char *what)
{
	char **v = NULL;
	if (depth > 256)
		snprintf(w->err, w->errlen, "%s: directories nested too deep", rel);
	else if (!(v = sbx_dir_names(fd, NULL)))
		snprintf(w->err, w->errlen, "%s: cannot list %s: %s", rel[0] ? rel : ".", what, strerror(errno));
	w->failed |= !v;
	return v;
}

/* One entry of a store directory (the overlay's upper layer or the copy) and its real twin: what
 * both walks look at first. */
struct walk_ent {
	const char *name;  /* in the store directory sfd */
	const char *rel;   /* workspace-relative path */
	struct stat st;    /* the store's entry */
	struct stat ls;    /* its real twin, when l_ok */
	bool l_ok;         /* the real directory lfd holds an entry of that name */
	int depth;
};

/* What a walk does with one entry: 0 goes on, -1 ends the directory's loop. */
typedef int (*walk_fn)(struct walk *w, int sfd, int lfd, const struct walk_ent *e, void *ctx);

/* Lists store directory sfd (walk_names: too deep or unreadable fails the walk) and calls fn for
 * each entry that can be stat'ed, with its path and its real twin in lfd (-1: none), until fn
 * returns -1 or the walk failed. Returns the names listed (sbx_names_free), NULL if none. */
static char **walk_entries(struct walk *w, int sfd, int lfd, const char *rel, int depth, const char *what,
			   walk_fn fn, void *ctx)
{
	char **names = walk_names(w, sfd, rel, depth, what);
	for (size_t i = 0; names && names[i] && !w->failed; i++) {
		char child[4096];
		struct walk_ent e = {.name = names[i], .rel = child, .depth = depth};
		if (fstatat(sfd, e.name, &e.st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		join(child, sizeof child, rel, e.name);
		e.l_ok = lfd >= 0 && fstatat(lfd, e.name, &e.ls, AT_SYMLINK_NOFOLLOW) == 0;
		if (fn(w, sfd, lfd, &e, ctx) < 0)
			break;
	}
	return names;
}

/* Every real entry of lfd the store directory does not hold (names) is deleted; with copied_only,
 * only the types a copy holds (a socket or device of the real tree is never copied). */
static void deleted_absent(struct walk *w, int lfd, char **names, const char *rel, int depth, bool copied_only);

static void walk_dir(struct walk *w, int ufd, int lfd, const char *rel, bool opaque, int depth);

/* The overlay mechanism: one entry of the upper layer. */
static int dir_entry(struct walk *w, int ufd, int lfd, const struct walk_ent *we, void *ctx)
{
	const bool opaque = *(const bool *)ctx;
	const char *name = we->name, *child = we->rel;
	const struct stat us = we->st, ls = we->ls;
	const bool l_ok = we->l_ok;
	if (S_ISCHR(us.st_mode) && us.st_rdev == 0) { /* a whiteout */
		if (l_ok)
			deleted_tree(w, lfd, name, child, &ls, we->depth);
		return 0;
	}
	struct cs_entry *e;
	if (S_ISDIR(us.st_mode)) {
		bool op = opaque || xattr_y(ufd, name, "opaque");
		int uc = openat(ufd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (uc < 0)
			return 0;
		int lc = -1;
		if (l_ok && S_ISDIR(ls.st_mode)) {
			if ((us.st_mode & 07777) != (ls.st_mode & 07777) && (e = add(w, CS_MODE, CS_T_DIR, child))) {
				e->mode = us.st_mode;
				e->old_mode = ls.st_mode;
				real_of(&e->real, &ls);
			}
			lc = openat(lfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		} else if (l_ok) {
			if ((e = add(w, CS_MODIFIED, CS_T_SPECIAL, child))) {
				e->mode = us.st_mode;
				e->old_mode = ls.st_mode;
				real_of(&e->real, &ls);
				snprintf(e->why, sizeof e->why, "a type change (%s -> a directory)", special_name(ls.st_mode));
			}
			close(uc);
			return 0;
		} else if ((e = add(w, CS_CREATED, CS_T_DIR, child))) {
			e->mode = us.st_mode;
		}
		walk_dir(w, uc, lc, child, op, we->depth + 1);
		close(uc);
		if (lc >= 0)
			close(lc);
		return 0;
	}
	enum cs_type t = type_of(us.st_mode);
	bool same_type = l_ok && (ls.st_mode & S_IFMT) == (us.st_mode & S_IFMT);
	if (t == CS_T_FILE) {
		char h[65] = "";
		if (hash_at(ufd, name, h) < 0) {
			snprintf(w->err, w->errlen, "%s: cannot read the changed file: %s", child, strerror(errno));
			w->failed = true;
			return -1;
		}
		if (same_type) {
			bool same = xattr_y(ufd, name, "metacopy"); /* data still in the lower file */
			char lh[65];
			if (!same && us.st_size == ls.st_size && hash_at(lfd, name, lh) == 0)
				same = !strcmp(lh, h);
			if (same && (us.st_mode & 07777) == (ls.st_mode & 07777))
				return 0; /* copied up, not changed */
			if (!(e = add(w, same ? CS_MODE : CS_MODIFIED, t, child)))
				return -1;
		} else if (l_ok) {
			if (!(e = add(w, CS_MODIFIED, CS_T_SPECIAL, child)))
				return -1;
			snprintf(e->why, sizeof e->why, "a type change (%s -> a regular file)", special_name(ls.st_mode));
		} else if (!(e = add(w, CS_CREATED, t, child))) {
			return -1;
		}
		memcpy(e->hash, h, sizeof h);
		e->size = (uint64_t)us.st_size;
	} else {
		if (!(e = add(w, l_ok ? CS_MODIFIED : CS_CREATED, t, child)))
			return -1;
		snprintf(e->why, sizeof e->why, "%s%s%s", special_name(us.st_mode),
			 l_ok && !same_type ? " replacing " : "", l_ok && !same_type ? special_name(ls.st_mode) : "");
		e->size = S_ISLNK(us.st_mode) ? (uint64_t)us.st_size : 0;
	}
	e->mode = us.st_mode;
	if (l_ok) {
		e->old_mode = ls.st_mode;
		real_of(&e->real, &ls);
	}
	return 0;
}

static void walk_dir(struct walk *w, int ufd, int lfd, const char *rel, bool opaque, int depth)
{
	char **up = walk_entries(w, ufd, lfd, rel, depth, "the upper directory", dir_entry, &opaque);
	if (!up)
		return;
	/* an opaque directory hides every real entry it does not hold itself */
	if (opaque)
		deleted_absent(w, lfd, up, rel, depth, false);
	sbx_names_free(up);
}

/* The copy mechanism: a full tree (shadow_copy.h) against the real workspace. Sockets and devices
 * of the real tree are never copied, so their absence is no deletion. */
static bool copied_type(mode_t m)
{
	return S_ISREG(m) || S_ISDIR(m) || S_ISLNK(m) || S_ISFIFO(m);
}

static void deleted_absent(struct walk *w, int lfd, char **names, const char *rel, int depth, bool copied_only)
{
	if (lfd < 0 || w->failed)
		return;
	char **low = sbx_dir_names(lfd, NULL);
	for (size_t i = 0; low && low[i]; i++) {
		struct stat ls;
		char child[4096];
		if (sbx_names_has(names, low[i]) || fstatat(lfd, low[i], &ls, AT_SYMLINK_NOFOLLOW) < 0 ||
		    (copied_only && !copied_type(ls.st_mode)))
			continue;
		join(child, sizeof child, rel, low[i]);
		deleted_tree(w, lfd, low[i], child, &ls, depth);
	}
	sbx_names_free(low);
}

static void created_tree(struct walk *w, int tfd, const char *name, const char *rel, const struct stat *st, int depth);
static void walk_copy(struct walk *w, int tfd, int lfd, const char *rel, int depth);

/* The copy mechanism: one entry of the copy. */
static int copy_entry(struct walk *w, int tfd, int lfd, const struct walk_ent *we, void *ctx)
{
	(void)ctx;
	const char *name = we->name, *child = we->rel;
	const struct stat ts = we->st, ls = we->ls;
	struct cs_entry *e;
	if (!we->l_ok) {
		created_tree(w, tfd, name, child, &ts, we->depth);
		return 0;
	}
	bool same_type = (ls.st_mode & S_IFMT) == (ts.st_mode & S_IFMT);
	if (!same_type) {
		if ((e = add(w, CS_MODIFIED, CS_T_SPECIAL, child))) {
			e->mode = ts.st_mode;
			e->old_mode = ls.st_mode;
			real_of(&e->real, &ls);
			snprintf(e->why, sizeof e->why, "a type change (%s -> %s)", special_name(ls.st_mode),
				 special_name(ts.st_mode));
		}
		return 0;
	}
	bool mode_differs = (ts.st_mode & 07777) != (ls.st_mode & 07777);
	if (S_ISDIR(ts.st_mode)) {
		if (mode_differs && (e = add(w, CS_MODE, CS_T_DIR, child))) {
			e->mode = ts.st_mode;
			e->old_mode = ls.st_mode;
			real_of(&e->real, &ls);
		}
		int tc = openat(tfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int lc = openat(lfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (tc >= 0)
			walk_copy(w, tc, lc, child, we->depth + 1);
		if (tc >= 0)
			close(tc);
		if (lc >= 0)
			close(lc);
		return 0;
	}
	if (S_ISREG(ts.st_mode)) {
		char h[65], lh[65];
		if (hash_at(tfd, name, h) < 0) {
			snprintf(w->err, w->errlen, "%s: cannot read the changed file: %s", child, strerror(errno));
			w->failed = true;
			return -1;
		}
		bool same = ts.st_size == ls.st_size && hash_at(lfd, name, lh) == 0 && !strcmp(lh, h);
		if (same && !mode_differs)
			return 0;
		if (!(e = add(w, same ? CS_MODE : CS_MODIFIED, CS_T_FILE, child)))
			return -1;
		memcpy(e->hash, h, sizeof h);
		e->size = (uint64_t)ts.st_size;
	} else if (S_ISLNK(ts.st_mode)) {
		char a[4096], b[4096];
		ssize_t na = readlinkat(tfd, name, a, sizeof a - 1), nb = readlinkat(lfd, name, b, sizeof b - 1);
		if (na == nb && na >= 0 && !memcmp(a, b, (size_t)na))
			return 0;
		if (!(e = add(w, CS_MODIFIED, CS_T_SYMLINK, child)))
			return -1;
		snprintf(e->why, sizeof e->why, "a symlink");
		e->size = (uint64_t)ts.st_size;
	} else { /* a fifo: only its mode can differ */
		if (!mode_differs)
			return 0;
		if (!(e = add(w, CS_MODE, CS_T_SPECIAL, child)))
			return -1;
		snprintf(e->why, sizeof e->why, "%s", special_name(ts.st_mode));
	}
	e->mode = ts.st_mode;
	e->old_mode = ls.st_mode;
	real_of(&e->real, &ls);
	return 0;
}

static void walk_copy(struct walk *w, int tfd, int lfd, const char *rel, int depth)
{
	char **tv = walk_entries(w, tfd, lfd, rel, depth, "the copy", copy_entry, NULL);
	if (!tv)
		return;
	deleted_absent(w, lfd, tv, rel, depth, true);
	sbx_names_free(tv);
}

/* Everything at and below a new entry of the copy. */
static void created_tree(struct walk *w, int tfd, const char *name, const char *rel, const struct stat *st, int depth)
{
	struct cs_entry *e = add(w, CS_CREATED, type_of(st->st_mode), rel);
	if (!e)
		return;
	e->mode = st->st_mode;
	if (S_ISREG(st->st_mode)) {
		if (hash_at(tfd, name, e->hash) < 0) {
			snprintf(w->err, w->errlen, "%s: cannot read the new file: %s", rel, strerror(errno));
			w->failed = true;
			return;
		}
		e->size = (uint64_t)st->st_size;
	} else if (!S_ISDIR(st->st_mode)) {
		snprintf(e->why, sizeof e->why, "%s", special_name(st->st_mode));
		e->size = S_ISLNK(st->st_mode) ? (uint64_t)st->st_size : 0;
	} else {
		int tc = openat(tfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (tc >= 0) {
			walk_copy(w, tc, -1, rel, depth + 1);
			close(tc);
		}
	}
}

static void entry_free(struct cs_entry *e)
{
	free(e->path);
	free(e->from);
	e->path = e->from = NULL;
}

/* created file + deleted file of identical content -> one renamed entry */
static void pair_renames(struct changeset *cs, int lower_fd)
{
	for (size_t i = 0; i < cs->n; i++) {
		struct cs_entry *c = &cs->e[i];
		if (c->kind != CS_CREATED || c->type != CS_T_FILE)
			continue;
		for (size_t j = 0; j < cs->n; j++) {
			struct cs_entry *d = &cs->e[j];
			char h[65];
			if (d->kind != CS_DELETED || d->type != CS_T_FILE || d->size != c->size || !d->path)
				continue;
			int fd = openat(lower_fd, d->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
			if (fd < 0)
				continue;
			int rc = cs_hash_fd(fd, h);
			close(fd);
			if (rc < 0 || strcmp(h, c->hash))
				continue;
			c->kind = CS_RENAMED;
			c->from = d->path;
			c->old_mode = d->mode;
			c->real = d->real;
			d->path = NULL;
			d->kind = CS__N; /* dropped below */
			break;
		}
	}
	size_t k = 0;
	for (size_t i = 0; i < cs->n; i++)
		if (cs->e[i].kind != CS__N)
			cs->e[k++] = cs->e[i];
	cs->n = k;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct cs_entry *x = a, *y = b;
	return strcmp(x->path, y->path);
}

void cs_finish(struct changeset *cs)
{
	if (cs->n)
		qsort(cs->e, cs->n, sizeof *cs->e, cmp_entry);
	memset(cs->count, 0, sizeof cs->count);
	cs->bytes = 0;
	crypto_generichash_state s;
	unsigned char h[32];
	crypto_generichash_init(&s, NULL, 0, sizeof h);
	for (size_t i = 0; i < cs->n; i++) {
		const struct cs_entry *e = &cs->e[i];
		cs->count[e->kind]++;
		if (e->kind != CS_DELETED && e->kind != CS_MODE)
			cs->bytes += e->size;
		char line[9000];
		int n = snprintf(line, sizeof line, "%s %s %zu:%s %zu:%s %o %llu %s\n", cs_kind_name(e->kind),
				 cs_type_name(e->type), strlen(e->path), e->path, e->from ? strlen(e->from) : 0,
				 e->from ? e->from : "", (unsigned)(e->mode & 07777), (unsigned long long)e->size,
				 e->hash[0] ? e->hash : "-");
		if (n > 0)
			crypto_generichash_update(&s, (const unsigned char *)line,
						  (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
	}
	crypto_generichash_final(&s, h, sizeof h);
	sodium_bin2hex(cs->hash, sizeof cs->hash, h, sizeof h);
}

/* One listing: the walk (`copy`: walk_copy of tree_fd, else walk_dir of the overlay's upper
 * tree_fd), then the renames paired and the set finished. */
static int cs_list(int tree_fd, int lower_fd, bool copy, struct changeset *cs, char *err, size_t errlen)
{
	memset(cs, 0, sizeof *cs);
	if (sodium_init() < 0) {
		snprintf(err, errlen, "libsodium cannot be initialised");
		return -1;
	}
	struct walk w = {.cs = cs, .err = err, .errlen = errlen};
	err[0] = 0;
	if (copy)
		walk_copy(&w, tree_fd, lower_fd, "", 0);
	else
		walk_dir(&w, tree_fd, lower_fd, "", false, 0);
	if (w.failed) {
		if (!err[0])
			snprintf(err, errlen, "out of memory listing the changes");
		cs_free(cs);
		return -1;
	}
	pair_renames(cs, lower_fd);
	cs_finish(cs);
	return 0;
}

int cs_from_overlay(int upper_fd, int lower_fd, struct changeset *cs, char *err, size_t errlen)
{
	return cs_list(upper_fd, lower_fd, false, cs, err, errlen);
}

int cs_from_copy(int tree_fd, int lower_fd, struct changeset *cs, char *err, size_t errlen)
{
	return cs_list(tree_fd, lower_fd, true, cs, err, errlen);
}

cJSON *cs_summary_json(const struct changeset *cs)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "hash", cs->hash);
	cJSON *c = cJSON_AddObjectToObject(o, "count");
	for (int k = 0; k < CS__N; k++)
		cJSON_AddNumberToObject(c, cs_kind_name((enum cs_kind)k), (double)cs->count[k]);
	cJSON_AddNumberToObject(o, "bytes", (double)cs->bytes);
	return o;
}

cJSON *cs_to_json(const struct changeset *cs)
{
	cJSON *o = cs_summary_json(cs);
	cJSON *a = o ? cJSON_AddArrayToObject(o, "entries") : NULL;
	if (!a) {
		cJSON_Delete(o);
		return NULL;
	}
	for (size_t i = 0; i < cs->n; i++) {
		const struct cs_entry *e = &cs->e[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddItemToArray(a, j);
		cJSON_AddStringToObject(j, "kind", cs_kind_name(e->kind));
		cJSON_AddStringToObject(j, "type", cs_type_name(e->type));
		cJSON_AddStringToObject(j, "path", e->path);
		if (e->from)
			cJSON_AddStringToObject(j, "from", e->from);
		cJSON_AddNumberToObject(j, "mode", (double)e->mode);
		cJSON_AddNumberToObject(j, "old_mode", (double)e->old_mode);
		cJSON_AddNumberToObject(j, "size", (double)e->size);
		if (e->hash[0])
			cJSON_AddStringToObject(j, "hash", e->hash);
		if (e->why[0])
			cJSON_AddStringToObject(j, "why", e->why);
		if (e->real.exists) {
			cJSON *r = cJSON_AddObjectToObject(j, "real");
			char b[32]; /* 64-bit values as decimal strings (a JSON number is a double) */
			snprintf(b, sizeof b, "%llu", (unsigned long long)e->real.dev);
			cJSON_AddStringToObject(r, "dev", b);
			snprintf(b, sizeof b, "%llu", (unsigned long long)e->real.ino);
			cJSON_AddStringToObject(r, "ino", b);
			snprintf(b, sizeof b, "%llu", (unsigned long long)e->real.size);
			cJSON_AddStringToObject(r, "size", b);
			snprintf(b, sizeof b, "%lld", (long long)e->real.mtime_ns);
			cJSON_AddStringToObject(r, "mtime_ns", b);
			snprintf(b, sizeof b, "%lld", (long long)e->real.ctime_ns);
			cJSON_AddStringToObject(r, "ctime_ns", b);
			cJSON_AddNumberToObject(r, "mode", (double)e->real.mode);
		}
	}
	return o;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static uint64_t big(const cJSON *o, const char *k)
{
	const char *s = str(o, k);
	return s ? (uint64_t)strtoull(s, NULL, 10) : 0;
}

int cs_from_json(const cJSON *j, struct changeset *cs)
{
	memset(cs, 0, sizeof *cs);
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "entries"), *it;
	if (!cJSON_IsArray(a))
		return -1;
	struct walk w = {.cs = cs};
	cJSON_ArrayForEach(it, a) {
		const char *kind = str(it, "kind"), *type = str(it, "type"), *path = str(it, "path");
		int k = -1, t = -1;
		for (int i = 0; kind && i < CS__N; i++)
			if (!strcmp(kind, kind_names[i]))
				k = i;
		for (int i = 0; type && i <= CS_T_SPECIAL; i++)
			if (!strcmp(type, type_names[i]))
				t = i;
		if (k < 0 || t < 0 || !path || !*path || path[0] == '/') {
			cs_free(cs);
			return -1;
		}
		struct cs_entry *e = add(&w, (enum cs_kind)k, (enum cs_type)t, path);
		if (!e) {
			cs_free(cs);
			return -1;
		}
		const char *from = str(it, "from"), *h = str(it, "hash"), *why = str(it, "why");
		e->from = from ? strdup(from) : NULL;
		e->mode = (mode_t)num(it, "mode");
		e->old_mode = (mode_t)num(it, "old_mode");
		e->size = (uint64_t)num(it, "size");
		snprintf(e->hash, sizeof e->hash, "%s", h && strlen(h) == 64 ? h : "");
		snprintf(e->why, sizeof e->why, "%s", why ? why : "");
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(it, "real");
		if (cJSON_IsObject(r)) {
			e->real.exists = true;
			e->real.dev = big(r, "dev");
			e->real.ino = big(r, "ino");
			e->real.size = big(r, "size");
			e->real.mtime_ns = (int64_t)big(r, "mtime_ns");
			e->real.ctime_ns = (int64_t)big(r, "ctime_ns");
			e->real.mode = (mode_t)num(r, "mode");
		}
	}
	cs_finish(cs);
	return 0;
}

void cs_free(struct changeset *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		entry_free(&cs->e[i]);
	free(cs->e);
	memset(cs, 0, sizeof *cs);
}
