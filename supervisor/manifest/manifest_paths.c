/* manifest_paths.c — hint expansion for the manifest.
 *
 * Promise: a hint becomes an absolute, lexically normalised glob: "~" and "~/x" are the invoking
 * user's home, a relative hint is joined onto the workspace, then "//", "." and ".." are collapsed
 * and a trailing "/" dropped (pol_normalize itself, no system calls, so the manifest and the
 * policy agree). Empty hints, "~user" and results longer than 4096 bytes are
 * refused. mf_hint_dir() gives the directory-level form used by bwrap and Landlock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "manifest_int.h"
#include "policy.h"

/* The policy's own normaliser: the manifest and every layer normalise paths identically. */
int mf_normalize(const char *cwd, const char *path, char *out, size_t outlen)
{
	return pol_normalize(cwd, path, out, outlen);
}

int mf_expand(const char *hint, const char *home, const char *workspace, char *out, size_t outlen,
	      const char **why)
{
	char tmp[MF_PATH_MAX + 2];
	size_t hl = strlen(hint);
	if (hl == 0) {
		*why = "empty path";
		return -1;
	}
	if (hl > MF_PATH_MAX) {
		*why = "longer than 4096 bytes";
		return -1;
	}
	const char *base = workspace, *rest = hint;
	if (hint[0] == '~') {
		if (hint[1] != '\0' && hint[1] != '/') {
			*why = "\"~user\" is not supported (only \"~\" and \"~/...\": the invoking user's home)";
			return -1;
		}
		if (!home || home[0] != '/') {
			*why = "\"~\" used but the home directory is unknown";
			return -1;
		}
		base = home;
		rest = hint[1] ? hint + 2 : "";
		if (strlen(home) + 1 + strlen(rest) >= sizeof tmp) {
			*why = "longer than 4096 bytes after expansion";
			return -1;
		}
		strcpy(tmp, home);
		strcat(tmp, "/");
		strcat(tmp, rest);
		rest = tmp;
	} else if (hint[0] != '/' && (!workspace || workspace[0] != '/')) {
		*why = "relative path but the workspace is unknown";
		return -1;
	}
	if (mf_normalize(base, rest, out, outlen) < 0 || strlen(out) > MF_PATH_MAX) {
		*why = "longer than 4096 bytes after expansion";
		return -1;
	}
	return 0;
}

char *mf_expand_path(const char *hint, const struct mf_ctx *ctx)
{
	char out[MF_PATH_MAX + 1];
	const char *why;
	if (!hint || !ctx) {
		errno = EINVAL;
		return NULL;
	}
	if (mf_expand(hint, ctx->home, ctx->workspace, out, sizeof out, &why) < 0) {
		errno = strstr(why, "4096") ? ENAMETOOLONG : EINVAL;
		return NULL;
	}
	return strdup(out);
}

char *mf_hint_dir(const char *abs)
{
	size_t keep = pol_glob_literal_prefix(abs); /* the policy's own cut: the layers use the same */
	if (keep == 0)
		return strdup("/");
	return strndup(abs, keep);
}
