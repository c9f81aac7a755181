/* shadow_commit.c — applying a change set to the real workspace (shadow_commit.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/openat2.h>

#include "shadow_commit.h"

struct cctx {
	int ws, upper;
	int64_t t0;
	unsigned allow;
	unsigned tmpn;
	struct shadow_commit_out *out;
};

static int beneath(int dirfd, const char *path, int flags)
{
	struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW),
			       .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

/* The directory holding path (an O_PATH fd) and path's last component. */
static int open_parent(int ws, const char *path, const char **base)
{
	const char *sl = strrchr(path, '/');
	if (!sl) {
		*base = path;
		return fcntl(ws, F_DUPFD_CLOEXEC, 3);
	}
	*base = sl + 1;
	char dir[4096];
	if ((size_t)(sl - path) >= sizeof dir)
		return errno = ENAMETOOLONG, -1;
	memcpy(dir, path, (size_t)(sl - path));
	dir[sl - path] = 0;
	return beneath(ws, dir, O_PATH | O_DIRECTORY);
}

static int64_t ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* NULL when the real entry is as the listing saw it; else why not. */
static const char *conflict(const struct cctx *c, int pfd, const char *base, const struct cs_real *r, char *buf,
			    size_t len)
{
	struct stat st;
	int rc = fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW);
	if (!r->exists) {
		if (rc == 0)
			return "the real file appeared after the run started (conflict)";
		if (errno != ENOENT) {
			snprintf(buf, len, "the real file cannot be checked: %s", strerror(errno));
			return buf;
		}
		return NULL;
	}
	if (rc < 0)
		return errno == ENOENT ? "the real file disappeared after the run started (conflict)"
				       : "the real file cannot be checked";
	/* a directory is the same directory (its entries are entries of the set themselves: its times
	 * change with every commit below it) */
	if (S_ISDIR(st.st_mode) && S_ISDIR(r->mode))
		return (uint64_t)st.st_dev != r->dev || (uint64_t)st.st_ino != r->ino
		       ? "the real directory was replaced after the run started (conflict)" : NULL;
	if ((uint64_t)st.st_dev != r->dev || (uint64_t)st.st_ino != r->ino || (uint64_t)st.st_size != r->size ||
	    ns(&st.st_mtim) != r->mtime_ns || ns(&st.st_ctim) != r->ctime_ns)
		return "the real file changed after the run ended (conflict)";
	if (r->ctime_ns > c->t0)
		return "the real file changed while the run ran (conflict)";
	return NULL;
}

static void note(struct cctx *c, const struct cs_entry *e, const char *reason)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return;
	cJSON_AddStringToObject(o, "path", e->path);
	cJSON_AddStringToObject(o, "kind", cs_kind_name(e->kind));
	cJSON_AddStringToObject(o, "type", cs_type_name(e->type));
	char m[8];
	cJSON_AddStringToObject(o, "mode", shadow_mode_str(e->mode, m, sizeof m));
	if (e->from)
		cJSON_AddStringToObject(o, "from", e->from);
	if (reason) {
		cJSON_AddStringToObject(o, "reason", reason);
		cJSON_AddItemToArray(c->out->refused, o);
		c->out->nrefused++;
	} else {
		cJSON_AddItemToArray(c->out->done, o);
		c->out->ndone++;
	}
}

static mode_t perm(const struct cs_entry *e)
{
	return e->mode & (e->type == CS_T_DIR ? 01777 : 0777);
}

/* Owner of what root writes: the replaced file's, else the directory's. */
static void give_owner(int fd, int pfd, const struct stat *old)
{
	if (geteuid() != 0)
		return;
	struct stat d;
	if (old)
		(void)!fchown(fd, old->st_uid, old->st_gid);
	else if (fstat(pfd, &d) == 0)
		(void)!fchown(fd, d.st_uid, d.st_gid);
}

static int copy_fd(int src, int dst)
{
	if (ioctl(dst, FICLONE, src) == 0)
		return 0;
	if (lseek(src, 0, SEEK_SET) < 0)
		return -1;
	char buf[65536];
	for (;;) {
		ssize_t k = read(src, buf, sizeof buf);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			return 0;
		for (ssize_t off = 0; off < k;) {
			ssize_t w = write(dst, buf + off, (size_t)(k - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return -1;
			off += w;
		}
	}
}

static const char *apply_file(struct cctx *c, const struct cs_entry *e, int pfd, const char *base, char *buf,
			      size_t len)
{
	int src = beneath(c->upper, e->path, O_RDONLY | O_NONBLOCK);
	if (src < 0) {
		snprintf(buf, len, "the stored copy cannot be opened: %s", strerror(errno));
		return buf;
	}
	struct stat ss, old;
	char h[65];
	const char *why = NULL;
	bool replace = e->real.exists;
	if (fstat(src, &ss) < 0 || !S_ISREG(ss.st_mode))
		why = "the stored copy is not a regular file";
	else if (ss.st_mode & (S_ISUID | S_ISGID))
		why = "a setuid/setgid file: not committed (commit never creates setuid or setgid bits)";
	else if (cs_hash_fd(src, h) < 0 || strcmp(h, e->hash))
		why = "the stored copy changed since the change set was listed";
	else if (replace && fstatat(pfd, base, &old, AT_SYMLINK_NOFOLLOW) < 0)
		why = "the real file disappeared after the run started (conflict)";
	if (why) {
		close(src);
		return why;
	}
	char tmp[64];
	snprintf(tmp, sizeof tmp, ".sbxsup-shadow.%d.%u", (int)getpid(), c->tmpn++);
	int dst = openat(pfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (dst < 0) {
		close(src);
		snprintf(buf, len, "cannot write in the real directory: %s", strerror(errno));
		return buf;
	}
	if (copy_fd(src, dst) < 0 || fchmod(dst, perm(e)) < 0) {
		snprintf(buf, len, "cannot write the new content: %s", strerror(errno));
		why = buf;
	} else {
		give_owner(dst, pfd, replace ? &old : NULL);
		if (fsync(dst) < 0) {
			snprintf(buf, len, "fsync: %s", strerror(errno));
			why = buf;
		}
	}
	close(src);
	close(dst);
	if (!why)
		why = conflict(c, pfd, base, &e->real, buf, len); /* once more, just before the rename */
	if (!why && syscall(SYS_renameat2, pfd, tmp, pfd, base, replace ? 0 : RENAME_NOREPLACE) < 0) {
		snprintf(buf, len, "rename into place: %s", strerror(errno));
		why = buf;
	}
	if (why)
		unlinkat(pfd, tmp, 0);
	return why;
}

static const char *apply_mode(const struct cs_entry *e, int pfd, const char *base, const struct cs_real *r,
			      char *buf, size_t len)
{
	if (e->mode & (S_ISUID | S_ISGID))
		return "a setuid/setgid mode: not committed (commit never creates setuid or setgid bits)";
	int fd = beneath(pfd, base, O_RDONLY | O_NONBLOCK | (e->type == CS_T_DIR ? O_DIRECTORY : 0));
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || (uint64_t)st.st_ino != r->ino) {
		if (fd >= 0)
			close(fd);
		return "the real file changed after the run started (conflict)";
	}
	int rc = fchmod(fd, perm(e));
	if (rc < 0)
		snprintf(buf, len, "chmod: %s", strerror(errno));
	close(fd);
	return rc < 0 ? buf : NULL;
}

const char *shadow_mode_str(mode_t m, char *buf, size_t len)
{
	snprintf(buf, len, "%04o", (unsigned)(m & 07777));
	return buf;
}

const char *shadow_commit_refusal(const struct cs_entry *e, unsigned allow, char *buf, size_t len)
{
	if (e->kind == CS_DELETED)
		return NULL;
	if (e->type == CS_T_SYMLINK)
		return "a symlink: not committed (commit never creates symlinks, inside the workspace or out of it)";
	if (e->type == CS_T_SPECIAL) {
		snprintf(buf, len, "%s: not committed (commit never creates devices, fifos or sockets)",
			 e->why[0] ? e->why : "not a regular file or directory");
		return buf;
	}
	if (e->mode & (S_ISUID | S_ISGID)) {
		snprintf(buf, len, "%s (mode %04o): not committed (commit never creates setuid or setgid bits)",
			 e->mode & S_ISUID ? "setuid" : "setgid", (unsigned)(e->mode & 07777));
		return buf;
	}
	bool was_ww = e->kind != CS_CREATED && e->real.exists && (e->old_mode & S_IWOTH);
	if ((e->mode & S_IWOTH) && !was_ww && !(allow & SHADOW_ALLOW_WORLD_WRITABLE)) {
		snprintf(buf, len, "world-writable (mode %04o): not committed (commit --allow-world-writable "
			 "allows it)", (unsigned)(e->mode & 07777));
		return buf;
	}
	return NULL;
}

static const char *apply(struct cctx *c, const struct cs_entry *e, char *buf, size_t len)
{
	const char *base, *why = shadow_commit_refusal(e, c->allow, buf, len);
	if (why)
		return why;
	int pfd = open_parent(c->ws, e->path, &base);
	if (pfd < 0) {
		snprintf(buf, len, "its directory cannot be reached in the workspace without a symlink: %s",
			 strerror(errno));
		return buf;
	}
	const struct cs_real none = {0};
	if (e->kind == CS_RENAMED) {
		const char *obase;
		int opfd = open_parent(c->ws, e->from, &obase);
		why = opfd < 0 ? "the old path's directory cannot be reached" :
		      conflict(c, opfd, obase, &e->real, buf, len);
		if (!why)
			why = conflict(c, pfd, base, &none, buf, len);
		if (!why && syscall(SYS_renameat2, opfd, obase, pfd, base, RENAME_NOREPLACE) < 0) {
			snprintf(buf, len, "rename: %s", strerror(errno));
			why = buf;
		}
		if (!why && (e->mode & 07777) != (e->old_mode & 07777)) {
			struct stat st;
			struct cs_real moved = e->real;
			if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0)
				moved.ino = (uint64_t)st.st_ino;
			why = apply_mode(e, pfd, base, &moved, buf, len);
		}
		if (opfd >= 0)
			close(opfd);
		close(pfd);
		return why;
	}
	why = conflict(c, pfd, base, e->kind == CS_CREATED ? &none : &e->real, buf, len);
	if (!why) {
		switch (e->kind) {
		case CS_CREATED:
			if (e->type == CS_T_DIR) {
				if (mkdirat(pfd, base, perm(e)) < 0) {
					snprintf(buf, len, "mkdir: %s", strerror(errno));
					why = buf;
				} else {
					int d = beneath(pfd, base, O_RDONLY | O_DIRECTORY);
					if (d >= 0) {
						(void)fchmod(d, perm(e)); /* not narrowed by the umask */
						give_owner(d, pfd, NULL);
						close(d);
					}
				}
				break;
			}
			/* fall through */
		case CS_MODIFIED:
			why = apply_file(c, e, pfd, base, buf, len);
			break;
		case CS_MODE:
			why = apply_mode(e, pfd, base, &e->real, buf, len);
			break;
		case CS_DELETED:
			if (unlinkat(pfd, base, e->type == CS_T_DIR ? AT_REMOVEDIR : 0) < 0) {
				snprintf(buf, len, "%s: %s", e->type == CS_T_DIR ? "rmdir" : "unlink",
					 errno == ENOTEMPTY ? "the real directory is not empty (a file appeared in it)"
							    : strerror(errno));
				why = buf;
			}
			break;
		default:
			why = "unknown change";
		}
	}
	close(pfd);
	return why;
}

static int pass(const struct changeset *cs, size_t i)
{
	const struct cs_entry *e = &cs->e[i];
	if (e->kind == CS_CREATED && e->type == CS_T_DIR)
		return 0;
	return e->kind == CS_DELETED ? 2 : 1;
}

int shadow_commit(int ws_fd, int upper_fd, const struct changeset *cs, const bool *sel, int64_t t0_ns,
		  unsigned allow, bool *committed, struct shadow_commit_out *out)
{
	memset(out, 0, sizeof *out);
	out->done = cJSON_CreateArray();
	out->refused = cJSON_CreateArray();
	if (!out->done || !out->refused)
		return -1;
	struct cctx c = {.ws = ws_fd, .upper = upper_fd, .t0 = t0_ns, .allow = allow, .out = out};
	for (int p = 0; p < 3; p++) {
		for (size_t k = 0; k < cs->n; k++) {
			size_t i = p == 2 ? cs->n - 1 - k : k; /* deletions: children (longer paths) first */
			if (!sel[i] || pass(cs, i) != p)
				continue;
			char buf[300];
			const char *why = apply(&c, &cs->e[i], buf, sizeof buf);
			note(&c, &cs->e[i], why);
			if (!why && committed)
				committed[i] = true;
		}
	}
	return 0;
}
