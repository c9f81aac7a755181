/* Scan the whole environment for any canary the supervisor's own environment carries
 * (SBXESC_SUP_SECRET, never listed): nothing of the invoker's environment may leak.
// profile: env
// manifest: env
// expect-full: blocked; events: env.drop
*/
#include "esc.h"
extern char **environ;
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int found = 0;
	for (char **e = environ; *e; e++)
		if (strstr(*e, "SBXESC_CANARY_")) {
			printf("%s\n", *e);
			found = 1;
		}
	return esc_result(found, "canary in environ");
}
