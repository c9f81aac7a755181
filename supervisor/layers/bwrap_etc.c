/* bwrap_etc.c — see bwrap_etc.h. */
#include "bwrap_etc.h"

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

#include "bwrap_layer.h"

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
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return true; /* cannot tell: do not hide what might be there */
	char *line = NULL;
	size_t cap = 0;
	bool any = false;
	while (!any && getline(&line, &cap, f) > 0) {
		char mp[4096];
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) == 1)
			any = !strcmp(mp, "/etc") || !strncmp(mp, "/etc/", 5);
	}
	free(line);
	fclose(f);
	return any;
}

bool bwrap_etc_wanted(const char *lower)
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

int bwrap_etc_make(const char *view)
{
	return mkdir(view, 0755);
}

bool bwrap_etc_hides(const char *path)
{
	return below_etc(path) != NULL;
}

int bwrap_etc_overlay(const char *lower, const char *at)
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

/* Copy `src` to `fd` leaving out the lines whose id field (2) is `id` or whose name is
 * SBX_EXEC_USER, then `add`; *name gets the first left-out name (the host user of that id). Group
 * files (`strip` non-NULL): `strip` left out of every member list. fd stays open. */
static int filter_db(const char *src, int fd, unsigned id, const char *add, char *name,
		     size_t namelen, const char *strip)
{
	char ids[16];
	snprintf(ids, sizeof ids, "%u", id);
	int dfd = dup(fd);
	FILE *out = dfd >= 0 ? fdopen(dfd, "w") : NULL;
	if (!out) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
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
	int rc = fflush(out) == 0 ? 0 : -1;
	int e = errno;
	if (fclose(out) != 0 && rc == 0)
		return -1;
	return rc < 0 ? (errno = e, -1) : 0;
}

int bwrap_etc_identity_fds(const struct etc_identity *id, int pw_fd, int gr_fd)
{
	char add[PATH_MAX + 128], host[256] = "";
	snprintf(add, sizeof add, "%s:x:%u:%u:sbxsup executor:%s:/bin/sh\n", SBX_EXEC_USER,
		 (unsigned)id->uid, (unsigned)id->gid, id->home && id->home[0] ? id->home : "/");
	if (filter_db("/etc/passwd", pw_fd, (unsigned)id->uid, add, host, sizeof host, NULL) < 0)
		return -1;
	snprintf(add, sizeof add, "%s:x:%u:\n", SBX_EXEC_USER, (unsigned)id->gid);
	return filter_db("/etc/group", gr_fd, (unsigned)id->gid, add, NULL, 0, host);
}

int bwrap_etc_identity(const char *dir, const struct etc_identity *id)
{
	char p[PATH_MAX], g[PATH_MAX];
	if (snprintf(p, sizeof p, "%s/passwd", dir) >= (int)sizeof p ||
	    snprintf(g, sizeof g, "%s/group", dir) >= (int)sizeof g)
		return errno = ENAMETOOLONG, -1;
	int pfd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	int gfd = open(g, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	int rc = pfd >= 0 && gfd >= 0 && fchmod(pfd, 0644) == 0 && fchmod(gfd, 0644) == 0 &&
		 bwrap_etc_identity_fds(id, pfd, gfd) == 0 ? 0 : -1;
	int e = errno;
	if (pfd >= 0)
		close(pfd);
	if (gfd >= 0)
		close(gfd);
	errno = e;
	return rc;
}

int bwrap_etc_identity_memfds(const struct etc_identity *id, int *pw_fd, int *gr_fd)
{
	*pw_fd = memfd_create("sbxsup-passwd", MFD_CLOEXEC);
	*gr_fd = memfd_create("sbxsup-group", MFD_CLOEXEC);
	if (*pw_fd >= 0 && *gr_fd >= 0 && bwrap_etc_identity_fds(id, *pw_fd, *gr_fd) == 0 &&
	    lseek(*pw_fd, 0, SEEK_SET) == 0 && lseek(*gr_fd, 0, SEEK_SET) == 0)
		return 0;
	int e = errno;
	if (*pw_fd >= 0)
		close(*pw_fd);
	if (*gr_fd >= 0)
		close(*gr_fd);
	*pw_fd = *gr_fd = -1;
	errno = e;
	return -1;
}

int bwrap_etc_mount(const struct policy *p, const char *lower, const char *view, const char *preload)
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
	return bwrap_etc_overlay(lower, view);
}
