/* serve_sock.c — see serve_sock.h. */
#include "serve_sock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int fail(char *why, size_t whylen, const char *what, const char *path)
{
	snprintf(why, whylen, "%s: %s", path, what);
	return -1;
}

/* The directory that will hold the name: ours (or root's), a directory, not writable by others. */
static int check_dir(const char *path, char *why, size_t whylen)
{
	char dir[sizeof ((struct serve_sock *)0)->path];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	struct stat st;
	if (stat(dir, &st) < 0) {
		snprintf(why, whylen, "socket directory %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "socket directory %s: not a directory", dir);
		return -1;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		snprintf(why, whylen, "socket directory %s is owned by uid %u, not by us (uid %u) or root",
			 dir, (unsigned)st.st_uid, (unsigned)geteuid());
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, whylen, "socket directory %s is writable by %s (mode %04o): another user could "
			 "replace the socket; use a directory only you can write (e.g. $XDG_RUNTIME_DIR)",
			 dir, st.st_mode & S_IWOTH ? "others" : "its group", (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

/* An existing name: refuse unless it is our own socket nobody listens on (then remove it). */
static int clear_stale(const char *path, char *why, size_t whylen)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : fail(why, whylen, strerror(errno), path);
	if (!S_ISSOCK(st.st_mode))
		return fail(why, whylen, "exists and is not a socket (refused: remove it yourself)", path);
	if (st.st_uid != geteuid())
		return fail(why, whylen, "is a socket of another user (refused)", path);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(why, whylen, strerror(errno), path);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	int rc = connect(fd, (struct sockaddr *)&a, sizeof a);
	int e = errno;
	close(fd);
	if (rc == 0)
		return fail(why, whylen, "a server is already listening there", path);
	if (e != ECONNREFUSED)
		return fail(why, whylen, strerror(e), path);
	/* stale: unlink only the socket we examined (a name swapped meanwhile is left alone) */
	struct stat again;
	if (lstat(path, &again) == 0 && again.st_dev == st.st_dev && again.st_ino == st.st_ino &&
	    unlink(path) < 0)
		return fail(why, whylen, strerror(errno), path);
	return 0;
}

int serve_listen(const char *path, struct serve_sock *s, char *why, size_t whylen)
{
	s->fd = -1;
	s->path[0] = 0;
	if (!path || !*path || strlen(path) >= sizeof s->path)
		return fail(why, whylen, "socket path empty or longer than 107 bytes", path ? path : "");
	if (check_dir(path, why, whylen) < 0 || clear_stale(path, why, whylen) < 0)
		return -1;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return fail(why, whylen, strerror(errno), path);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	mode_t old = umask(0177);
	int rc = bind(fd, (struct sockaddr *)&a, sizeof a);
	int e = errno;
	umask(old);
	if (rc < 0) {
		close(fd);
		return fail(why, whylen, strerror(e), path);
	}
	snprintf(s->path, sizeof s->path, "%s", path);
	struct stat st;
	if (fchmod(fd, 0600) < 0 || lstat(path, &st) < 0 || !S_ISSOCK(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 0777) != 0600) {
		close(fd);
		s->path[0] = 0;
		return fail(why, whylen, "the bound socket is not a 0600 socket of ours (refused)", path);
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	if (listen(fd, 64) < 0) {
		e = errno;
		s->fd = fd;
		serve_unlisten(s);
		return fail(why, whylen, strerror(e), path);
	}
	s->fd = fd;
	return 0;
}

void serve_unlisten(struct serve_sock *s)
{
	struct stat st;
	if (s->path[0] && lstat(s->path, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino)
		(void)unlink(s->path);
	s->path[0] = 0;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
