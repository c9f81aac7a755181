/* fuzz_manifest.c — libFuzzer target: the manifest parser (manifest_parse) on arbitrary bytes,
 * with a fixed context; every manifest it accepts is also compiled (pol_build, no name
 * resolution) and the blob must pass pol_open. Must never crash, leak or read out of bounds. */
#include <stdio.h>

#include "fuzz_common.h"
#include "manifest.h"
#include "policy.h"
#include "policy_build.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct mf_ctx ctx = {.home = "/home/fuzz", .workspace = "/work/ws", .uid = 1000};
	struct manifest *m = NULL;
	struct mf_errors e;
	memset(&e, 0, sizeof e);
	/* exact-size buffer, no NUL terminator: the parser must honour len */
	int r = manifest_parse((const char *)data, size, "fuzz.json", &ctx, &m, &e);
	if (r == 0) {
		if (!m)
			abort(); /* success must yield a manifest */
		void *blob = NULL;
		size_t len = 0;
		char err[256];
		const struct pol_build_opts o = {.resolve = false, .uid = 1000};
		if (pol_build(m, &o, &blob, &len, err, sizeof err) == 0) {
			const char *why = NULL;
			if (!pol_open(blob, len, &why)) {
				fprintf(stderr, "pol_build produced a blob pol_open rejects: %s\n", why ? why : "?");
				abort();
			}
			free(blob);
		}
		manifest_free(m);
	} else if (e.n == 0) {
		abort(); /* a failure must say why */
	}
	mf_errors_free(&e);
	return 0;
}
