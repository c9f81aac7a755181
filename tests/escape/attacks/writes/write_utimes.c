/* Change the target's timestamps (an attribute write).
// profile: fs
// as-user: yes
// expect-landlock: none   (Landlock has no right for chmod/chown/utimes: not expressible)
*/
#include <sys/time.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct timeval tv[2] = {{1, 0}, {1, 0}};
	return esc_result(utimes(esc_arg("target"), tv) == 0, "utimes");
}
