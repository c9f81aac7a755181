/* Time-of-check/time-of-use race on an exec's name (issue 28): a file the manifest's floating deny of
 * .env files matches appears during the run as an executable (the runner copies this very program to the
 * workspace's late/.env one second after the start, its tag slot holding the canary), where only
 * the seccomp deny decision holds it. An exec cannot be performed for the caller: once its name is
 * decided it continues, and the kernel reads the name again. So a forked child runs a second thread
 * that flips the name between this program (allowed) and late/.env while it calls execve by raw
 * system call, again and again: when the kernel loads late/.env, that binary prints its tag (the
 * canary) and exits 42. Attempts go on until the denied binary ran, or a child was killed at its
 * exec (the supervisor's exec stop refused the binary the kernel loaded), or 8 s passed.
// profile: exec-raw
// manifest: deny-float
// setup: denied-binary
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sensor=ptrace-exec-stop)
// expect-no-bwrap: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sensor=ptrace-exec-stop)
// expect-preload-only: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sensor=ptrace-exec-stop)
// expect-seccomp: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sensor=ptrace-exec-stop)
// expect-landlock: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sensor=ptrace-exec-stop)
// expect-bwrap: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sensor=ptrace-exec-stop)
// expect-preload: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sensor=ptrace-exec-stop)
*/
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include "esc.h"
#include "esc_race.h"

/* The runner writes the canary over this slot in the copy it plants (the same length). */
static volatile const char tag[] = "SBXESC_TAGSLOT_00000000000000000000000";

/* The child: exec the flipping name until one exec lands (this program again: exit 7; late/.env:
 * exit 42), or give up (3). */
static __attribute__((noreturn)) void child(const char *good, const char *bad)
{
	if (esc_flip_start(good, bad) < 0)
		_exit(2);
	char *args[] = {"sbxesc-exec-race", NULL};
	char *envp[] = {NULL};
	for (int i = 0; i < 3000; i++)
		ESC_SYS(SYS_execve, esc_flip_buf, args, envp);
	_exit(3);
}

int main(int argc, char **argv)
{
	if (argc == 1 && !strcmp(argv[0], "sbxesc-exec-race")) {
		/* exec'd: as the planted late/.env, the tag is the canary */
		if (strstr((const char *)tag, "TAGSLOT"))
			return 7;
		(void)!write(1, (const char *)tag, strlen((const char *)tag));
		(void)!write(1, "\n", 1);
		return 42;
	}
	esc_init(argc, argv);
	const char *p = esc_arg("lateenv");
	char good[4096];
	ssize_t gn = readlink("/proc/self/exe", good, sizeof good - 1);
	if (gn <= 0)
		return 2;
	good[gn] = 0;
	struct stat st;
	for (int i = 0; i < 80 && ESC_SYS(SYS_newfstatat, AT_FDCWD, p, &st, 0) < 0; i++) {
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	int got = 0, killed = 0, tries = 0;
	time_t t0 = time(NULL);
	while (!got && !killed && time(NULL) - t0 < 8) {
		pid_t c = fork();
		if (c < 0)
			return 2;
		if (c == 0)
			child(good, p);
		int ws;
		if (waitpid(c, &ws, 0) < 0)
			return 2;
		tries++;
		got = WIFEXITED(ws) && WEXITSTATUS(ws) == 42;
		killed = WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL;
	}
	fprintf(stderr, "attack: %d children, %s\n", tries, got ? "denied binary ran" : killed ? "one killed at its exec" : "no race won");
	return esc_result(got, "raced exec of a denied binary");
}
