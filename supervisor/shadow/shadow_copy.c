/* shadow_copy.c — copying a workspace into the shadow store (shadow_copy.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include "shadow_copy.h"

struct cp {
	uint64_t plain, limit;
	bool all_cloned;
	char *err;
	size_t errlen;
	bool failed;
};

static void meta(int dfd, const char *name, const struct stat *st, int fd)
{
	struct timespec t[2] = {st->st_atim, st->st_mtim};
	if (geteuid() == 0)
		(void)!fchownat(dfd, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW);
	if (!S_ISLNK(st->st_mode)) {
		if (fd >= 0)
			(void)!fchmod(fd, st->st_mode & 07777);
		else
			(void)!fchmodat(dfd, name, st->st_mode & 07777, 0);
	}
	(void)utimensat(dfd, name, t, AT_SYMLINK_NOFOLLOW);
}

static int copy_file(struct cp *c, int sfd, int dfd, const char *name, const struct stat *st, const char *rel)
{
	int in = openat(sfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int out = in >= 0 ? openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
	int rc = 0;
	if (in < 0 || out < 0) {
		snprintf(c->err, c->errlen, "copy %s: %s", rel, strerror(errno));
		rc = -1;
	} else if (ioctl(out, FICLONE, in) < 0) {
		c->all_cloned = false;
		c->plain += (uint64_t)st->st_size;
		if (c->limit && c->plain > c->limit) {
			snprintf(c->err, c->errlen, "the workspace is larger than the copy limit (%llu MiB, "
				 "SBXSUP_SHADOW_COPY_MB) and its file system cannot make reflinks",
				 (unsigned long long)(c->limit >> 20));
			rc = -1;
		}
		char buf[65536];
		for (ssize_t k; rc == 0 && (k = read(in, buf, sizeof buf)) != 0;) {
			if (k < 0 && errno == EINTR)
				continue;
			for (ssize_t off = 0; k > 0 && off < k;) {
				ssize_t w = write(out, buf + off, (size_t)(k - off));
				if (w <= 0) {
					k = -1;
					break;
				}
				off += w;
			}
			if (k < 0) {
				snprintf(c->err, c->errlen, "copy %s: %s", rel, strerror(errno));
				rc = -1;
			}
		}
	}
	if (rc == 0 && out >= 0)
		meta(dfd, name, st, out);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

static void copy_dir(struct cp *c, int sfd, int dfd, const char *rel, int depth)
{
	if (depth > 256) {
		snprintf(c->err, c->errlen, "%s: directories nested too deep", rel);
		c->failed = true;
		return;
	}
	int dup = fcntl(sfd, F_DUPFD_CLOEXEC, 3);
	DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
	if (!d) {
		if (dup >= 0)
			close(dup);
		snprintf(c->err, c->errlen, "%s: %s", rel[0] ? rel : ".", strerror(errno));
		c->failed = true;
		return;
	}
	struct dirent *e;
	while (!c->failed && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		struct stat st;
		char r[4096];
		snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		if (fstatat(sfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (mkdirat(dfd, e->d_name, 0700) < 0) {
				snprintf(c->err, c->errlen, "mkdir %s: %s", r, strerror(errno));
				c->failed = true;
				break;
			}
			int s2 = openat(sfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			int d2 = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (s2 < 0 || d2 < 0) {
				snprintf(c->err, c->errlen, "%s: %s", r, strerror(errno));
				c->failed = true;
			} else {
				copy_dir(c, s2, d2, r, depth + 1);
				meta(dfd, e->d_name, &st, d2);
			}
			if (s2 >= 0)
				close(s2);
			if (d2 >= 0)
				close(d2);
		} else if (S_ISREG(st.st_mode)) {
			if (copy_file(c, sfd, dfd, e->d_name, &st, r) < 0)
				c->failed = true;
		} else if (S_ISLNK(st.st_mode)) {
			char t[4096];
			ssize_t n = readlinkat(sfd, e->d_name, t, sizeof t - 1);
			if (n >= 0) {
				t[n] = 0;
				if (symlinkat(t, dfd, e->d_name) == 0)
					meta(dfd, e->d_name, &st, -1);
			}
		} else if (S_ISFIFO(st.st_mode)) {
			if (mkfifoat(dfd, e->d_name, 0600) == 0)
				meta(dfd, e->d_name, &st, -1);
		} /* sockets and devices: not copied */
	}
	closedir(d);
}

int shadow_copy_tree(int src_dir, int dst_dir, uint64_t limit_bytes, bool *reflinked, char *err, size_t errlen)
{
	struct cp c = {.limit = limit_bytes, .all_cloned = true, .err = err, .errlen = errlen};
	err[0] = 0;
	copy_dir(&c, src_dir, dst_dir, "", 0);
	*reflinked = c.all_cloned;
	return c.failed ? -1 : 0;
}
