/* chroot into the workspace (classic step of a chroot escape).
// profile: syscall
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_result(chroot(esc_arg("ws")) == 0, "chroot");
}
