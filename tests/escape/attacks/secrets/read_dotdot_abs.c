/* Absolute path with "..", "." and "//" that normalises to /etc/shadow.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_read_path("/usr/../etc//./shadow");
}
