/* spawn_fa.c — posix_spawn file actions: the opens and directory changes glibc performs in the
 * child with internal (non-interposable) calls, decided when the program adds them.
 *
 * Promise: posix_spawn_file_actions_addopen() decides its path like open(2) would be decided in
 * the child — relative to a directory added before it by addchdir_np/addfchdir_np, else to ours —
 * and a refused open makes the later posix_spawn(p) with these actions fail with the errno the
 * child's open would have got (EACCES/ENOENT), reported once (when added), spawning nothing: the
 * same outcome as a kernel refusal in the child. A relative program path after a chdir action is
 * decided in that directory (exec.c asks sbx_fa_chdir). State per file-actions object lives in a
 * small table (SBX_FA_MAX objects with a chdir or a refusal at a time); when it is full the
 * add call itself fails (EACCES, fail closed). init/destroy forget the object.
 */
#include "pl.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>

#define SBX_FA_MAX 8

static struct {
	const void *fa;
	int err;                 /* errno the spawn must fail with, 0 = none */
	char dir[PATH_MAX];      /* the last chdir action ("" = none) */
} fa_tab[SBX_FA_MAX];
static atomic_flag fa_lock = ATOMIC_FLAG_INIT;

static void lock(void) { while (atomic_flag_test_and_set_explicit(&fa_lock, memory_order_acquire)) ; }
static void unlock(void) { atomic_flag_clear_explicit(&fa_lock, memory_order_release); }

/* The slot of fa (created when `create`), or -1. Called locked. */
static int slot(const void *fa, bool create)
{
	int free_i = -1;
	for (int i = 0; i < SBX_FA_MAX; i++) {
		if (fa_tab[i].fa == fa)
			return i;
		if (!fa_tab[i].fa && free_i < 0)
			free_i = i;
	}
	if (!create || free_i < 0)
		return -1;
	fa_tab[free_i].fa = fa;
	fa_tab[free_i].err = 0;
	fa_tab[free_i].dir[0] = 0;
	return free_i;
}

static void forget(const void *fa)
{
	lock();
	int i = slot(fa, false);
	if (i >= 0)
		fa_tab[i].fa = NULL;
	unlock();
}

int sbx_fa_err(const void *fa)
{
	if (!fa)
		return 0;
	lock();
	int i = slot(fa, false), e = i >= 0 ? fa_tab[i].err : 0;
	unlock();
	return e;
}

bool sbx_fa_chdir(const void *fa, char out[PATH_MAX])
{
	if (!fa)
		return false;
	lock();
	int i = slot(fa, false);
	bool have = i >= 0 && fa_tab[i].dir[0];
	if (have)
		memcpy(out, fa_tab[i].dir, strlen(fa_tab[i].dir) + 1);
	unlock();
	return have;
}

/* dir + "/" + path into out (path relative); false when it does not fit. */
bool sbx_fa_join(const char *dir, const char *path, char out[PATH_MAX])
{
	int n = snprintf(out, PATH_MAX, "%s/%s", dir, path);
	return n > 0 && n < PATH_MAX;
}

REAL_DECL(posix_spawn_file_actions_init); REAL_DECL(posix_spawn_file_actions_destroy);
REAL_DECL(posix_spawn_file_actions_addopen); REAL_DECL(posix_spawn_file_actions_addchdir_np);
REAL_DECL(posix_spawn_file_actions_addfchdir_np);

SBX_EXPORT int posix_spawn_file_actions_init(posix_spawn_file_actions_t *fa)
{
	forget(fa);
	return REAL(posix_spawn_file_actions_init)(fa);
}

SBX_EXPORT int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *fa)
{
	forget(fa);
	return REAL(posix_spawn_file_actions_destroy)(fa);
}

/* Records a chdir action (dir as it will be reached from our cwd). */
static int add_chdir(const void *fa, const char *dir)
{
	char cur[PATH_MAX], joined[PATH_MAX];
	lock();
	int i = slot(fa, true);
	if (i < 0) {
		unlock();
		return EACCES;   /* table full: cannot follow the actions, fail closed */
	}
	const char *d = dir;
	if (dir[0] != '/' && fa_tab[i].dir[0]) {   /* relative to an earlier chdir action */
		memcpy(cur, fa_tab[i].dir, strlen(fa_tab[i].dir) + 1);
		if (!sbx_fa_join(cur, dir, joined)) {
			unlock();
			return ENAMETOOLONG;
		}
		d = joined;
	}
	if (strlen(d) >= PATH_MAX) {
		unlock();
		return ENAMETOOLONG;
	}
	memmove(fa_tab[i].dir, d, strlen(d) + 1);
	unlock();
	return 0;
}

SBX_EXPORT int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *fa, const char *dir)
{
	int r = REAL(posix_spawn_file_actions_addchdir_np)(fa, dir);
	if (r != 0 || sbx_pl_passive() || !sbx_launder(dir))
		return r;
	return add_chdir(fa, dir);
}

SBX_EXPORT int posix_spawn_file_actions_addfchdir_np(posix_spawn_file_actions_t *fa, int fd)
{
	int r = REAL(posix_spawn_file_actions_addfchdir_np)(fa, fd);
	if (r != 0 || sbx_pl_passive())
		return r;
	char link[40];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	return add_chdir(fa, link);
}

SBX_EXPORT int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa, int fd,
						const char *path, int oflag, mode_t mode)
{
	if (sbx_pl_passive() || !sbx_launder(path))
		return REAL(posix_spawn_file_actions_addopen)(fa, fd, path, oflag, mode);
	char dir[PATH_MAX], joined[PATH_MAX];
	const char *p = path;
	if (path[0] != '/' && sbx_fa_chdir(fa, dir)) {
		if (!sbx_fa_join(dir, path, joined))
			return ENAMETOOLONG;
		p = joined;
	}
	int saved = errno;
	if (sbx_check_open(AT_FDCWD, p, oflag) != 0) {
		int e = errno;
		errno = saved;
		lock();
		int i = slot(fa, true);
		if (i >= 0 && !fa_tab[i].err)
			fa_tab[i].err = e;
		unlock();
		if (i < 0)
			return e;   /* cannot remember the refusal: refuse the action itself */
		return REAL(posix_spawn_file_actions_addopen)(fa, fd, path, oflag, mode);
	}
	return REAL(posix_spawn_file_actions_addopen)(fa, fd, path, oflag, mode);
}
