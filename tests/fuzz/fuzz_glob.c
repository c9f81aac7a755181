/* fuzz_glob.c — libFuzzer target: the glob matcher and path normalisation. The input is split at
 * its first '\n' into a glob and a path (both also tried made absolute); pol_glob_match,
 * pol_glob_literal_prefix, pol_glob_has_magic and pol_normalize must never crash, and the literal
 * prefix must never exceed the glob's length. */
#include <stdio.h>

#include "fuzz_common.h"
#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fz_strndup(data, size);
	char *nl = memchr(s, '\n', size);
	char *glob = s, *path;
	if (nl) {
		*nl = 0;
		path = nl + 1;
	} else {
		path = s;
	}
	(void)pol_glob_match(glob, path);
	(void)pol_glob_has_magic(glob);
	if (pol_glob_literal_prefix(glob) > strlen(glob))
		abort();
	/* absolute variants */
	size_t gl = strlen(glob), pl = strlen(path);
	char *ag = malloc(gl + 2), *apath = malloc(pl + 2);
	if (!ag || !apath)
		abort();
	ag[0] = '/';
	memcpy(ag + 1, glob, gl + 1);
	apath[0] = '/';
	memcpy(apath + 1, path, pl + 1);
	(void)pol_glob_match(ag, apath);
	if (pol_glob_literal_prefix(ag) > gl + 1)
		abort();
	/* normalisation: output must be absolute and NUL-terminated within its buffer */
	char out[4096];
	if (pol_normalize("/work/ws", path, out, sizeof out) == 0) {
		if (out[0] != '/' || strnlen(out, sizeof out) == sizeof out)
			abort();
		if (strstr(out, "/../") || strstr(out, "/./") || strstr(out, "//"))
			abort();
	}
	char tiny[8];
	(void)pol_normalize(apath, glob, tiny, sizeof tiny);
	free(ag);
	free(apath);
	free(s);
	return 0;
}
