/* process_vm_readv on the victim (reads its stack).
// profile: proc
*/
#include <sys/uio.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char maps[64], line[512];
	snprintf(maps, sizeof maps, "/proc/%s/maps", esc_arg("victim"));
	unsigned long lo = 0x400000;
	FILE *f = fopen(maps, "r");
	if (f) {
		if (fgets(line, sizeof line, f))
			lo = strtoul(line, NULL, 16);
		fclose(f);
	}
	char buf[64];
	struct iovec l = {buf, sizeof buf}, r = {(void *)lo, sizeof buf};
	ssize_t n = process_vm_readv(esc_int("victim"), &l, 1, &r, 1, 0);
	return esc_result(n > 0, "process_vm_readv");
}
