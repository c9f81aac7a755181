/* setns into the mount namespace of pid 1 (the host's, outside bwrap). A capability-less executor
 * cannot open another process's ns files, so it falls back to its own: setns itself is still tried
 * (and must be refused and reported by seccomp).
// profile: syscall
// expect-seccomp: blocked; events: seccomp.deny|kernel.violation(outcome=contained)
*/
#include <sched.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char p[64];
	snprintf(p, sizeof p, "/proc/%s/ns/mnt", esc_arg("victim"));
	int fd = open(p, O_RDONLY);
	if (fd < 0)
		fd = open("/proc/1/ns/mnt", O_RDONLY);
	if (fd < 0)
		fd = open("/proc/self/ns/mnt", O_RDONLY);
	if (fd < 0)
		return esc_result(0, "open ns");
	return esc_result(setns(fd, CLONE_NEWNS) == 0, "setns(mnt)");
}
