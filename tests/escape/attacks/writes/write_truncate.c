/* truncate(2) the protected target by path.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_result(truncate(esc_arg("target"), 0) == 0, "truncate");
}
