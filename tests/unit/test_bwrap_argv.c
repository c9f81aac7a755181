/* test_bwrap_argv.c — unit test of the bwrap argv derived from a real compiled policy (layers/bwrap_layer.c):
 * parents before children, private /tmp before binds under it, masks after binds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bwrap_layer.h"
#include "grant_link.h"
#include "manifest.h"
#include "policy.h"
#include "policy_build.h"
#include "strv.h"

static ssize_t find(const struct strv *a, const char *s1, const char *s2)
{
	for (size_t i = 0; i + 1 < a->n; i++)
		if (!strcmp(a->v[i], s1) && (!s2 || !strcmp(a->v[i + 1], s2)))
			return (ssize_t)i;
	return -1;
}

/* The default manifest for the workspace `ws` plus `extra` read grants (may be NULL), compiled;
 * *m and *blob are the caller's to free, ctx must outlive them. */
static const struct policy *compile(struct mf_ctx *ctx, const char *ws, const char **extra, struct manifest **m,
				    void **blob)
{
	char err[512];
	assert_int_equal(mf_ctx_init(ctx, ws, err, sizeof err), 0);
	struct mf_errors e;
	memset(&e, 0, sizeof e);
	assert_int_equal(manifest_load_default(ctx, m, &e), 0);
	mf_errors_free(&e);
	size_t len = 0;
	struct pol_build_opts bo = {.uid = getuid(), .extra_read = extra};
	assert_int_equal(pol_build(*m, &bo, blob, &len, err, sizeof err), 0);
	const char *why;
	const struct policy *p = pol_open(*blob, len, &why);
	assert_non_null(p);
	return p;
}

static void t_bwrap_argv(void **state)
{
	(void)state;
	char ws[] = "/tmp/test_bwrap_argv.XXXXXX";
	assert_non_null(mkdtemp(ws));
	struct mf_ctx ctx;
	struct manifest *m = NULL;
	void *blob = NULL;
	char err[512];
	const struct policy *p = compile(&ctx, ws, NULL, &m, &blob);
	struct strv env = {0}, argv = {0};
	strv_add(&env, "PATH=/usr/bin");
	struct bwrap_in in = {.bwrap = "/usr/bin/bwrap", .self_exe = "/x/sbxsup", .preload_lib = "/x/lib.so",
			      .ldso_fd = 9, .workspace = m->workspace, .share_net = false, .env = &env};
	assert_int_equal(bwrap_argv(p, &in, &argv, err, sizeof err), 0);
	assert_string_equal(argv.v[0], "/usr/bin/bwrap");
	assert_true(find(&argv, "--unshare-net", NULL) > 0);
	assert_true(find(&argv, "--unshare-user", NULL) > 0);
	assert_true(find(&argv, "--die-with-parent", NULL) > 0);
	assert_true(find(&argv, "--clearenv", NULL) > 0);
	ssize_t tmp = find(&argv, "--tmpfs", "/tmp"), wsb = find(&argv, "--bind", m->workspace);
	assert_true(tmp > 0);
	assert_true(wsb > tmp); /* the workspace under /tmp is bound after the private /tmp */
	assert_true(find(&argv, "--ro-bind-data", "9") > 0);
	assert_true(find(&argv, "--ro-bind", "/x/sbxsup") > 0);
	assert_true(find(&argv, "--setenv", "PATH") > find(&argv, "--clearenv", NULL));
	assert_true(find(&argv, "--chdir", m->workspace) > 0);
	assert_string_equal(argv.v[argv.n - 1], "--");
	/* host /tmp, /root and /etc/shadow are never bound; /etc as a whole only when bwrap can bind
	 * the preload list over an existing /etc/ld.so.preload (else /etc entry by entry) */
	struct stat lst;
	bool host_ldso = lstat("/etc/ld.so.preload", &lst) == 0 && S_ISREG(lst.st_mode);
	assert_true(find(&argv, "--bind", "/tmp") < 0);
	assert_true((find(&argv, "--ro-bind", "/etc") > 0) == host_ldso);
	assert_true(find(&argv, "--ro-bind", "/root") < 0);
	assert_true(find(&argv, "--ro-bind", "/etc/shadow") < 0);
	if (!host_ldso && access("/etc/passwd", F_OK) == 0)
		assert_true(find(&argv, "--ro-bind", "/etc/passwd") > 0);
	strv_free(&argv);
	/* without the preload: /etc bound once (POL_TREE), its secrets masked, no entry bound alone */
	in.preload_lib = NULL;
	assert_int_equal(bwrap_argv(p, &in, &argv, err, sizeof err), 0);
	ssize_t etc = find(&argv, "--ro-bind", "/etc");
	assert_true(etc > 0);
	assert_true(find(&argv, "--ro-bind", "/etc/passwd") < 0);
	if (access("/etc/shadow", F_OK) == 0) {
		ssize_t mask = find(&argv, "/dev/null", "/etc/shadow");
		assert_true(mask > etc && !strcmp(argv.v[mask - 1], "--ro-bind"));
	}
	assert_true(find(&argv, "--ro-bind-data", NULL) < 0);
	in.preload_lib = "/x/lib.so";
	strv_free(&argv);
	in.share_net = true;
	assert_int_equal(bwrap_argv(p, &in, &argv, err, sizeof err), 0);
	assert_true(find(&argv, "--unshare-net", NULL) < 0);
	strv_free(&argv);
	/* as root: the run's user namespace, the workspace bound from its staged idmapped mount, a
	 * granted path the host identity cannot reach left out */
	const char *staged[] = {m->workspace};
	struct strv unreach = {0};
	strv_add(&unreach, "/usr");
	in.userns = true, in.userns_fd = 7, in.stage_dir = "/run/x/stage", in.staged = staged, in.nstaged = 1;
	in.unreachable = &unreach;
	assert_int_equal(bwrap_argv(p, &in, &argv, err, sizeof err), 0);
	assert_true(find(&argv, "--userns", "7") > 0);
	assert_true(find(&argv, "--unshare-user", NULL) < 0);
	ssize_t sb = find(&argv, "--bind", "/run/x/stage/w0");
	assert_true(sb > 0 && !strcmp(argv.v[sb + 2], m->workspace));
	assert_true(find(&argv, "--ro-bind", "/usr") < 0);
	strv_free(&argv);
	strv_free(&unreach);
	strv_free(&env);
	free(blob);
	manifest_free(m);
	rmdir(ws);
}

/* A read-only grant below a directory already bound read-only (sbxsup installed under /usr) is not
 * bound again; one elsewhere is. */
static void t_bwrap_argv_nested(void **state)
{
	(void)state;
	char ws[] = "/tmp/test_bwrap_argv.XXXXXX";
	assert_non_null(mkdtemp(ws));
	char own[sizeof ws + 16];
	snprintf(own, sizeof own, "%s/own", ws);
	assert_int_equal(mkdir(own, 0755), 0);
	struct mf_ctx ctx;
	struct manifest *m = NULL;
	void *blob = NULL;
	char err[512];
	const char *extra[] = {"/usr/bin", "/usr/lib", own, NULL};
	const struct policy *p = compile(&ctx, ws, extra, &m, &blob);
	struct strv env = {0}, argv = {0};
	struct bwrap_in in = {.bwrap = "/usr/bin/bwrap", .self_exe = "/x/sbxsup", .workspace = m->workspace,
			      .env = &env};
	assert_int_equal(bwrap_argv(p, &in, &argv, err, sizeof err), 0);
	assert_true(find(&argv, "--ro-bind", "/usr") > 0);
	assert_true(find(&argv, "--ro-bind", "/usr/bin") < 0);
	assert_true(find(&argv, "--ro-bind", "/usr/lib") < 0);
	/* (the workspace, read-write, holds `own`: a read-only grant below it is bound) */
	assert_true(find(&argv, "--ro-bind", own) > find(&argv, "--bind", m->workspace));
	strv_free(&argv);
	free(blob);
	manifest_free(m);
	rmdir(own);
	rmdir(ws);
}

static bool has(const struct strv *a, const char *s)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], s))
			return true;
	return false;
}

/* A grant through a link (grant_link.h): to an object the policy does not grant, nothing is bound
 * (neither the name nor the object); to a granted object inside a bound directory, nothing either
 * (that bind shows the link, an absolute one could not be mounted on in the new root); elsewhere
 * the object is bound at the name. */
static void t_bwrap_argv_linked(void **state)
{
	(void)state;
	char ws[] = "/tmp/test_bwrap_argv.XXXXXX", out[] = "/var/tmp/test_bwrap_out.XXXXXX",
	     far[] = "/var/tmp/test_bwrap_lnk.XXXXXX";
	assert_non_null(mkdtemp(ws));
	assert_non_null(mkdtemp(out));
	assert_non_null(mkdtemp(far));
	char real[sizeof ws + 8], ok[sizeof ws + 8], bad[sizeof ws + 8], lnk[sizeof far + 8];
	snprintf(real, sizeof real, "%s/real", ws);
	snprintf(ok, sizeof ok, "%s/ok", ws);
	snprintf(bad, sizeof bad, "%s/bad", ws);
	snprintf(lnk, sizeof lnk, "%s/lnk", far);
	assert_int_equal(mkdir(real, 0755), 0);
	assert_int_equal(symlink(real, ok), 0);
	assert_int_equal(symlink(out, bad), 0);
	assert_int_equal(symlink("/usr/share", lnk), 0);
	struct mf_ctx ctx;
	struct manifest *m = NULL;
	void *blob = NULL;
	char err[512];
	const char *extra[] = {ok, bad, lnk, NULL};
	const struct policy *p = compile(&ctx, ws, extra, &m, &blob);
	char got[4096];
	assert_false(sbx_grant_followed(p, bad, POL_READ, got, sizeof got));
	assert_string_equal(got, out);
	assert_true(sbx_grant_followed(p, ok, POL_READ, got, sizeof got));
	assert_string_equal(got, real);
	assert_true(sbx_grant_followed(p, real, POL_READ, got, sizeof got));
	assert_string_equal(got, "");
	struct strv env = {0}, argv = {0};
	struct bwrap_in in = {.bwrap = "/usr/bin/bwrap", .self_exe = "/x/sbxsup", .workspace = m->workspace,
			      .env = &env};
	assert_int_equal(bwrap_argv(p, &in, &argv, err, sizeof err), 0);
	assert_false(has(&argv, bad));
	assert_false(has(&argv, out));
	assert_false(has(&argv, ok));
	assert_true(find(&argv, "--bind", m->workspace) > 0);
	ssize_t i = find(&argv, "--ro-bind", "/usr/share");
	assert_true(i > 0 && !strcmp(argv.v[i + 2], lnk));
	strv_free(&argv);
	free(blob);
	manifest_free(m);
	unlink(ok);
	unlink(bad);
	unlink(lnk);
	rmdir(real);
	rmdir(ws);
	rmdir(out);
	rmdir(far);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_bwrap_argv),
		cmocka_unit_test(t_bwrap_argv_nested),
		cmocka_unit_test(t_bwrap_argv_linked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
