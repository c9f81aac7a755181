/* Copy /bin/true into a memfd and fexecve it (fileless exec), no code:exec.
// profile: exec
*/
#include <sys/mman.h>
#include "esc.h"
extern char **environ;
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int src = open("/bin/true", O_RDONLY);
	int m = memfd_create("x", 0);
	if (src < 0 || m < 0)
		return esc_result(0, "open/memfd_create");
	char buf[65536];
	ssize_t n;
	while ((n = read(src, buf, sizeof buf)) > 0)
		if (write(m, buf, (size_t)n) != n)
			return esc_result(0, "copy");
	char *a[] = {"true", NULL};
	fexecve(m, a, environ);
	return esc_result(0, "fexecve(memfd)");
}
