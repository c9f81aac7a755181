/* exec.c — starting programs: the exec family, posix_spawn(p), system, popen.
 *
 * Promise:
 *   - every new program is decided first (pol_path POL_EXEC through sbx_check_exec: refused
 *     without code:exec, else allowed for what the policy lets the process read and run); the
 *     program the stage started is the library's host and is exempt by construction;
 *   - the child keeps the preload: when the channel is the environment, the environment handed to
 *     the kernel always carries LD_PRELOAD and the SBXSUP_* variables with the values saved at
 *     load (added when missing, replaced when altered); when it is the fixed paths (bwrap, or a
 *     mount namespace of the run's own: /etc/ld.so.preload and /run/sbxsup), the environment is
 *     passed as the program made it — there is nothing of ours in it to repair — built on the stack (or mmap for huge environments), no malloc, so it is safe in a
 *     vfork/fork child of a threaded parent;
 *   - PATH searches (execvp, execvpe, execlp, posix_spawnp) are done here, the way glibc does them,
 *     so the file that is decided is the file that runs; ENOEXEC scripts run through /bin/sh, which
 *     is decided as well;
 *   - system() and popen() (glibc starts /bin/sh with an internal posix_spawn we cannot see) are
 *     decided as an exec of /bin/sh, and the environment they pass on is repaired with setenv().
 * Denials: -1/EACCES (posix_spawn*: return EACCES; popen: NULL/EACCES), reported with op exec/spawn.
 */
#undef _FORTIFY_SOURCE
#include "pl.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

#define env_names sbx_pl_env_names

/* ---- pointer arrays on the stack, or mmap when large ------------------------------------------- */

#define VEC_STACK 512
struct vec {
	char **v;
	size_t cap;
	bool mapped;
	char *stack[VEC_STACK];
};

static int vec_init(struct vec *a, size_t need)
{
	if (need <= VEC_STACK) {
		a->v = a->stack;
		a->cap = VEC_STACK;
		a->mapped = false;
		return 0;
	}
	void *m = mmap(NULL, need * sizeof(char *), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		errno = E2BIG;
		return -1;
	}
	a->v = m;
	a->cap = need;
	a->mapped = true;
	return 0;
}

static void vec_free(struct vec *a)
{
	int saved = errno;
	if (a->mapped)
		munmap(a->v, a->cap * sizeof(char *));
	errno = saved;
}

static bool is_ours(const char *e)
{
	for (int i = 0; i < SBX_PL_ENV_N; i++) {
		size_t n = strlen(env_names[i]);
		if (strncmp(e, env_names[i], n) == 0 && e[n] == '=')
			return true;
	}
	return false;
}

/* envp with our variables put back. Passive: envp unchanged. */
static char *const *fix_env(char *const envp[], struct vec *a)
{
	size_t n = 0;
	static char *const none[] = { NULL };
	if (sbx_pl_mode() == SBX_PL_PASSIVE || sbx_pl.fixed) /* fixed: /etc/ld.so.preload loads us */
		return envp ? envp : none;               /* (NULL here means "out of memory") */
	if (envp)
		while (envp[n])
			n++;
	if (vec_init(a, n + SBX_PL_ENV_N + 1) != 0)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!is_ours(envp[i]))
			a->v[k++] = envp[i];
	for (int i = 0; i < SBX_PL_ENV_N; i++)
		if (sbx_pl.env[i][0])
			a->v[k++] = sbx_pl.env[i];
	a->v[k] = NULL;
	return a->v;
}

/* ---- execve and friends ------------------------------------------------------------------------ */

REAL_DECL(execve); REAL_DECL(fexecve); REAL_DECL(execveat);
REAL_DECL(posix_spawn); REAL_DECL(system); REAL_DECL(popen);

/* *policy set when the policy refused (the search must stop). */
static int do_execve(const char *path, char *const argv[], char *const envp[], bool *policy)
{
	*policy = false;
	if (sbx_check_exec(SBX_OP_EXEC, AT_FDCWD, path, 0) != 0) {
		*policy = true;
		return -1;
	}
	struct vec a;
	char *const *env = fix_env(envp, &a);
	if (!env)
		return -1;
	REAL(execve)(path, argv, env);
	if (env != envp)
		vec_free(&a);
	return -1;
}

SBX_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	bool pol;
	return do_execve(path, argv, envp, &pol);
}

SBX_EXPORT int execv(const char *path, char *const argv[])
{
	bool pol;
	return do_execve(path, argv, environ, &pol);
}

/* Run `file` (found, not executable format) as a /bin/sh script, like glibc. */
static int exec_script(const char *file, char *const argv[], char *const envp[])
{
	size_t argc = 0;
	bool pol;
	while (argv && argv[argc])
		argc++;
	struct vec a;
	if (vec_init(&a, argc + 3) != 0)
		return -1;
	a.v[0] = (char *)"/bin/sh";
	a.v[1] = (char *)file;
	for (size_t i = 1; i < argc; i++)
		a.v[i + 1] = argv[i];
	a.v[argc > 0 ? argc + 1 : 2] = NULL;
	do_execve("/bin/sh", a.v, envp, &pol);
	vec_free(&a);
	return -1;
}

/* ---- PATH search, shared by the exec family and posix_spawnp --------------------------------- */

/* $PATH, or glibc's default when it is unset. */
static const char *search_path(void)
{
	const char *path = getenv("PATH");
	return path ? path : "/bin:/usr/bin";
}

/* cand = the PATH component dir[0..dl) joined with file (fl bytes); an empty component is the
 * current directory, as in glibc. False, cand untouched, when the result does not fit PATH_MAX
 * (the caller skips that component). */
static bool path_candidate(char cand[PATH_MAX], const char *dir, size_t dl, const char *file, size_t fl)
{
	if (dl + 1 + fl >= PATH_MAX)
		return false;
	if (dl == 0) {
		memcpy(cand, file, fl + 1);
	} else {
		memcpy(cand, dir, dl);
		cand[dl] = '/';
		memcpy(cand + dl + 1, file, fl + 1);
	}
	return true;
}

/* The PATH search of glibc's execvpe: "" components are ".", EACCES remembered, ENOEXEC -> sh. */
static int search_exec(const char *file, char *const argv[], char *const envp[])
{
	if (!file || !*file) {
		errno = ENOENT;
		return -1;
	}
	if (strchr(file, '/')) {
		bool pol;
		do_execve(file, argv, envp, &pol);
		if (!pol && errno == ENOEXEC)
			exec_script(file, argv, envp);
		return -1;
	}
	const char *path = search_path();
	size_t fl = strlen(file);
	bool eacces = false;
	for (const char *p = path;; ) {
		const char *e = strchrnul(p, ':');
		size_t dl = (size_t)(e - p);
		char cand[PATH_MAX];
		if (path_candidate(cand, p, dl, file, fl)) {
			bool pol;
			do_execve(cand, argv, envp, &pol);
			/* A refused candidate is skipped like one the kernel refuses (glibc goes on
			 * after ENOENT and EACCES); refused + absent is ENOENT (path_errno). */
			if (pol && errno != ENOENT && errno != ENOTDIR && errno != EACCES)
				return -1;
			if (!pol && errno == ENOEXEC) {
				exec_script(cand, argv, envp);
				return -1;
			}
			if (errno == EACCES)
				eacces = true;
			else if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE && errno != ENODEV &&
				 errno != ETIMEDOUT)
				return -1;
		}
		if (!*e)
			break;
		p = e + 1;
	}
	errno = eacces ? EACCES : ENOENT;
	return -1;
}

SBX_EXPORT int execvp(const char *file, char *const argv[])
{
	return search_exec(file, argv, environ);
}

SBX_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return search_exec(file, argv, envp);
}

/* execl-style: collect the arguments up to NULL. mode 0: execl, 1: execle, 2: execlp. */
#define COLLECT(arg0, mode)                                                            \
	size_t n = 1;                                                                  \
	va_list ap;                                                                    \
	va_start(ap, arg0);                                                            \
	while (va_arg(ap, char *))                                                     \
		n++;                                                                   \
	va_end(ap);                                                                    \
	struct vec a;                                                                  \
	if (vec_init(&a, n + 1) != 0)                                                  \
		return -1;                                                             \
	va_start(ap, arg0);                                                            \
	a.v[0] = (char *)arg0;                                                         \
	for (size_t i = 1; i <= n; i++)                                                \
		a.v[i] = va_arg(ap, char *);                                           \
	char *const *envp = environ;                                                   \
	if (mode == 1)                                                                 \
		envp = va_arg(ap, char *const *);                                      \
	va_end(ap)

SBX_EXPORT int execl(const char *path, const char *arg0, ...)
{
	bool pol;
	COLLECT(arg0, 0);
	do_execve(path, a.v, envp, &pol);
	vec_free(&a);
	return -1;
}

SBX_EXPORT int execle(const char *path, const char *arg0, ...)
{
	bool pol;
	COLLECT(arg0, 1);
	do_execve(path, a.v, envp, &pol);
	vec_free(&a);
	return -1;
}

SBX_EXPORT int execlp(const char *file, const char *arg0, ...)
{
	COLLECT(arg0, 2);
	search_exec(file, a.v, envp);
	vec_free(&a);
	return -1;
}

/* The program behind an fd (memfd, deleted file...) is decided on what /proc/self/fd/N names. */
static int check_fd_exec(int fd)
{
	char self[40];
	snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
	return sbx_check_exec(SBX_OP_EXEC, AT_FDCWD, self, 0);
}

SBX_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	if (check_fd_exec(fd) != 0)
		return -1;
	struct vec a;
	char *const *env = fix_env(envp, &a);
	if (!env)
		return -1;
	REAL(fexecve)(fd, argv, env);
	if (env != envp)
		vec_free(&a);
	return -1;
}

SBX_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	int r;
	if ((flags & AT_EMPTY_PATH) && sbx_launder(path) && !path[0])
		r = check_fd_exec(dirfd);
	else
		r = sbx_check_exec(SBX_OP_EXEC, dirfd, path,
				   (flags & AT_SYMLINK_NOFOLLOW) ? SBX_R_NOFOLLOW : 0u);
	if (r != 0)
		return -1;
	struct vec a;
	char *const *env = fix_env(envp, &a);
	if (!env)
		return -1;
	REAL(execveat)(dirfd, path, argv, env, flags);
	if (env != envp)
		vec_free(&a);
	return -1;
}

/* ---- posix_spawn -------------------------------------------------------------------------------- */

static int spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	int saved = errno;
	int fe = sbx_pl_passive() ? 0 : sbx_fa_err(fa);
	if (fe)
		return fe;   /* an open action was refused (reported when added): the child's open fails */
	/* a relative program path is run from the directory a chdir action moves to */
	char dir[PATH_MAX], joined[PATH_MAX];
	const char *decided = path;
	if (path && path[0] != '/' && !sbx_pl_passive() && sbx_fa_chdir(fa, dir)) {
		if (!sbx_fa_join(dir, path, joined))
			return ENAMETOOLONG;
		decided = joined;
	}
	if (sbx_check_exec(SBX_OP_SPAWN, AT_FDCWD, decided, 0) != 0) {
		int e = errno;
		errno = saved;
		return e;
	}
	struct vec a;
	char *const *env = fix_env(envp, &a);
	if (!env) {
		int e = errno;
		errno = saved;
		return e;
	}
	int r = REAL(posix_spawn)(pid, path, fa, attr, argv, env);
	if (env != envp)
		vec_free(&a);
	errno = saved;
	return r;
}

SBX_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn(pid, path, fa, attr, argv, envp);
}

/* The first PATH candidate that exists and is executable (what glibc's posix_spawnp would run). */
SBX_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	if (!sbx_launder(file) || !*file)
		return ENOENT;
	if (strchr(file, '/'))
		return spawn(pid, file, fa, attr, argv, envp);
	const char *path = search_path();
	size_t fl = strlen(file);
	for (const char *p = path;; ) {
		const char *e = strchrnul(p, ':');
		size_t dl = (size_t)(e - p);
		char cand[PATH_MAX];
		if (path_candidate(cand, p, dl, file, fl)) {
			int saved = errno;
			long ok = sbx_sys(SYS_faccessat, AT_FDCWD, (long)cand, X_OK, 0, 0, 0);
			errno = saved;
			if (ok == 0)
				return spawn(pid, cand, fa, attr, argv, envp);
		}
		if (!*e)
			break;
		p = e + 1;
	}
	return ENOENT;
}

/* ---- system / popen ----------------------------------------------------------------------------- */

/* Puts our variables back into environ (system/popen pass environ to /bin/sh). */
static void repair_environ(void)
{
	if (sbx_pl_mode() == SBX_PL_PASSIVE)
		return;
	int saved = errno;
	for (int i = 0; i < SBX_PL_ENV_N; i++) {
		const char *pair = sbx_pl.env[i];
		if (!pair[0])
			continue;
		const char *val = strchr(pair, '=') + 1;
		const char *cur = getenv(env_names[i]);
		if (!cur || strcmp(cur, val) != 0)
			setenv(env_names[i], val, 1);
	}
	errno = saved;
}

SBX_EXPORT int system(const char *cmd)
{
	if (cmd && sbx_check_exec(SBX_OP_SPAWN, AT_FDCWD, "/bin/sh", 0) != 0)
		return -1;
	repair_environ();
	return REAL(system)(cmd);
}

SBX_EXPORT FILE *popen(const char *cmd, const char *type)
{
	if (sbx_check_exec(SBX_OP_SPAWN, AT_FDCWD, "/bin/sh", 0) != 0)
		return NULL;
	repair_environ();
	return REAL(popen)(cmd, type);
}
