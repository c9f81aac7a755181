/* test_deny.c — a manifest `deny` for the directory-level layers (issue 28): the policy's view of the
 * manifest's denies (pol_manifest_deny, pol_rule_hard_deny), the start-up walk that adds their
 * existing matches as masks (deny_expand.h, through pol_build's deny_walk) and its bounds, and
 * Landlock's entry-by-entry grant around them (landlock_deny.h), which gives a link among the
 * entries no rule on an object the policy does not grant; and the exec stop's decision on the
 * descriptors an image holds (sbx_sn_decide_exe). Real directories under /tmp. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>

#include "child_expect.h"

#include "deny_expand.h"
#include "landlock_deny.h"
#include "landlock_layer.h"
#include "policy.h"
#include "policy_build.h"
#include "policy_write.h"
#include "seccomp_notify.h"

static char root[256];

static void mk(const char *rel, bool dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	if (dir) {
		assert_int_equal(mkdir(p, 0755), 0);
	} else {
		FILE *f = fopen(p, "w");
		assert_non_null(f);
		fputs("x\n", f);
		fclose(f);
	}
}

static char *at(const char *rel)
{
	static char buf[8][PATH_MAX];
	static int k;
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof buf[k], "%s/%s", root, rel);
	return buf[k];
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof root, "/tmp/sbx-test-deny.XXXXXX");
	assert_non_null(mkdtemp(root));
	const char *dirs[] = {"ws", "ws/app", "ws/a", "ws/a/b", "ws/x", "ro", "ro/private", "ro/pub"};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		mk(dirs[i], true);
	const char *files[] = {"ws/app/.env", "ws/a/b/.env", "ws/x/y", "ws/top", "ro/private/key",
			       "ro/pub/doc", "ro/readme"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		mk(files[i], false);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static struct mf_hint hint(const char *glob, const char *abs, const char *dir, const char *jpath)
{
	return (struct mf_hint){ .glob = (char *)glob, .abs = (char *)abs, .dir = (char *)dir,
				 .jpath = (char *)jpath };
}

struct built { void *blob; size_t len; const struct policy *p; struct dx_result walk; };

/* ws the workspace, ro granted read-only, deny "**" "/.env" and ro/private/ "**". */
static struct built build(bool walk)
{
	static char ro_glob[PATH_MAX], priv_glob[PATH_MAX];
	snprintf(ro_glob, sizeof ro_glob, "%s/**", at("ro"));
	snprintf(priv_glob, sizeof priv_glob, "%s/**", at("ro/private"));
	static struct mf_hint reads[1], denies[2];
	reads[0] = hint(ro_glob, ro_glob, at("ro"), "capabilities[1].hints[0]");
	denies[0] = hint("**/.env", "/**/.env", "/", "deny[0]");
	denies[1] = hint(priv_glob, priv_glob, at("ro/private"), "deny[1]");
	static char ws[PATH_MAX];
	snprintf(ws, sizeof ws, "%s", at("ws"));
	struct manifest m = {
		.version = 1, .name = "t", .autonomy = MF_AUTONOMY_SUPERVISED,
		.code_path = "/opt/ex/run.py", .code_dir = "/opt/ex", .workspace = ws, .home = "/home/u",
		.reads = reads, .nreads = 1, .denies = denies, .ndenies = 2,
	};
	struct built b = {0};
	struct pol_build_opts o = {.deny_walk = walk ? &b.walk : NULL};
	char err[512];
	int rc = pol_build(&m, &o, &b.blob, &b.len, err, sizeof err);
	if (rc)
		print_error("pol_build: %s\n", err);
	assert_int_equal(rc, 0);
	const char *why = NULL;
	b.p = pol_open(b.blob, b.len, &why);
	assert_non_null(b.p);
	return b;
}

static bool masked(const struct policy *p, const char *path)
{
	struct pol_dir d;
	for (size_t i = 0; i < pol_mask_count(p); i++)
		if (pol_mask_get(p, i, &d) == 0 && !strcmp(d.path, path))
			return true;
	return false;
}

static void test_manifest_denies(void **state)
{
	(void)state;
	struct built b = build(false);
	uint32_t r0, r1, r;
	const char *g0 = pol_manifest_deny(b.p, 0, &r0);
	assert_non_null(g0);
	assert_string_equal(g0, "/**/.env");
	assert_non_null(pol_manifest_deny(b.p, 1, &r1));
	assert_null(pol_manifest_deny(b.p, 2, &r));
	assert_true(pol_rule_hard_deny(b.p, r0));
	assert_true(pol_rule_hard_deny(b.p, r1));
	struct pol_decision d;
	assert_int_equal(pol_path(b.p, at("ws/x/y"), POL_READ, &d), POL_ALLOW);
	assert_false(pol_rule_hard_deny(b.p, d.rule));
	assert_false(pol_rule_hard_deny(b.p, POL_RULE_DEFAULT));
	/* without the walk: only what a deny names literally (ro/private) is a mask */
	assert_true(masked(b.p, at("ro/private")));
	assert_false(masked(b.p, at("ws/app/.env")));
	free(b.blob);
}

static void test_walk_masks(void **state)
{
	(void)state;
	struct built b = build(true);
	assert_true(masked(b.p, at("ws/app/.env")));
	assert_true(masked(b.p, at("ws/a/b/.env")));
	assert_true(masked(b.p, at("ro/private")));
	assert_false(masked(b.p, at("ws/x/y")));
	assert_false(masked(b.p, at("ro/private/key"))); /* its directory is masked whole */
	assert_false(b.walk.truncated);
	assert_int_equal(b.walk.matches, 3); /* two .env, ro/private taken whole */
	assert_true(b.walk.walked >= 10);
	free(b.blob);
}

static void test_walk_bounded(void **state)
{
	(void)state;
	struct pol_writer *w = pol_writer_new();
	assert_non_null(w);
	assert_int_equal(pol_writer_meta(w, "t", at("ws"), "/home/u", false, POL_NET_NONE), 0);
	uint32_t g, d;
	assert_int_equal(pol_writer_rule(w, POL_R_GRANT, POL_READ | POL_WRITE, at("ws"), "builtin:workspace", &g), 0);
	assert_int_equal(pol_writer_dir(w, at("ws"), POL_READ | POL_WRITE, g), 0);
	assert_int_equal(pol_writer_rule(w, POL_R_HARD_DENY, 0, "/**/.env", "deny[0]: **/.env", &d), 0);
	struct dx_deny dd = {.glob = "/**/.env", .rule = d};
	struct dx_result r;
	assert_int_equal(deny_expand(w, &dd, 1, at("ws"), 2, &r), 0);
	assert_true(r.truncated);
	assert_non_null(strstr(r.note, "budget"));
	pol_writer_free(w);
}

static const struct pol_dir *find(const struct ll_carve *c, const char *path)
{
	for (size_t i = 0; i < c->ndirs; i++)
		if (!strcmp(c->dirs[i].path, path))
			return &c->dirs[i];
	return NULL;
}

static void test_landlock_carve(void **state)
{
	(void)state;
	struct built b = build(true);
	size_t n = pol_dir_count(b.p);
	struct pol_dir *in = calloc(n, sizeof *in);
	assert_non_null(in);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pol_dir_get(b.p, i, &in[i]), 0);
	/* seccomp behind Landlock: the read grant is entered, the write grant kept whole and said */
	struct ll_carve c;
	assert_int_equal(ll_deny_carve(b.p, in, n, false, &c), 0);
	const struct pol_dir *e = find(&c, at("ro"));
	assert_non_null(e);
	assert_int_equal(e->access & (POL_READ | POL_WRITE), 0);
	assert_true(e->access & POL_LIST);
	assert_non_null(find(&c, at("ro/pub")));
	assert_non_null(find(&c, at("ro/readme")));
	assert_null(find(&c, at("ro/private")));
	e = find(&c, at("ws"));
	assert_non_null(e);
	assert_true(e->access & POL_WRITE);
	assert_non_null(strstr(c.note, "write grant"));
	ll_deny_carve_free(&c);
	/* Landlock alone: the workspace is entered too, names only on the way to a match */
	assert_int_equal(ll_deny_carve(b.p, in, n, true, &c), 0);
	e = find(&c, at("ws"));
	assert_non_null(e);
	assert_int_equal(e->access & (POL_READ | POL_WRITE), 0);
	assert_true(e->access & LL_POL_NAMES);
	e = find(&c, at("ws/app"));
	assert_non_null(e);
	assert_true(e->access & LL_POL_NAMES);
	assert_null(find(&c, at("ws/app/.env")));
	assert_null(find(&c, at("ws/a/b/.env")));
	e = find(&c, at("ws/x"));
	assert_non_null(e);
	assert_true(e->access & POL_WRITE);
	assert_non_null(find(&c, at("ws/top")));
	ll_deny_carve_free(&c);
	free(in);
	free(b.blob);
}

/* A link among a carved grant's entries (an earlier executor can leave one in the workspace) to a
 * directory the policy does not grant: no Landlock rule lands on its object (grant_link.h); a link
 * to a granted file still works. Applied in a child: the object stays unreadable. */
static int carve_link_child(void *arg)
{
	const struct built *b = arg;
	struct sbx_landlock_result r;
	char why[256] = "";
	if (sbx_landlock_apply_stage(b->p, NULL, false, true, false, &r, why, sizeof why) < 0) {
		fprintf(stderr, "# child: apply: %s\n", why);
		return 90;
	}
	char f[PATH_MAX];
	snprintf(f, sizeof f, "%s/f", at("ro/lnk"));
	EXPECT_ERR("read ro/lnk/f (a link to outside)", open(f, O_RDONLY | O_CLOEXEC), EACCES);
	snprintf(f, sizeof f, "%s/f", at("ws/lnk"));
	EXPECT_ERR("read ws/lnk/f (a link to outside)", open(f, O_RDONLY | O_CLOEXEC), EACCES);
	int fd = open(at("ro/readme"), O_RDONLY | O_CLOEXEC);
	EXPECT_OK("read ro/readme", fd);
	fd = open(at("ro/doc-link"), O_RDONLY | O_CLOEXEC);
	EXPECT_OK("read ro/doc-link (a link to ro/pub/doc)", fd);
	return fails;
}

static void test_landlock_carve_link(void **state)
{
	(void)state;
	/* outside every grant: not under /tmp, which the policy grants (the run's private /tmp) */
	char out[] = "/var/tmp/sbx-test-deny-out.XXXXXX", f[PATH_MAX];
	assert_non_null(mkdtemp(out));
	snprintf(f, sizeof f, "%s/f", out);
	FILE *fp = fopen(f, "w");
	assert_non_null(fp);
	fputs("outside\n", fp);
	fclose(fp);
	assert_int_equal(symlink(out, at("ro/lnk")), 0);
	assert_int_equal(symlink(out, at("ws/lnk")), 0);
	assert_int_equal(symlink(at("ro/pub/doc"), at("ro/doc-link")), 0);
	struct built b = build(true);
	int rc = ku_in_child(carve_link_child, &b);
	free(b.blob);
	unlink(at("ro/lnk")); /* removed before the assertion: a failure leaves nothing behind */
	unlink(at("ws/lnk"));
	unlink(at("ro/doc-link"));
	unlink(f);
	rmdir(out);
	assert_int_equal(rc, 0);
}

/* The exec stop's decision (sbx_sn_decide_exe, seccomp_execpin.h) on what the image holds: a
 * descriptor of a denied file (a binfmt_misc `O` handler's AT_EXECFD, as here any descriptor) is
 * refused with the deny's rule and named as one; pipes and files the policy does not deny are
 * not. This process stands for the image (its exe is not denied). */
static void test_exec_stop_descriptors(void **state)
{
	(void)state;
	struct built b = build(false);
	struct sbx_sn_ctx c = {.pol = b.p};
	struct sbx_sn_report *rep = calloc(1, sizeof *rep);
	assert_non_null(rep);
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	int ok = open(at("ws/x/y"), O_RDONLY);
	assert_true(ok >= 0);
	assert_int_equal(sbx_sn_decide_exe(&c, getpid(), rep), 0);
	int fd = open(at("ws/app/.env"), O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(sbx_sn_decide_exe(&c, getpid(), rep), 1);
	assert_string_equal(rep->path, at("ws/app/.env"));
	assert_string_equal(rep->access, "read");
	assert_int_equal(rep->err, EACCES);
	assert_true(rep->violation);
	assert_string_equal(rep->rule, "deny[0]: **/.env");
	char want[64];
	snprintf(want, sizeof want, "fd %d held by the new image", fd);
	assert_string_equal(rep->requested, want);
	close(fd);
	/* deleted, it is decided on its last name */
	fd = open(at("ws/app/.env"), O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(unlink(at("ws/app/.env")), 0);
	assert_int_equal(sbx_sn_decide_exe(&c, getpid(), rep), 1);
	assert_string_equal(rep->path, at("ws/app/.env"));
	close(fd);
	mk("ws/app/.env", false);
	assert_int_equal(sbx_sn_decide_exe(&c, getpid(), rep), 0);
	close(ok);
	close(pfd[0]);
	close(pfd[1]);
	free(rep);
	free(b.blob);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manifest_denies),
		cmocka_unit_test(test_walk_masks),
		cmocka_unit_test(test_walk_bounded),
		cmocka_unit_test(test_landlock_carve),
		cmocka_unit_test(test_landlock_carve_link),
		cmocka_unit_test(test_exec_stop_descriptors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
