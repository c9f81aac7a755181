/* code:exec granted: a child started with an EMPTY environment by a raw execve (no libc, so no
 * interposer can put anything back) runs /bin/cat on the canary. Where the run has a mount tree of
 * its own (bwrap, or no-bwrap with a mount namespace) the preload is loaded by /etc/ld.so.preload
 * and finds its policy and report socket at /run/sbxsup: the open is refused AND reported.
// profile: fs-raw
// manifest: exec
// expect-full: blocked; events: preload.deny(op=open)
// expect-no-bwrap: blocked; events: preload.deny(op=open)
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char *a[] = {"cat", (char *)esc_arg("ssh"), NULL};
	char *env[] = {NULL};
	ESC_SYS(SYS_execve, "/bin/cat", a, env);
	return esc_result(0, "raw execve with an empty environment");
}
