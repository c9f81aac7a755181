/* sd_fixed.c — the preload's fixed channel in direct mode (no bwrap, a mount namespace of the
 * run's own): the same /run/sbxsup and /etc/ld.so.preload bwrap gives (bwrap_layer.h), so the
 * preload finds its policy, its report socket and itself without anything in the environment.
 *
 * Promise (sd_fixed_setup, in the run's init, inside its private mount namespace, before the
 * identity change): /run/sbxsup is a tmpfs of the run's own holding `policy` (the sealed blob,
 * 0444), `report` (the run's report socket bound from the host), `libsbxpreload.so` (the library,
 * bound read-only from the detached mount sd_fixed_open_lib made, as bwrap binds it: reachable
 * whatever the modes of the directories above the library on the host) and `ld.so.preload` (that
 * path; the host path when there is no detached mount), then remounted read-only;
 * /etc/ld.so.preload shows that file (read-only bind).
 * Where the host has no /etc/ld.so.preload to mount on, /etc becomes a read-only OverlayFS of the
 * host's /etc under a tmpfs holding only ld.so.preload (the bwrap layer's "/etc view" without its
 * whiteouts: etc_view.h; one mount, where a per-entry shadow costs ~150 binds), when
 * etc_view_wanted() says an overlay applies (overlayfs known, nothing mounted below /etc,
 * SBXSUP_ETC_OVERLAY not "0"). That tmpfs is mounted at SBX_RUN_DIR only for the moment it takes
 * (nothing of the run runs yet) and detached before the run's own tmpfs goes there: the overlay
 * keeps its own reference, nothing of it is reachable by a path.
 * Otherwise, and where the host has no /run/sbxsup, /run or /etc is shadowed
 * by a tmpfs that holds every entry of the host's directory again (binds; symlinks recreated) plus
 * the new one, remounted read-only: nothing of the host's /run or /etc is lost, nothing is created
 * on the host, and no process of the run can rename or replace any of it. Any failure is returned
 * (the run then fails loudly: a run that believes its preload loads must not run without it); an
 * entry the host removes while this runs is left out. Like bwrap's per-entry binds of /etc, the
 * shadow shows the entries as they were at the start of the run (a file the host replaces by
 * rename later is seen with its old content); the overlay shows the host's /etc as it is.
 * No global state; the caller owns the strings.
 */
#include "sd_fixed.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mount.h>

#include "etc_view.h"
#include "sandbox_paths.h"
#include "msg.h"
#include "quote.h"

static int fail(const char *what, const char *path)
{
	int e = errno;
	char q[SBX_Q_MAX];
	sbx_msg("run setup: %s %s: %s", what, sbx_q(path, q, sizeof q), strerror(e));
	errno = e;
	return -1;
}

static int write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -1;
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return close(fd);
}

static int ro_remount(const char *path, unsigned long extra)
{
	return mount(NULL, path, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | extra, NULL);
}

/* Bind `from` (a path) at `dst`, creating the mount point as `st` says. */
static int bind_path(const char *from, const char *dst, const struct stat *st)
{
	if (S_ISDIR(st->st_mode)) {
		if (mkdir(dst, 0755) < 0)
			return -1;
	} else {
		int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			return -1;
		close(fd);
	}
	return mount(from, dst, NULL, MS_BIND | MS_REC, NULL);
}

static int bind_entry(int src, const char *dst, const struct stat *st)
{
	char from[64];
	snprintf(from, sizeof from, "/proc/self/fd/%d", src);
	return bind_path(from, dst, st);
}

/* Shadow `dir` with a tmpfs holding its entries again: each is bound from the covered directory
 * through one descriptor kept on it (/proc/self/fd/N/NAME), so a low open-files limit is no
 * obstacle. The tmpfs is left writable for the caller; returns 0 or -1. */
static int shadow_dir(const char *dir)
{
	struct stat dst;
	DIR *d = opendir(dir);
	if (!d || fstat(dirfd(d), &dst) < 0) {
		if (d)
			closedir(d);
		return fail("open", dir);
	}
	size_t n = 0, cap = 64;
	struct ent { char name[256]; struct stat st; } *e = calloc(cap, sizeof *e);
	struct dirent *de;
	int rc = -1, dfd = dirfd(d);
	while (e && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			struct ent *ne = realloc(e, 2 * cap * sizeof *e);
			if (!ne)
				goto out;
			e = ne;
			cap *= 2;
		}
		snprintf(e[n].name, sizeof e[n].name, "%s", de->d_name);
		if (fstatat(dfd, e[n].name, &e[n].st, AT_SYMLINK_NOFOLLOW) == 0)
			n++; /* else gone meanwhile */
	}
	if (!e)
		goto out;
	char opts[64];
	snprintf(opts, sizeof opts, "mode=%04o", (unsigned)(dst.st_mode & 07777));
	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0) {
		fail("tmpfs over", dir);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char path[4096], from[320], link[4096];
		snprintf(path, sizeof path, "%s/%s", dir, e[i].name);
		snprintf(from, sizeof from, "/proc/self/fd/%d/%s", dfd, e[i].name);
		int r;
		if (S_ISLNK(e[i].st.st_mode)) {
			ssize_t l = readlinkat(dfd, e[i].name, link, sizeof link - 1);
			if (l < 0)
				continue;
			link[l] = 0;
			r = symlink(link, path);
		} else {
			r = bind_path(from, path, &e[i].st);
		}
		if (r < 0) {
			if (errno == ENOENT) { /* removed on the host meanwhile (a tool's temporary file) */
				(void)(S_ISDIR(e[i].st.st_mode) ? rmdir(path) : unlink(path));
				continue;
			}
			if (errno == EACCES || errno == EPERM) { /* not ours to see: left out */
				(void)(S_ISDIR(e[i].st.st_mode) ? rmdir(path) : unlink(path));
				continue;
			}
			fail("bind again", path);
			goto out;
		}
	}
	rc = 0;
out:
	free(e);
	closedir(d);
	return rc;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* /etc as the overlay of the header (the caller made SBX_RUN_DIR, empty, and checked that the host
 * has no /etc/ld.so.preload). 0, or -1 with nothing mounted over /etc: the caller shadows it. */
static int etc_overlay(const char *line, size_t len)
{
	struct stat st;
	char opts[64];
	if (!etc_view_wanted(SBX_RUN_DIR) || stat("/etc", &st) < 0)
		return -1;
	snprintf(opts, sizeof opts, "mode=%04o", (unsigned)(st.st_mode & 07777)); /* the overlay root's */
	if (mount("tmpfs", SBX_RUN_DIR, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
		return -1;
	int rc = write_file(SBX_RUN_DIR "/ld.so.preload", line, len, 0444) == 0 &&
		 etc_view_overlay(SBX_RUN_DIR, "/etc") == 0 ? 0 : -1;
	int e = errno;
	if (umount2(SBX_RUN_DIR, MNT_DETACH) < 0 && rc == 0)
		return fail("detach the /etc overlay's layer at", SBX_RUN_DIR);
	errno = e;
	return rc;
}

void sd_fixed_open_lib(struct sd_fixed *f)
{
	f->lib_fd = -1;
	if (!f->on || !f->preload_lib || !f->preload_lib[0])
		return;
	int t = (int)syscall(SYS_open_tree, AT_FDCWD, f->preload_lib, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (t < 0)
		return;
	struct mount_attr a = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
	if (syscall(SYS_mount_setattr, t, "", AT_EMPTY_PATH, &a, sizeof a) < 0) {
		close(t);
		return;
	}
	f->lib_fd = t;
}

void sd_fixed_close_lib(struct sd_fixed *f)
{
	if (f->lib_fd >= 0)
		close(f->lib_fd);
	f->lib_fd = -1;
}

int sd_fixed_identity(const struct etc_identity_text *t)
{
	const struct { const char *name; const char *data; size_t len; } dbs[] = {
		{"passwd", t->passwd, t->passwd_len}, {"group", t->group, t->group_len},
		{"resolv.conf", t->resolv, t->resolv ? strlen(t->resolv) : 0}};
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755") < 0)
		return fail("tmpfs over", "/tmp");
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < sizeof dbs / sizeof dbs[0]; i++) {
		char from[64], to[64];
		snprintf(from, sizeof from, "/tmp/%s", dbs[i].name);
		snprintf(to, sizeof to, "/etc/%s", dbs[i].name);
		if (!is_file(to) || (i == 2 && !t->resolv))
			continue; /* nothing to show it over: the host has no such file (or none wanted) */
		if (write_file(from, dbs[i].data ? dbs[i].data : "", dbs[i].len, 0644) < 0)
			rc = fail("write", to);
		else if (mount(from, to, NULL, MS_BIND, NULL) < 0 || ro_remount(to, MS_BIND) < 0)
			rc = fail("bind", to);
	}
	int e = errno;
	if (umount2("/tmp", MNT_DETACH) < 0 && rc == 0)
		return fail("detach the tmpfs over", "/tmp");
	errno = e;
	return rc;
}

int sd_fixed_setup(const struct sd_fixed *f)
{
	if (!f->on)
		return 0;
	/* /run/sbxsup: a tmpfs of the run's own (on the host's dir, else in a shadow of /run) */
	bool shadow_run = !is_dir(SBX_RUN_DIR);
	if (shadow_run && (shadow_dir("/run") < 0 || mkdir(SBX_RUN_DIR, 0755) < 0))
		return fail("make", SBX_RUN_DIR);
	char line[4200];
	int ln = snprintf(line, sizeof line, "%s\n", f->lib_fd >= 0 ? SBX_RUN_PRELOAD : f->preload_lib);
	if (ln <= 0 || (size_t)ln >= sizeof line)
		return fail("library path too long:", f->preload_lib);
	/* /etc/ld.so.preload: on the host's file, else in the overlay (before the run's tmpfs takes
	 * SBX_RUN_DIR), else in a shadow of /etc (below) */
	bool shadow_etc = !is_file("/etc/ld.so.preload");
	bool overlay_etc = shadow_etc && etc_overlay(line, (size_t)ln) == 0;
	if (mount("tmpfs", SBX_RUN_DIR, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
		return fail("tmpfs at", SBX_RUN_DIR);
	struct stat st = {.st_mode = S_IFREG};
	int rfd = open(f->report_sock, O_PATH | O_CLOEXEC);
	if (write_file(SBX_RUN_POLICY, f->blob, f->bloblen, 0444) < 0)
		return fail("write", SBX_RUN_POLICY);
	if (write_file(SBX_RUN_DIR "/ld.so.preload", line, (size_t)ln, 0444) < 0)
		return fail("write", SBX_RUN_DIR "/ld.so.preload");
	if (rfd < 0 || bind_entry(rfd, SBX_RUN_REPORT, &st) < 0)
		return fail("bind the report socket at", SBX_RUN_REPORT);
	close(rfd);
	if (f->lib_fd >= 0 && (write_file(SBX_RUN_PRELOAD, "", 0, 0444) < 0 ||
			       syscall(SYS_move_mount, f->lib_fd, "", AT_FDCWD, SBX_RUN_PRELOAD,
				       MOVE_MOUNT_F_EMPTY_PATH) < 0))
		return fail("bind the preload library at", SBX_RUN_PRELOAD);
	if (f->lib_fd >= 0)
		close(f->lib_fd); /* attached now; nothing of the run inherits it */
	if (ro_remount(SBX_RUN_DIR, 0) < 0)
		return fail("read-only remount of", SBX_RUN_DIR);
	if (shadow_run && ro_remount("/run", 0) < 0)
		return fail("read-only remount of", "/run");

	if (overlay_etc)
		return 0;
	/* /etc/ld.so.preload: the file above, read-only (on the host's file, else in a shadow of /etc) */
	if (shadow_etc && shadow_dir("/etc") < 0)
		return -1;
	int lfd = open(SBX_RUN_DIR "/ld.so.preload", O_PATH | O_CLOEXEC);
	char from[64];
	snprintf(from, sizeof from, "/proc/self/fd/%d", lfd);
	if (shadow_etc) {
		int fd = open("/etc/ld.so.preload", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			return fail("create", "/etc/ld.so.preload");
		close(fd);
	}
	if (lfd < 0 || mount(from, "/etc/ld.so.preload", NULL, MS_BIND, NULL) < 0 ||
	    ro_remount("/etc/ld.so.preload", MS_BIND) < 0)
		return fail("bind", "/etc/ld.so.preload");
	close(lfd);
	if (shadow_etc && ro_remount("/etc", 0) < 0)
		return fail("read-only remount of", "/etc");
	return 0;
}
