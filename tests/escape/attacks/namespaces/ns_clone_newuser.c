/* clone(CLONE_NEWUSER|CLONE_NEWNS) via the raw system call.
// profile: syscall
*/
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	long p = ESC_SYS(SYS_clone, CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0);
	if (p == 0)
		_exit(0);
	if (p < 0)
		return esc_result(0, "clone(CLONE_NEWUSER)");
	int st;
	waitpid((pid_t)p, &st, 0);
	return esc_result(1, "clone(CLONE_NEWUSER)");
}
