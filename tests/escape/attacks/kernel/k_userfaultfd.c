/* userfaultfd (a classic kernel-exploit primitive).
// profile: syscall
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	long fd = ESC_SYS(SYS_userfaultfd, 0);
	return esc_result(fd >= 0, "userfaultfd");
}
