/* Write a #! script into the workspace and exec it (no code:exec).
// profile: exec
*/
#include <sys/stat.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char p[4096];
	esc_join(p, sizeof p, esc_arg("ws"), "s.sh");
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0)
		return esc_result(0, "create script");
	(void)!write(fd, "#!/bin/sh\nexit 0\n", 17);
	close(fd);
	chmod(p, 0755);
	char *a[] = {p, NULL};
	execv(p, a);
	return esc_result(0, "exec script");
}
