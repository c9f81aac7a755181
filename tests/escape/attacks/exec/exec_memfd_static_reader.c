/* code:exec granted: copy the static canary reader into a memfd and execveat it — the preload
 * never loads in a static binary, so only the kernel layers stand between it and ~/.ssh/id_rsa.
// profile: fs-raw
// manifest: exec
*/
#include <sys/mman.h>
#include "esc.h"
extern char **environ;
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char p[4096], a1[4200];
	esc_join(p, sizeof p, esc_arg("bin"), "read_static");
	int src = open(p, O_RDONLY);
	int m = memfd_create("r", 0);
	if (src < 0 || m < 0)
		return esc_result(0, "open/memfd_create");
	char buf[65536];
	ssize_t n;
	while ((n = read(src, buf, sizeof buf)) > 0)
		if (write(m, buf, (size_t)n) != n)
			return esc_result(0, "copy");
	snprintf(a1, sizeof a1, "ssh=%s", esc_arg("ssh"));
	char *a[] = {"r", a1, NULL};
	ESC_SYS(SYS_execveat, m, "", a, environ, AT_EMPTY_PATH);
	return esc_result(0, "execveat(memfd)");
}
