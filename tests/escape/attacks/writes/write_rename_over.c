/* Create a file in the workspace and rename(2) it over the protected target.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char s[4096];
	esc_join(s, sizeof s, esc_arg("ws"), "new.txt");
	int fd = open(s, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		(void)!write(fd, "pwned\n", 6);
		close(fd);
	}
	return esc_result(rename(s, esc_arg("target")) == 0, "rename over target");
}
