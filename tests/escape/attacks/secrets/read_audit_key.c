/* Read the host's audit key (/var/lib/sbxsup/audit.key as root) through libc: with it the executor
 * could MAC a forged audit stream that `sbxsup audit verify --key` accepts. The key directory is in
 * the built-in never-readable list of every layer. The bytes are counted, never printed.
// profile: fs
*/
#include <unistd.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	const char *key = geteuid() == 0 ? "/var/lib/sbxsup/audit.key" : NULL;
	char p[4096];
	if (!key) {
		const char *h = getenv("HOME");
		snprintf(p, sizeof p, "%s/.local/state/sbxsup/audit.key", h ? h : "/");
		key = p;
	}
	int fd = open(key, O_RDONLY);
	char b[64];
	long n = fd >= 0 ? (long)read(fd, b, sizeof b) : -1;
	return esc_result(n > 0, key);
}
