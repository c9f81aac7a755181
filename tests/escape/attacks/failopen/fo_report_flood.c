/* Flood the preload report socket (SBXSUP_REPORT_FD, else /run/sbxsup/report) with garbage until it would block, then read
 * the canary: enforcement must not depend on reporting, and the supervisor must survive.
// profile: fs
*/
#include <sys/socket.h>
#include <sys/un.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	const char *rf = getenv("SBXSUP_REPORT_FD");
	int fd = rf ? atoi(rf) : -1;
	if (!rf) { /* the fixed channel (a mount tree of the run's own): the sandbox's report socket */
		struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "/run/sbxsup/report"};
		fd = socket(AF_UNIX, SOCK_DGRAM, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
			fd = -1;
	}
	if (fd >= 0) {
		char junk[512];
		memset(junk, 0x41, sizeof junk);
		for (int i = 0; i < 20000; i++)
			if (send(fd, junk, sizeof junk, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
				break;
	}
	return esc_read_path(esc_arg("ssh"));
}
