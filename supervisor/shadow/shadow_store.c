/* shadow_store.c — the per-run shadow directories (shadow_store.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit_key.h"
#include "shadow_store.h"
#include "dirnames.h"
#include "mkdirp.h"

static int fail(char *err, size_t errlen, int e, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	errno = e ? e : EINVAL;
	return -1;
}

int shadow_store_root(char *out, size_t outlen, char *err, size_t errlen)
{
	char d[4096];
	if (audit_key_dir(d, sizeof d, err, errlen) < 0)
		return -1;
	if ((size_t)snprintf(out, outlen, "%s/shadow", d) >= outlen)
		return fail(err, errlen, ENAMETOOLONG, "shadow store: path too long");
	return 0;
}

bool shadow_run_id_ok(const char *run)
{
	if (!run || strlen(run) != 32)
		return false;
	for (const char *c = run; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
			return false;
	return true;
}

int shadow_run_dir(const char *run, char *out, size_t outlen, char *err, size_t errlen)
{
	char root[4096];
	if (!shadow_run_id_ok(run))
		return fail(err, errlen, EINVAL, "%s: not a run id (32 hex digits, as in run.start / the result record)",
			    run ? run : "(none)");
	if (shadow_store_root(root, sizeof root, err, errlen) < 0)
		return -1;
	if ((size_t)snprintf(out, outlen, "%s/%s", root, run) >= outlen)
		return fail(err, errlen, ENAMETOOLONG, "shadow store: path too long");
	return 0;
}

/* A directory of ours: owned by the euid, no group/other access. */
static int open_own_dir(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, errno, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return fail(err, errlen, EPERM, "%s: not a private directory of uid %u (refused)", path,
			    (unsigned)geteuid());
	}
	return fd;
}

int shadow_store_create(const char *run, char *dir_out, size_t dirlen, char *err, size_t errlen)
{
	char root[4096], dir[4200];
	if (shadow_run_dir(run, dir, sizeof dir, err, errlen) < 0 ||
	    shadow_store_root(root, sizeof root, err, errlen) < 0)
		return -1;
	if (sbx_mkdir_p(root, 0700) < 0)
		return fail(err, errlen, errno, "shadow store %s: %s", root, strerror(errno));
	int rfd = open_own_dir(root, err, errlen);
	if (rfd < 0)
		return -1;
	close(rfd);
	if (mkdir(dir, 0700) < 0)
		return fail(err, errlen, errno, "shadow store %s: %s", dir, strerror(errno));
	int fd = open_own_dir(dir, err, errlen);
	if (fd < 0)
		return -1;
	if (mkdirat(fd, "upper", 0755) < 0 || mkdirat(fd, "work", 0700) < 0) {
		int e = errno;
		close(fd);
		return fail(err, errlen, e, "shadow store %s: %s", dir, strerror(e));
	}
	if (dir_out)
		snprintf(dir_out, dirlen, "%s", dir);
	return fd;
}

int shadow_store_open(const char *run, char *dir_out, size_t dirlen, char *err, size_t errlen)
{
	char dir[4200];
	if (shadow_run_dir(run, dir, sizeof dir, err, errlen) < 0)
		return -1;
	int fd = open_own_dir(dir, err, errlen);
	if (fd < 0) {
		if (errno == ENOENT)
			snprintf(err, errlen, "run %s: no shadow changes kept (never a --shadow run, or discarded)", run);
		return -1;
	}
	if (dir_out)
		snprintf(dir_out, dirlen, "%s", dir);
	return fd;
}

int shadow_store_load(const char *run, char *dir_out, size_t dirlen, cJSON **meta, char *err, size_t errlen)
{
	*meta = NULL;
	int fd = shadow_store_open(run, dir_out, dirlen, err, errlen);
	if (fd >= 0 && !(*meta = shadow_read_json(fd, SHADOW_META)))
		snprintf(err, errlen, "run %s: its meta.json is missing or malformed", run);
	return fd;
}

int shadow_write_json(int dirfd, const char *name, const cJSON *obj)
{
	char tmp[128];
	char *s = cJSON_PrintUnformatted(obj);
	if (!s)
		return -1;
	snprintf(tmp, sizeof tmp, ".%s.%d.tmp", name, (int)getpid());
	int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(s);
		return -1;
	}
	size_t len = strlen(s), off = 0;
	int rc = 0;
	while (off < len) {
		ssize_t k = write(fd, s + off, len - off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			rc = -1;
			break;
		}
		off += (size_t)k;
	}
	if (rc == 0 && write(fd, "\n", 1) != 1) /* no fsync: the store is the run's working state */
		rc = -1;
	int e = errno;
	close(fd);
	free(s);
	if (rc == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		rc = -1, e = errno;
	if (rc < 0)
		unlinkat(dirfd, tmp, 0);
	errno = e;
	return rc;
}

cJSON *shadow_read_json(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (64 << 20)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	char *b = malloc((size_t)st.st_size + 1);
	size_t off = 0;
	while (b && off < (size_t)st.st_size) {
		ssize_t k = read(fd, b + off, (size_t)st.st_size - off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		off += (size_t)k;
	}
	close(fd);
	if (!b)
		return NULL;
	b[off] = 0;
	cJSON *j = cJSON_Parse(b);
	free(b);
	if (!j)
		errno = EINVAL;
	return j;
}

/* Remove everything below dirfd (ours: a directory we cannot read is made 0700 first). */
static int remove_tree(int dirfd, int depth)
{
	if (depth > 512)
		return errno = ELOOP, -1;
	int dup = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
	if (!d) {
		if (dup >= 0)
			close(dup);
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		struct stat st;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			(void)!fchmodat(dirfd, e->d_name, 0700, 0);
			int c = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (c < 0 || remove_tree(c, depth + 1) < 0)
				rc = -1;
			if (c >= 0)
				close(c);
			if (unlinkat(dirfd, e->d_name, AT_REMOVEDIR) < 0)
				rc = -1;
		} else if (unlinkat(dirfd, e->d_name, 0) < 0) {
			rc = -1;
		}
	}
	closedir(d);
	return rc;
}

int shadow_store_remove(const char *run, char *err, size_t errlen)
{
	char dir[4200];
	int fd = shadow_store_open(run, dir, sizeof dir, err, errlen);
	if (fd < 0)
		return -1;
	int rc = remove_tree(fd, 0);
	close(fd);
	if (rc < 0 || rmdir(dir) < 0)
		return fail(err, errlen, errno, "%s: cannot remove: %s", dir, strerror(errno));
	return 0;
}

char **shadow_store_list(char *err, size_t errlen)
{
	char root[4096];
	if (shadow_store_root(root, sizeof root, err, errlen) < 0)
		return NULL;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) /* no store yet: nothing kept */
		return errno == ENOENT ? calloc(1, sizeof(char *)) : NULL;
	char **v = sbx_dir_names(fd, shadow_run_id_ok);
	close(fd);
	return v;
}

void shadow_ids_free(char **ids)
{
	sbx_names_free(ids);
}
