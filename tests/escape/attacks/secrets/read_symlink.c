/* Plant a symlink in the (writable) workspace pointing at ~/.ssh/id_rsa and read through it.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char l[4096];
	esc_join(l, sizeof l, esc_arg("ws"), "innocent.txt");
	if (symlink(esc_arg("ssh"), l) < 0 && errno != EEXIST)
		fprintf(stderr, "attack: symlink: %s\n", strerror(errno));
	return esc_read_path(l);
}
