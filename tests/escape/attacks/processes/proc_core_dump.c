/* Raise RLIMIT_CORE and crash a child: a core dump would write the process memory to disk
 * (core_pattern decides where). Success when the child's status says a core was dumped.
// profile: syscall
// silent-ok-container-root: container root where no namespace could be made (Docker-like profile): without CAP_SYS_PTRACE the supervisor cannot read the memory of an executor of another uid (README Known gaps), lets the call go on, and the kernel (the identity, Landlock) refuses it unreported
*/
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	if (chdir(esc_arg("ws")) < 0)
		return esc_result(0, "chdir");
	struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
	if (setrlimit(RLIMIT_CORE, &rl) < 0) {
		rl.rlim_cur = rl.rlim_max = 1 << 20;
		if (setrlimit(RLIMIT_CORE, &rl) < 0)
			return esc_result(0, "setrlimit(RLIMIT_CORE)");
	}
	prctl(PR_SET_DUMPABLE, 1);
	pid_t p = fork();
	if (p == 0) {
		raise(SIGSEGV);
		_exit(0);
	}
	int st;
	waitpid(p, &st, 0);
	return esc_result(WIFSIGNALED(st) && WCOREDUMP(st), "core dumped");
}
