/* pidfd_open + pidfd_send_signal(SIGKILL) on the victim.
// profile: proc
// silent-ok-container-root: container root: the probes are off (the runtime withholds CAP_BPF/CAP_PERFMON) or, where granted, do not see the run (README Known gaps); the run's pid namespace or identity refuses the signal (ESRCH/EPERM) and seccomp does not decide signals
// silent-ok-seccomp: the run's pid namespace / identity refuses the signal (ESRCH/EPERM); seccomp does not decide signals (Landlock scoping, the preload and the probes report them in the other modes)
*/
#include <signal.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	long fd = ESC_SYS(SYS_pidfd_open, esc_int("victim"), 0);
	if (fd < 0)
		return esc_result(0, "pidfd_open");
	return esc_result(ESC_SYS(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0) == 0, "pidfd_send_signal");
}
