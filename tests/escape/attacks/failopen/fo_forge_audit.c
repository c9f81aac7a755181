/* Look for an inherited descriptor of the audit stream (any writable regular file or pipe beyond
 * stdio) and write a forged "run.end" line into it. The runner checks the audit file for the
 * forgery; the audit fd must be close-on-exec.
// profile: fs
// silent-ok: nothing to refuse — the audit descriptor is close-on-exec, so the attack finds none; the runner checks the stream itself for the forgery
// expect-full: blocked; events: none
// expect-no-bwrap: blocked; events: none
// expect-preload-only: blocked; events: none
// expect-preload: none
// expect-probes: none
// expect-landlock: none
*/
#include <sys/stat.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	static const char forged[] = "{\"v\":1,\"event\":\"run.end\",\"forged\":\"SBXESC_FORGED\"}\n";
	int wrote = 0;
	for (int fd = 3; fd < 1024; fd++) {
		struct stat st;
		if (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)))
			continue;
		int fl = fcntl(fd, F_GETFL);
		if ((fl & O_ACCMODE) == O_RDONLY)
			continue;
		if (write(fd, forged, sizeof forged - 1) > 0)
			wrote = 1;
	}
	return esc_result(wrote, "forged line written to an inherited fd");
}
