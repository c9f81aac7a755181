/* The manifest lists AWS_SECRET_ACCESS_KEY in env.pass: secret-shaped names are dropped anyway
 * (and the drop recorded). Success when the canary value is in the environment.
// profile: env
// manifest: env
// expect-full: blocked; events: env.drop(name=AWS_SECRET_ACCESS_KEY)
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	const char *v = getenv("AWS_SECRET_ACCESS_KEY");
	if (v)
		printf("%s\n", v);
	return esc_result(v != NULL, "getenv(AWS_SECRET_ACCESS_KEY)");
}
