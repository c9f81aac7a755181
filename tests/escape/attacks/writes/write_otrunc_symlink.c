/* Truncate through a symlink planted in the writable workspace.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char l[4096];
	esc_join(l, sizeof l, esc_arg("ws"), "out.txt");
	if (symlink(esc_arg("target"), l) < 0)
		fprintf(stderr, "attack: symlink: %s\n", strerror(errno));
	int fd = open(l, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return esc_result(0, "open(symlink, O_TRUNC)");
	return esc_result(write(fd, "pwned\n", 6) == 6, "write");
}
