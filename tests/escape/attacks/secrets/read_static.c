/* Statically linked reader: ld.so never runs, so LD_PRELOAD is never loaded.
// profile: fs-raw
// build: static
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	const char *p = esc_opt("path");
	return esc_read_path(p ? p : esc_arg("ssh"));
}
