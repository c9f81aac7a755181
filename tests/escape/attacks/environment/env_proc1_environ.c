/* Read /proc/1/environ (init outside a pid namespace; bwrap's init inside one).
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_read_path("/proc/1/environ");
}
