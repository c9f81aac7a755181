/* Flood the preload report socket (SBXSUP_REPORT_FD) with garbage until it would block, then read
 * the canary: enforcement must not depend on reporting, and the supervisor must survive.
// profile: fs
*/
#include <sys/socket.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	const char *rf = getenv("SBXSUP_REPORT_FD");
	if (rf) {
		char junk[512];
		memset(junk, 0x41, sizeof junk);
		int fd = atoi(rf);
		for (int i = 0; i < 20000; i++)
			if (send(fd, junk, sizeof junk, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
				break;
	}
	return esc_read_path(esc_arg("ssh"));
}
