/* Raw execve system call of /bin/true without code:exec: the preload cannot interpose it.
// profile: exec-raw
*/
#include "esc.h"
extern char **environ;
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char *a[] = {"true", NULL};
	ESC_SYS(SYS_execve, "/bin/true", a, environ);
	return esc_result(0, "raw execve");
}
