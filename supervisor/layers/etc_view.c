/* etc_view.c — see etc_view.h. */
#include "etc_view.h"
#include "mntns.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sandbox_paths.h"

/* Is a file system type in /proc/filesystems? */
static bool fs_known(const char *type)
{
	FILE *f = fopen("/proc/filesystems", "re");
	if (!f)
		return false;
	char line[128];
	bool found = false;
	while (!found && fgets(line, sizeof line, f)) {
		char *t = strrchr(line, '\t');
		t = t ? t + 1 : line;
		t[strcspn(t, "\n")] = 0;
		found = !strcmp(t, type);
	}
	fclose(f);
	return found;
}

/* Is anything mounted at or below /etc (field 5 of /proc/self/mountinfo)? */
static bool etc_has_mounts(void)
{
	return sbx_mounted_below("/etc", true, NULL);
}

bool etc_view_wanted(const char *lower)
{
	const char *env = getenv("SBXSUP_ETC_OVERLAY");
	struct stat st;
	if ((env && !strcmp(env, "0")) || !lower || !lower[0] || strpbrk(lower, ",:\\"))
		return false;
	if (lstat(SBX_LDSO_PRELOAD, &st) == 0 || errno != ENOENT)
		return false;
	return fs_known("overlay") && !etc_has_mounts();
}

/* The part of a mask path below /etc ("shadow", "ssl/private"), or NULL. */
static const char *below_etc(const char *path)
{
	if (strncmp(path, "/etc/", 5) || !path[5])
		return NULL;
	return path + 5;
}

/* mkdir -p of the directories of rel below lower (0755). */
static int make_parents(const char *lower, const char *rel)
{
	char p[PATH_MAX];
	if (snprintf(p, sizeof p, "%s/%s", lower, rel) >= (int)sizeof p)
		return errno = ENAMETOOLONG, -1;
	for (char *s = p + strlen(lower) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		int rc = mkdir(p, 0755);
		if (rc == 0)
			rc = chmod(p, 0755); /* the umask */
		*s = '/';
		if (rc < 0 && errno != EEXIST)
			return -1;
	}
	return 0;
}

/* Does the directory holding path exist on the host? */
static bool parent_exists(const char *path)
{
	char d[PATH_MAX];
	struct stat st;
	const char *sl = strrchr(path, '/');
	if (!sl || (size_t)(sl - path) >= sizeof d)
		return false;
	memcpy(d, path, (size_t)(sl - path));
	d[sl - path] = 0;
	return stat(d, &st) == 0 && S_ISDIR(st.st_mode);
}

int etc_view_make(const char *view)
{
	return mkdir(view, 0755);
}

bool etc_view_hides(const char *path)
{
	return below_etc(path) != NULL;
}

int etc_view_overlay(const char *lower, const char *at)
{
	char opt[512];
	if (snprintf(opt, sizeof opt, "lowerdir=%s:/etc", lower) >= (int)sizeof opt)
		return errno = ENAMETOOLONG, -1;
	return mount("overlay", at, "overlay", MS_RDONLY | MS_NOSUID | MS_NODEV, opt);
}

/* Field `n` (0-based) of a colon-separated line: start in *f, length returned; -1 when absent. */
static long field(const char *line, int n, const char **f)
{
	for (; n > 0; n--) {
		line = strchr(line, ':');
		if (!line)
			return -1;
		line++;
	}
	*f = line;
	return (long)strcspn(line, ":\n");
}

static bool field_is(const char *line, int n, const char *want)
{
	const char *f;
	long l = field(line, n, &f);
	return l >= 0 && (size_t)l == strlen(want) && !strncmp(f, want, (size_t)l);
}

/* A group line with `name` left out of its member list (field 3). */
static void put_group(FILE *out, const char *line, const char *name)
{
	const char *m;
	long l = field(line, 3, &m);
	if (l < 0 || !name[0]) {
		fputs(line, out);
		return;
	}
	fwrite(line, 1, (size_t)(m - line), out);
	const char *end = m + l;
	bool first = true;
	while (m < end) {
		size_t k = strcspn(m, ",:\n");
		if (m + k > end)
			k = (size_t)(end - m);
		if (k && !(k == strlen(name) && !strncmp(m, name, k))) {
			fprintf(out, "%s%.*s", first ? "" : ",", (int)k, m);
			first = false;
		}
		m += k + (m + k < end);
	}
	fputs(end, out);
}

/* Copy `src` to `out` leaving out the lines whose id field (2) is `id` or whose name is
 * SBX_EXEC_USER, then `add`; *name gets the first left-out name (the host user of that id). Group
 * files (`strip` non-NULL): `strip` left out of every member list. */
static void filter_db(const char *src, FILE *out, unsigned id, const char *add, char *name,
		      size_t namelen, const char *strip)
{
	char ids[16];
	snprintf(ids, sizeof ids, "%u", id);
	FILE *in = fopen(src, "re");
	char *line = NULL;
	size_t cap = 0;
	while (in && getline(&line, &cap, in) > 0) {
		if (field_is(line, 2, ids) || field_is(line, 0, SBX_EXEC_USER)) {
			const char *f;
			long l = field(line, 0, &f);
			if (name && !name[0] && field_is(line, 2, ids) && l > 0 && (size_t)l < namelen)
				snprintf(name, namelen, "%.*s", (int)l, f);
			continue;
		}
		if (strip)
			put_group(out, line, strip);
		else
			fputs(line, out);
	}
	free(line);
	if (in)
		fclose(in);
	fputs(add, out);
}

int etc_identity_make(const struct etc_identity *id, struct etc_identity_text *t)
{
	char add[PATH_MAX + 128], host[256] = "";
	*t = (struct etc_identity_text){0};
	FILE *pw = open_memstream(&t->passwd, &t->passwd_len);
	if (!pw)
		return -1;
	snprintf(add, sizeof add, "%s:x:%u:%u:sbxsup executor:%s:/bin/sh\n", SBX_EXEC_USER,
		 (unsigned)id->uid, (unsigned)id->gid, id->home && id->home[0] ? id->home : "/");
	filter_db("/etc/passwd", pw, (unsigned)id->uid, add, host, sizeof host, NULL);
	int rc = fclose(pw);
	FILE *gr = rc == 0 ? open_memstream(&t->group, &t->group_len) : NULL;
	if (gr) {
		snprintf(add, sizeof add, "%s:x:%u:\n", SBX_EXEC_USER, (unsigned)id->gid);
		filter_db("/etc/group", gr, (unsigned)id->gid, add, NULL, 0, host);
		rc = fclose(gr);
	}
	if (rc != 0 || !gr) {
		etc_identity_free(t);
		return -1;
	}
	t->resolv = id->resolv ? SBX_ETC_RESOLV : NULL;
	return 0;
}

void etc_identity_free(struct etc_identity_text *t)
{
	free(t->passwd);
	free(t->group);
	*t = (struct etc_identity_text){0};
}

static int memfd_with(const char *name, const char *data, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = errno;
			close(fd);
			return errno = n < 0 ? e : EIO, -1;
		}
		off += (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int etc_resolv_memfd(void)
{
	return memfd_with("sbxsup-resolv.conf", SBX_ETC_RESOLV, sizeof SBX_ETC_RESOLV - 1);
}

int etc_identity_memfds(const struct etc_identity *id, int *pw_fd, int *gr_fd)
{
	struct etc_identity_text t;
	*pw_fd = *gr_fd = -1;
	if (etc_identity_make(id, &t) < 0)
		return -1;
	*pw_fd = memfd_with("sbxsup-passwd", t.passwd, t.passwd_len);
	*gr_fd = *pw_fd >= 0 ? memfd_with("sbxsup-group", t.group, t.group_len) : -1;
	int e = errno;
	etc_identity_free(&t);
	if (*gr_fd >= 0)
		return 0;
	if (*pw_fd >= 0)
		close(*pw_fd);
	*pw_fd = -1;
	errno = e;
	return -1;
}

/* lower/name, mode 0644, holding what the memfd `fd` holds (read from offset 0). 0, or -1 with errno. */
static int copy_in(const char *lower, const char *name, int fd)
{
	char f[PATH_MAX], buf[8192];
	if (snprintf(f, sizeof f, "%s/%s", lower, name) >= (int)sizeof f)
		return errno = ENAMETOOLONG, -1;
	int out = open(f, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (out < 0)
		return -1;
	int rc = fchmod(out, 0644);
	for (off_t off = 0; rc == 0;) {
		ssize_t n = pread(fd, buf, sizeof buf, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -1 : 0;
			break;
		}
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
		off += n;
	}
	int e = errno;
	close(out);
	return rc < 0 ? (errno = e, -1) : 0;
}

int etc_view_mount(const struct policy *p, const char *lower, const char *view, const char *preload,
		    const struct etc_view_files *files)
{
	char f[PATH_MAX];
	if (snprintf(f, sizeof f, "%s/ld.so.preload", lower) >= (int)sizeof f)
		return errno = ENAMETOOLONG, -1;
	if (mount("tmpfs", view, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0 || mkdir(lower, 0755) < 0 ||
	    chmod(lower, 0755) < 0) /* chmod: the umask; the overlay's root takes this mode */
		return -1;
	int fd = open(f, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	size_t n = strlen(preload);
	int rc = write(fd, preload, n) == (ssize_t)n && write(fd, "\n", 1) == 1 && fchmod(fd, 0644) == 0 ? 0 : -1;
	int e = errno;
	close(fd);
	if (rc < 0)
		return errno = e, -1;
	size_t nm = pol_mask_count(p);
	for (size_t i = 0; i < nm; i++) {
		struct pol_dir d;
		const char *rel;
		if (pol_mask_get(p, i, &d) < 0 || !d.path || !(rel = below_etc(d.path)) || !parent_exists(d.path))
			continue;
		if (snprintf(f, sizeof f, "%s/%s", lower, rel) >= (int)sizeof f)
			return errno = ENAMETOOLONG, -1;
		if (make_parents(lower, rel) < 0)
			return -1;
		if (mknod(f, S_IFCHR | 0600, makedev(0, 0)) < 0 && errno != EEXIST)
			return -1;
	}
	/* the executor's passwd and group, and the run's resolv.conf where the host has one to cover */
	struct stat rs;
	if (files && ((files->passwd_fd >= 0 && copy_in(lower, "passwd", files->passwd_fd) < 0) ||
		      (files->group_fd >= 0 && copy_in(lower, "group", files->group_fd) < 0) ||
		      (files->resolv_fd >= 0 && lstat("/etc/resolv.conf", &rs) == 0 &&
		       copy_in(lower, "resolv.conf", files->resolv_fd) < 0)))
		return -1;
	return etc_view_overlay(lower, view);
}
