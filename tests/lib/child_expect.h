/* child_expect.h — the fork-apply-check idiom of the kernel-layer unit tests (test_landlock.c,
 * test_seccomp.c, test_caps.c): a forked child applies a layer to itself, checks each call with
 * EXPECT / EXPECT_OK / EXPECT_ERR (each failed check prints "# child: <what>: ..." on stderr, so
 * the TAP log says which condition failed), and _exit()s with the number of failed checks; the
 * parent asserts 0 with ku_wait() (kernel_util.h) or runs the whole thing with ku_in_child().
 * Include once per test program (it defines the per-process counter `fails`). */
#ifndef SBX_TEST_CHILD_EXPECT_H
#define SBX_TEST_CHILD_EXPECT_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kernel_util.h"

static int fails;

#define EXPECT(what, cond)                                                                         \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "# child: %s: failed (errno %d %s)\n", what, errno, strerror(errno)); \
			fails++;                                                                   \
		}                                                                                  \
	} while (0)
#define EXPECT_ERR(what, call, err)                                                                \
	do {                                                                                       \
		errno = 0;                                                                         \
		long r_ = (long)(call);                                                            \
		if (r_ != -1 || errno != (err)) {                                                  \
			fprintf(stderr, "# child: %s: got %ld errno %d (%s), want errno %d\n", what, r_, \
				errno, strerror(errno), err);                                      \
			fails++;                                                                   \
		}                                                                                  \
	} while (0)
#define EXPECT_OK(what, call)                                                                      \
	do {                                                                                       \
		errno = 0;                                                                         \
		long r_ = (long)(call);                                                            \
		if (r_ < 0) {                                                                      \
			fprintf(stderr, "# child: %s: failed: %s\n", what, strerror(errno));       \
			fails++;                                                                   \
		}                                                                                  \
	} while (0)

/* Fork; the child runs fn(arg) with a fresh counter and exits with its result (the number of
 * failed checks, or a set-up code >= 90). Returns that status (ku_wait), -1 when fork failed. */
static inline int ku_in_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fails = 0;
		_exit(fn(arg));
	}
	return ku_wait(pid);
}

#endif
