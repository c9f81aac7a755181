/* Hard-link the canary (same file system) into the workspace and read the link.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char l[4096];
	esc_join(l, sizeof l, esc_arg("ws"), "hl.txt");
	if (link(esc_arg("secret"), l) < 0)
		fprintf(stderr, "attack: link: %s\n", strerror(errno));
	return esc_read_path(l);
}
