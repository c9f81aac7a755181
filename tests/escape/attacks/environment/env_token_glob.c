/* The manifest passes "*_TOKEN" by glob: MY_API_TOKEN must still be dropped.
// profile: env
// manifest: env
// expect-full: blocked; events: env.drop(name=MY_API_TOKEN)
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	const char *v = getenv("MY_API_TOKEN");
	if (v)
		printf("%s\n", v);
	return esc_result(v != NULL, "getenv(MY_API_TOKEN)");
}
