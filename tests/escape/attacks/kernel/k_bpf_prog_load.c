/* bpf(BPF_PROG_LOAD) of a trivial socket filter (kernel attack surface).
// profile: syscall
*/
#include <linux/bpf.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct bpf_insn insn[2] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	union bpf_attr a;
	memset(&a, 0, sizeof a);
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (unsigned long)insn;
	a.insn_cnt = 2;
	a.license = (unsigned long)"GPL";
	long fd = ESC_SYS(SYS_bpf, BPF_PROG_LOAD, &a, sizeof a);
	return esc_result(fd >= 0, "bpf(BPF_PROG_LOAD)");
}
