/* PTRACE_ATTACH to a process outside the sandbox (the runner's victim).
// profile: proc
*/
#include <sys/ptrace.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_result(ptrace(PTRACE_ATTACH, esc_int("victim"), 0, 0) == 0, "ptrace attach");
}
