/* code:exec granted: use up every file descriptor (RLIMIT_NOFILE) and re-exec with all of them
 * inherited, so the child's preload cannot open anything at start-up; stage 2 frees them and
 * reads the canary. The preload must fail closed.
// profile: fs
// manifest: exec
*/
#include <sys/resource.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	if (esc_opt("stage")) {
		for (int fd = 3; fd < 1024; fd++) {
			char p[64], l[256];
			snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
			ssize_t n = readlink(p, l, sizeof l - 1);
			if (n > 0 && !strncmp(l, "/dev/null", 9))
				close(fd);
		}
		return esc_read_path(esc_arg("ssh"));
	}
	struct rlimit rl = {64, 64};
	setrlimit(RLIMIT_NOFILE, &rl);
	int last = -1, fd;
	while ((fd = open("/dev/null", O_RDONLY)) >= 0)
		last = fd;
	/* leave two descriptors free: enough for ld.so to map libc (it closes each library after
	 * mapping it), too few for anything the preload might want to open on top */
	if (last > 4) {
		close(last);
		close(last - 1);
	}
	return esc_reexec_stage2();
}
