/* Read the host's audit key (/var/lib/sbxsup/audit.key: the runner runs sbxsup as root) through
 * libc: with it the executor could MAC a forged audit stream that `sbxsup audit verify --key`
 * accepts. The key directory is in the built-in never-readable list of every layer. The bytes are
 * counted, never printed. (The executor's own uid does not matter: it may run as a non-zero uid.)
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	const char *key = "/var/lib/sbxsup/audit.key";
	int fd = open(key, O_RDONLY);
	char b[64];
	long n = fd >= 0 ? (long)read(fd, b, sizeof b) : -1;
	return esc_result(n > 0, key);
}
