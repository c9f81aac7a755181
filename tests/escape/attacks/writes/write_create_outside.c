/* Create a new file in a directory outside every write grant.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char p[4096];
	esc_join(p, sizeof p, esc_arg("outside"), "planted.txt");
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	return esc_result(fd >= 0, "create outside");
}
