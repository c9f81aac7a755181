/* SIGKILL a process outside the sandbox (the runner checks independently that it survived).
// profile: proc
*/
#include <signal.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_result(kill(esc_int("victim"), SIGKILL) == 0, "kill(victim)");
}
