/* rename(2) the protected target into the workspace (moves it out of its directory).
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char d[4096];
	esc_join(d, sizeof d, esc_arg("ws"), "stolen.txt");
	return esc_result(rename(esc_arg("target"), d) == 0, "rename target away");
}
