/* stdio_lend.c — see stdio_lend.h. */
#include "stdio_lend.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

static bool anon_pipe(int fd, struct stat *st)
{
	struct statfs sf;
	return fd >= 0 && fstat(fd, st) == 0 && S_ISFIFO(st->st_mode) && fstatfs(fd, &sf) == 0 &&
	       sf.f_type == PIPEFS_MAGIC;
}

void stdio_lend(struct stdio_lend *s, const int fds[3], uid_t host_uid)
{
	memset(s, 0, sizeof *s);
	for (int i = 0; i < 3; i++)
		s->fd[i] = fds[i];
	if (host_uid == 0)
		return;
	mode_t way[3] = {0, 0, 0}, want[3] = {0, 0, 0};
	struct stat st[3];
	bool pipe[3];
	for (int i = 0; i < 3; i++) {
		int fl = anon_pipe(fds[i], &st[i]) && st[i].st_uid == 0 ? fcntl(fds[i], F_GETFL) : -1;
		pipe[i] = fl >= 0;
		if (pipe[i])
			way[i] = (fl & O_ACCMODE) == O_RDONLY ? 0400 : (fl & O_ACCMODE) == O_WRONLY ? 0200 : 0600;
	}
	for (int i = 0; i < 3; i++) /* one pipe in two roles: the union of its ways */
		for (int j = 0; j < 3; j++)
			if (pipe[i] && pipe[j] && st[j].st_dev == st[i].st_dev && st[j].st_ino == st[i].st_ino)
				want[i] |= way[j];
	for (int i = 0; i < 3; i++) {
		if (!pipe[i])
			continue;
		bool done = false;
		for (int j = 0; j < i; j++)
			done |= s->lent[j] && s->dev[j] == st[i].st_dev && s->ino[j] == st[i].st_ino;
		if (done)
			continue;
		/* the others' bits of its way only; the owner stays root, so the executor can never
		 * change the mode (it could then read what other writers send to its output, or write
		 * into its input) */
		mode_t lent = (st[i].st_mode & 07770) | ((want[i] & 0400) ? 04 : 0) | ((want[i] & 0200) ? 02 : 0);
		if (fchmod(fds[i], lent) < 0)
			continue;
		s->lent[i] = true;
		s->dev[i] = st[i].st_dev;
		s->ino[i] = st[i].st_ino;
		s->uid[i] = st[i].st_uid;
		s->mode[i] = st[i].st_mode & 07777;
		s->as_lent[i] = lent;
	}
}

void stdio_return(struct stdio_lend *s)
{
	for (int i = 0; i < 3; i++) {
		struct stat st;
		if (!s->lent[i])
			continue;
		s->lent[i] = false;
		if (fstat(s->fd[i], &st) < 0 || st.st_dev != s->dev[i] || st.st_ino != s->ino[i] ||
		    st.st_uid != s->uid[i] || (st.st_mode & 07777) != s->as_lent[i])
			continue;
		(void)fchmod(s->fd[i], s->mode[i]);
	}
}
