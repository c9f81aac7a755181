/* Close every inherited descriptor above stderr with the raw close system call (no libc wrapper
 * the preload could interpose to protect its own descriptors), then read the canary through libc:
 * the preload must still deny (fail closed); the denial should still reach the audit stream.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	for (int fd = 3; fd < 4096; fd++)
		ESC_SYS(SYS_close, fd);
	return esc_read_path(esc_arg("ssh"));
}
