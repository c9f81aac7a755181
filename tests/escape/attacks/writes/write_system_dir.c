/* Create a file in /etc (system paths are read-only): the runner removes it afterwards.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int fd = open(esc_arg("syswrite"), O_WRONLY | O_CREAT | O_EXCL, 0644);
	return esc_result(fd >= 0, "create in /etc");
}
