/* Symlink in the private /tmp pointing at /etc/shadow, read through it.
// profile: fs
// expect-probes: blocked; events: kernel.violation(outcome=contained)|kernel.violation(outcome=undecidable,rule~gone)
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char l[256];
	snprintf(l, sizeof l, "/tmp/sbxesc-shadow-%d", (int)getpid());
	if (symlink(esc_arg("shadow"), l) < 0)
		fprintf(stderr, "attack: symlink: %s\n", strerror(errno));
	int r = esc_read_path(l);
	unlink(l);
	return r;
}
