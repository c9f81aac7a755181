/* code:exec granted: raw execve of ld.so with "--preload ''"-free argv and no LD_PRELOAD in the
 * environment, running /bin/cat on the canary.
// profile: fs-raw
// manifest: exec
// expect-full: blocked; events: preload.deny(op=open)|kernel.violation(outcome=contained)|seccomp.deny
// expect-no-bwrap: blocked; events: preload.deny(op=open)|kernel.violation(outcome=contained)|seccomp.deny
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	const char *ld = access("/lib64/ld-linux-x86-64.so.2", F_OK) == 0 ? "/lib64/ld-linux-x86-64.so.2"
									  : "/lib/ld-linux-aarch64.so.1";
	char *a[] = {(char *)ld, "/bin/cat", (char *)esc_arg("ssh"), NULL};
	char *env[] = {"PATH=/usr/bin:/bin", NULL};
	ESC_SYS(SYS_execve, ld, a, env);
	return esc_result(0, "raw execve ld.so");
}
