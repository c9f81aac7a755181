/* pl_walk.c — walks DIR with glibc's walkers and prints every path each one reports:
 *   pl_walk DIR      -> "nftw PATH [dnr]", "ftw PATH", "fts PATH [dnr]", "glob PATH" lines
 * (glob lists DIR/<any>/<any>: one level through each subdirectory). For preload_walk in
 * tests/integration/preload_files.sh: a workspace symlink to a denied directory must not let a
 * walk list it.
 */
#include <fts.h>
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>

static int nfn(const char *p, const struct stat *sb, int type, struct FTW *f)
{
	(void)sb; (void)f;
	printf("nftw %s%s\n", p, type == FTW_DNR ? " dnr" : "");
	return 0;
}

static int fn(const char *p, const struct stat *sb, int type)
{
	(void)sb;
	printf("ftw %s%s\n", p, type == FTW_DNR ? " dnr" : "");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	nftw(argv[1], nfn, 8, 0);           /* follows symlinks */
	nftw(argv[1], nfn, 8, FTW_DEPTH);   /* post-order: contents before their directory */
	ftw(argv[1], fn, 8);
	char *roots[] = { argv[1], NULL };
	FTS *t = fts_open(roots, FTS_LOGICAL | FTS_NOCHDIR, NULL);
	for (FTSENT *e; t && (e = fts_read(t)) != NULL;)
		if (e->fts_info != FTS_DP)
			printf("fts %s%s\n", e->fts_path, e->fts_info == FTS_DNR ? " dnr" : "");
	if (t)
		fts_close(t);
	char pat[4096];
	snprintf(pat, sizeof pat, "%s/*/*", argv[1]);
	glob_t g;
	memset(&g, 0, sizeof g);
	if (glob(pat, 0, NULL, &g) == 0)
		for (size_t i = 0; i < g.gl_pathc; i++)
			printf("glob %s\n", g.gl_pathv[i]);
	globfree(&g);
	return 0;
}
