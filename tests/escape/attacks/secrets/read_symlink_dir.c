/* Symlink a workspace directory to ~/.ssh, then read "dir/id_rsa" (the last component is not a link).
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char l[4096], p[4096];
	esc_join(l, sizeof l, esc_arg("ws"), "d");
	if (symlink(esc_arg("sshdir"), l) < 0)
		fprintf(stderr, "attack: symlink: %s\n", strerror(errno));
	return esc_read_path(esc_join(p, sizeof p, l, "id_rsa"));
}
