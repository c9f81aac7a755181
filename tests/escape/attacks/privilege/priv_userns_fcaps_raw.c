/* Contract v3: a user namespace of its own (unshare, clone, clone3 with CLONE_NEWUSER: its root holds CAP_SETFCAP over the executor's files) to write a v3 (namespaced) file capability into the workspace: every way in is refused, reported (static binary).
// manifest: base
// profile: fs-raw
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-no-bwrap: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-preload-only: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-preload: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-bwrap: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-seccomp: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-landlock: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-netfilter: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-probes: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-limits: blocked; events: kernel.violation|seccomp.deny|preload.deny
*/
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include "esc.h"
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	char f[4096];
	esc_join(f, sizeof f, esc_arg("ws"), "nscapped");
	long fd = ESC_SYS(SYS_openat, AT_FDCWD, f, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd >= 0)
		ESC_SYS(SYS_close, fd);
	struct { uint32_t magic_etc; struct { uint32_t permitted, inheritable; } data[2]; uint32_t rootid; } v3 =
		{0x03000000u | 1u, {{0xffffffffu, 0}, {0x1ffu, 0}}, 0};
	if (ESC_SYS(SYS_unshare, CLONE_NEWUSER) == 0) {
		ok = 1, fprintf(stderr, "attack: unshare(CLONE_NEWUSER) SUCCEEDED\n");
		if (ESC_SYS(SYS_setxattr, f, "security.capability", &v3, sizeof v3, 0) == 0)
			fprintf(stderr, "attack: v3 caps SUCCEEDED\n");
	}
	long pid = ESC_SYS(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0)
		_exit(ESC_SYS(SYS_setxattr, f, "security.capability", &v3, sizeof v3, 0) == 0 ? 0 : 3);
	if (pid > 0) {
		ok = 1, fprintf(stderr, "attack: clone(CLONE_NEWUSER) SUCCEEDED\n");
		waitpid((pid_t)pid, NULL, 0);
	}
	struct clone_args ca = {.flags = CLONE_NEWUSER, .exit_signal = SIGCHLD};
	pid = ESC_SYS(SYS_clone3, &ca, sizeof ca);
	if (pid == 0)
		_exit(ESC_SYS(SYS_setxattr, f, "security.capability", &v3, sizeof v3, 0) == 0 ? 0 : 3);
	if (pid > 0) {
		ok = 1, fprintf(stderr, "attack: clone3(CLONE_NEWUSER) SUCCEEDED\n");
		waitpid((pid_t)pid, NULL, 0);
	}
	return esc_result(ok, "a user namespace to write a namespaced file capability");
}
