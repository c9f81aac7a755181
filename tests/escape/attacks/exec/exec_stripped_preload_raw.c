/* code:exec granted: raw execve of /bin/cat on the canary with an environment without
 * LD_PRELOAD — nothing in libc can put the preload back.
// profile: fs-raw
// manifest: exec
// expect-full: blocked; events: preload.deny(op=open)|kernel.violation(outcome=contained)|seccomp.deny
// expect-no-bwrap: blocked; events: preload.deny(op=open)|kernel.violation(outcome=contained)|seccomp.deny
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char *a[] = {"cat", (char *)esc_arg("ssh"), NULL};
	char *env[] = {"PATH=/usr/bin:/bin", NULL};
	ESC_SYS(SYS_execve, "/bin/cat", a, env);
	return esc_result(0, "raw execve cat");
}
