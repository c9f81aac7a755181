/* bpf(BPF_MAP_CREATE) — even unprivileged-looking BPF use is refused.
// profile: syscall
*/
#include <linux/bpf.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	union bpf_attr a;
	memset(&a, 0, sizeof a);
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 4;
	a.max_entries = 1;
	long fd = ESC_SYS(SYS_bpf, BPF_MAP_CREATE, &a, sizeof a);
	return esc_result(fd >= 0, "bpf(BPF_MAP_CREATE)");
}
