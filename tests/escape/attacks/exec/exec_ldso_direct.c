/* Run a program through the dynamic loader directly: /lib64/ld-linux-x86-64.so.2 /bin/true
 * (no code:exec).
// profile: exec
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	const char *ld = access("/lib64/ld-linux-x86-64.so.2", F_OK) == 0 ? "/lib64/ld-linux-x86-64.so.2"
									  : "/lib/ld-linux-aarch64.so.1";
	char *a[] = {(char *)ld, "/bin/true", NULL};
	execv(ld, a);
	return esc_result(0, "exec ld.so");
}
