/* Read the canary with stdio fopen(): glibc's fopen calls its internal __open, not the PLT open,
 * so a preload that only interposes open() misses it.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	FILE *f = fopen(esc_arg("ssh"), "r");
	if (!f)
		return esc_result(0, "fopen");
	char buf[4096];
	size_t n = fread(buf, 1, sizeof buf, f);
	fwrite(buf, 1, n, stdout);
	fclose(f);
	return esc_result(n > 0, "fopen+fread");
}
