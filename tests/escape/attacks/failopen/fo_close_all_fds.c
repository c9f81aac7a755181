/* Close every inherited descriptor above stderr (the report socket, the policy memfd and any copy
 * the preload keeps), then read the canary: the denial must still happen (fail closed) and still
 * be reported (or the bypass seen by the probes).
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	for (int fd = 3; fd < 4096; fd++)
		close(fd);
	return esc_read_path(esc_arg("ssh"));
}
