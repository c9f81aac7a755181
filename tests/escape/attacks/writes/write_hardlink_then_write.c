/* Hard-link the target into the workspace, then write through the link.
// profile: fs
// as-user: yes
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char l[4096];
	esc_join(l, sizeof l, esc_arg("ws"), "hl-w.txt");
	if (link(esc_arg("target"), l) < 0)
		fprintf(stderr, "attack: link: %s\n", strerror(errno));
	int fd = open(l, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return esc_result(0, "open link for write");
	return esc_result(write(fd, "pwned\n", 6) == 6, "write via hard link");
}
