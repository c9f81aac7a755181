/* Open ~/.ssh as a directory (O_PATH), then openat(dirfd, "id_rsa").
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int d = open(esc_arg("sshdir"), O_PATH | O_DIRECTORY);
	if (d < 0)
		d = open(esc_arg("home"), O_PATH | O_DIRECTORY);
	if (d < 0)
		return esc_result(0, "open dir");
	int fd = openat(d, "id_rsa", O_RDONLY);
	if (fd < 0)
		fd = openat(d, ".ssh/id_rsa", O_RDONLY);
	if (fd < 0)
		return esc_result(0, "openat");
	return esc_result(esc_dump_fd(fd) > 0, "openat(dirfd)");
}
