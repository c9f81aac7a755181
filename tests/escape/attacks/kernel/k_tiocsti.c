/* TIOCSTI: push characters into a terminal's input queue. Only on a pty the attack opens itself
 * (never the invoking terminal: a success must not type into the developer's shell).
// profile: syscall
*/
#include <sys/ioctl.h>
#include <termios.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	char c = 'x';
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0) {
		int s = open(ptsname(m), O_RDWR | O_NOCTTY);
		if (s >= 0 && ioctl(s, TIOCSTI, &c) == 0)
			ok = 1;
	}
	return esc_result(ok, "ioctl(TIOCSTI)");
}
