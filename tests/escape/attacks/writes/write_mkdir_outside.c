/* mkdir outside every write grant.
// profile: fs
*/
#include <sys/stat.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char p[4096];
	esc_join(p, sizeof p, esc_arg("outside"), "planted.d");
	return esc_result(mkdir(p, 0755) == 0, "mkdir outside");
}
