/* code:exec granted: remove LD_PRELOAD (and the SBXSUP_* variables) from the environment and
 * exec /bin/cat on the canary with the libc execve.
// profile: fs
// manifest: exec
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	unsetenv("LD_PRELOAD");
	unsetenv("SBXSUP_POLICY_FD");
	unsetenv("SBXSUP_REPORT_FD");
	char *a[] = {"cat", (char *)esc_arg("ssh"), NULL};
	char *env[] = {"PATH=/usr/bin:/bin", NULL};
	execve("/bin/cat", a, env);
	return esc_result(0, "execve cat");
}
