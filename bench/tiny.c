/* tiny.c — a small process that reports its own peak memory, for `make bench`.
 *
 * Promise: prints {"hwm_kb":N,"rss_kb":M} — VmHWM and VmRSS of this process image, read from
 * /proc/self/status (VmHWM belongs to the current mm, so unlike ru_maxrss it is not inflated by
 * whatever ran in this process before exec). Run with and without LD_PRELOAD, the difference is
 * the memory the preload library adds. Exit 0, or 1 when /proc/self/status cannot be read.
 */
#include <stdio.h>
#include <string.h>

int main(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f) {
		perror("/proc/self/status");
		return 1;
	}
	char line[256];
	long hwm = -1, rss = -1;
	while (fgets(line, sizeof line, f)) {
		if (!strncmp(line, "VmHWM:", 6))
			sscanf(line + 6, "%ld", &hwm);
		else if (!strncmp(line, "VmRSS:", 6))
			sscanf(line + 6, "%ld", &rss);
	}
	fclose(f);
	if (hwm < 0 || rss < 0)
		return 1;
	printf("{\"hwm_kb\":%ld,\"rss_kb\":%ld}\n", hwm, rss);
	return 0;
}
