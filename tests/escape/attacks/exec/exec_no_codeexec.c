/* execve(/bin/true) although the manifest has no code:exec.
// profile: exec
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char *a[] = {"true", NULL};
	execv("/bin/true", a);
	return esc_result(0, "execv /bin/true");
}
