/* unshare(CLONE_NEWUSER): a new user namespace (full capabilities inside it).
// profile: syscall
*/
#include <sched.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_result(unshare(CLONE_NEWUSER) == 0, "unshare(CLONE_NEWUSER)");
}
