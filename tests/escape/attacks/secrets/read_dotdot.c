/* Relative path climbing out of the workspace with "..": ../home/.ssh/id_rsa from the workspace.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	if (chdir(esc_arg("ws")) < 0)
		return esc_result(0, "chdir ws");
	/* ws = $ESC/ws, home = $ESC/home */
	return esc_read_path("../ws/../home/.ssh/./id_rsa");
}
