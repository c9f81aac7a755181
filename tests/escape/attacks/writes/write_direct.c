/* Overwrite a file outside every write grant (O_WRONLY|O_TRUNC).
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int fd = open(esc_arg("target"), O_WRONLY | O_TRUNC);
	if (fd < 0)
		return esc_result(0, "open O_TRUNC");
	return esc_result(write(fd, "pwned\n", 6) == 6, "write");
}
