/* chmod the protected target world-writable.
// profile: fs
// as-user: yes
// expect-landlock: none   (Landlock has no right for chmod/chown/utimes: not expressible)
*/
#include <sys/stat.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_result(chmod(esc_arg("target"), 0777) == 0, "chmod 0777");
}
