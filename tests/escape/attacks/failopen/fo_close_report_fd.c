/* Close the preload report socket, then read the canary: a denial that cannot be reported must
 * still be a denial (fail closed); the probes still see any bypass.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	const char *rf = getenv("SBXSUP_REPORT_FD");
	if (rf)
		close(atoi(rf));
	return esc_read_path(esc_arg("ssh"));
}
