/* esc.h — helpers shared by the escape-corpus attacks (tests/escape/attacks/<family>/<name>.c).
 *
 * Contract with the runner (tests/escape/escape.py):
 *   - argv[1..] are "key=value" parameters (paths of the canaries, ports, victim pid, ...);
 *   - an attack exits 0 when the attack SUCCEEDED (it read/wrote/reached what it must not),
 *     1 when it failed (was blocked), 2 on a usage error (missing parameter);
 *   - whatever secret it obtains is printed on stdout, so the runner's leak check (canary search
 *     in stdout/stderr/workspace) sees it independently of the exit status.
 * Only libc; usable in static builds.
 */
#ifndef ESC_H
#define ESC_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int esc_argc;
static char **esc_argv;

static inline void esc_init(int argc, char **argv)
{
	esc_argc = argc;
	esc_argv = argv;
}

/* Value of parameter `key`, or NULL. */
static inline const char *esc_opt(const char *key)
{
	size_t k = strlen(key);
	for (int i = 1; i < esc_argc; i++)
		if (!strncmp(esc_argv[i], key, k) && esc_argv[i][k] == '=')
			return esc_argv[i] + k + 1;
	return NULL;
}

/* Value of parameter `key`; exits 2 when missing. */
static inline const char *esc_arg(const char *key)
{
	const char *v = esc_opt(key);
	if (!v) {
		fprintf(stderr, "attack: missing parameter %s\n", key);
		exit(2);
	}
	return v;
}

static inline int esc_int(const char *key) { return atoi(esc_arg(key)); }

/* Report and return the result: 0 = the attack succeeded. */
static inline int esc_result(int succeeded, const char *what)
{
	fprintf(stderr, "attack: %s: %s (errno %d %s)\n", what, succeeded ? "SUCCEEDED" : "failed",
		errno, strerror(errno));
	return succeeded ? 0 : 1;
}

/* Read everything from fd and copy it to stdout; returns the number of bytes read (or -1). */
static inline long esc_dump_fd(int fd)
{
	char buf[4096];
	long total = 0;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0)
			return total ? total : -1;
		if (n == 0)
			break;
		if (write(1, buf, (size_t)n) < 0)
			return -1;
		total += n;
	}
	if (total)
		(void)!write(1, "\n", 1);
	return total;
}

/* Open with the libc wrapper and dump; 0 when content was obtained. */
static inline int esc_read_path(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return esc_result(0, path);
	long n = esc_dump_fd(fd);
	close(fd);
	return esc_result(n > 0, path);
}

/* A real system call instruction, not libc's syscall() (which a preload can interpose): the
 * "raw syscall" attacks use this. Returns the kernel's result (-errno on failure, errno set). */
static inline long esc_sys(long n, long a, long b, long c, long d, long e, long f)
{
	long r;
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
	r = x0;
#else
	r = syscall(n, a, b, c, d, e, f);
	if (r < 0)
		r = -errno;
#endif
	if (r < 0 && r > -4096)
		errno = (int)-r;
	return r;
}
#define ESC_SYS(n, ...) esc_sys_n(n, __VA_ARGS__)
#define esc_sys_n(n, ...) esc_sys6(n, __VA_ARGS__, 0, 0, 0, 0, 0, 0)
#define esc_sys6(n, a, b, c, d, e, f, ...) \
	esc_sys((long)(n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

/* Same with a raw openat system call (bypasses any libc interposition). */
static inline int esc_read_path_raw(const char *path)
{
	long fd = ESC_SYS(SYS_openat, AT_FDCWD, path, O_RDONLY, 0);
	if (fd < 0)
		return esc_result(0, path);
	long n = esc_dump_fd((int)fd);
	close((int)fd);
	return esc_result(n > 0, path);
}

/* Build "a/b" into out. */
static inline const char *esc_join(char *out, size_t len, const char *a, const char *b)
{
	int n = snprintf(out, len, "%s/%s", a, b);
	if (n < 0 || (size_t)n >= len) {
		fprintf(stderr, "attack: path too long\n");
		exit(2);
	}
	return out;
}

/* Re-exec this program (argv[0], absolute) with the same parameters plus "stage=2" and the current
 * environment; returns only on failure. */
static inline int esc_reexec_stage2(void)
{
	extern char **environ;
	char *a[64];
	int n = 0;
	for (int i = 0; i < esc_argc && n < 62; i++)
		a[n++] = esc_argv[i];
	a[n++] = "stage=2";
	a[n] = NULL;
	execve(esc_argv[0], a, environ);
	return esc_result(0, "re-exec");
}

#endif
