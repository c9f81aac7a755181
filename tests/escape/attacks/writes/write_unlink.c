/* unlink the protected target.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_result(unlink(esc_arg("target")) == 0, "unlink");
}
