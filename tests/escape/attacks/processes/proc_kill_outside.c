/* SIGKILL a process outside the sandbox (the runner checks independently that it survived).
// profile: proc
// silent-ok-container-root: container root: the probes are off (the runtime withholds CAP_BPF/CAP_PERFMON) or, where granted, do not see the run (README Known gaps); the run's pid namespace or identity refuses the signal (ESRCH/EPERM) and seccomp does not decide signals
// silent-ok-seccomp: the run's pid namespace / identity refuses the signal (ESRCH/EPERM); seccomp does not decide signals (Landlock scoping, the preload and the probes report them in the other modes)
*/
#include <signal.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_result(kill(esc_int("victim"), SIGKILL) == 0, "kill(victim)");
}
