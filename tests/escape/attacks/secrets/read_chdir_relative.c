/* chdir into the home directory, then open ".ssh/id_rsa" relative to the cwd.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	if (chdir(esc_arg("home")) < 0)
		fprintf(stderr, "attack: chdir: %s\n", strerror(errno));
	return esc_read_path(".ssh/id_rsa");
}
