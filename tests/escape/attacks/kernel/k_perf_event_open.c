/* perf_event_open on a software counter of the whole system (cpu 0, pid -1).
// profile: syscall
*/
#include <linux/perf_event.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof a;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	long fd = ESC_SYS(SYS_perf_event_open, &a, -1, 0, -1, 0);
	return esc_result(fd >= 0, "perf_event_open(system-wide)");
}
