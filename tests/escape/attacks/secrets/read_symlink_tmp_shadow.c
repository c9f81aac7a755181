/* Symlink in the private /tmp pointing at /etc/shadow, read through it.
// profile: fs
// expect-probes: blocked; events: none
// silent-ok-probes: open finding — in probes-only mode the file permissions refuse the read through the symlink, and a failed open's walk may end before the kernel resolved the link, so the probes judge the lexical /tmp path (allowed) and say nothing; every mode with the preload, seccomp's reporter or Landlock reports it
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
