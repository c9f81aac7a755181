/* posix_spawn(/bin/true) without code:exec.
// profile: exec
*/
#include <spawn.h>
#include <sys/wait.h>
#include "esc.h"
extern char **environ;
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	pid_t pid;
	char *a[] = {"true", NULL};
	if (posix_spawn(&pid, "/bin/true", NULL, NULL, a, environ) != 0)
		return esc_result(0, "posix_spawn");
	int st;
	if (waitpid(pid, &st, 0) < 0)
		return esc_result(0, "waitpid");
	return esc_result(WIFEXITED(st) && WEXITSTATUS(st) == 0, "spawned /bin/true ran");
}
