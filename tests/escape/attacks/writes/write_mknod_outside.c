/* mknod / mkfifo a node in a directory nothing grants.
// profile: fs
// as-user: yes
// expect-probes: none   (the probes do not trace this call yet: issue 15, probes coverage)
*/
#include <stdio.h>
#include <sys/stat.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char p[4096], q[4096];
	snprintf(p, sizeof p, "%s/planted-fifo", esc_arg("outside"));
	snprintf(q, sizeof q, "%s/planted-node", esc_arg("outside"));
	int a = mkfifo(p, 0666);
	int b = mknod(q, S_IFIFO | 0666, 0);
	return esc_result(a == 0 || b == 0, "mkfifo/mknod outside the grants");
}
