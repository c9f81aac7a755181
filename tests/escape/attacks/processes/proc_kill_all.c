/* kill(victim, 0): probes whether a process outside the sandbox can be signalled; success when the
 * victim (outside our own tree) is reachable.
// profile: proc
// silent-ok-seccomp: the run's pid namespace / identity refuses the signal (ESRCH/EPERM); seccomp does not decide signals (Landlock scoping, the preload and the probes report them in the other modes)
*/
#include <signal.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_result(kill(esc_int("victim"), 0) == 0, "kill(victim, 0)");
}
