/* A program merely NAMED like sbxsup's stage: copy ourselves to <workspace>/sbxsup and run it as
 * "sbxsup __stage ..." — the preload used to go passive on the name alone (issue 15). Stage 2
 * reads the canary; the preload must still enforce (it checks the binary's identity, recorded by
 * the supervisor in the sealed policy, not its name).
// profile: fs
// manifest: exec
*/
#include <sys/sendfile.h>
#include <sys/stat.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	if (esc_opt("stage"))
		return esc_read_path(esc_arg("ssh"));
	char dst[4096];
	esc_join(dst, sizeof dst, esc_arg("ws"), "sbxsup");
	int in = open("/proc/self/exe", O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	struct stat st;
	if (in < 0 || out < 0 || fstat(in, &st) < 0 || sendfile(out, in, NULL, (size_t)st.st_size) != st.st_size)
		return esc_result(0, "copy to sbxsup");
	close(in);
	close(out);
	extern char **environ;
	char *a[64];
	int n = 0;
	a[n++] = dst;
	a[n++] = "__stage";
	for (int i = 1; i < esc_argc && n < 62; i++)
		a[n++] = esc_argv[i];
	a[n++] = "stage=2";
	a[n] = NULL;
	execve(dst, a, environ);
	return esc_result(0, "exec the fake stage");
}
