/* test_run_parts.c — unit tests for the run's pure parts: secret-shaped names, the environment
 * builder, `sbxsup run` argument parsing, the ctl status text, and the bwrap argv derived from a
 * real compiled policy (order: parents before children, private /tmp before binds under it,
 * masks after binds). */
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
#include "cmd.h"
#include "ctl.h"
#include "env.h"
#include "layer.h"
#include "layers.h"
#include "plan.h"
#include "manifest.h"
#include "policy.h"
#include "policy_build.h"
#include "run_args.h"
#include "sbxsup.h"
#include "sbxsup_int.h"
#include "strv.h"

/* main.c is not in libsup.a */

static void t_secret_shaped(void **state)
{
	(void)state;
	static const char *const yes[] = {
		"AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "GITHUB_TOKEN", "GH_PAT_TOKEN", "MY_API_KEY",
		"OPENAI_API_KEY", "DB_PASSWORD", "MYSQL_PWD_FILE_X", "DATABASE_URL", "SSH_AUTH_SOCK",
		"GOOGLE_APPLICATION_CREDENTIALS", "X_CREDENTIALS", "app_secret", "NPM_TOKEN", "LDAP_PASSWD",
	};
	static const char *const no[] = {"PATH", "HOME", "LANG", "TERM", "NOTES_DIR", "LC_ALL", "OLDPWD",
					 "PYTHONDONTWRITEBYTECODE", "KEYBOARD"};
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		assert_true(env_secret_shaped(yes[i]));
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		assert_false(env_secret_shaped(no[i]));
	assert_true(env_reserved("LD_PRELOAD"));
	assert_true(env_reserved("SBXSUP_POLICY_FD"));
	assert_false(env_reserved("LD_LIBRARY_PATH"));
}

static void t_env_build(void **state)
{
	(void)state;
	struct manifest m;
	memset(&m, 0, sizeof m);
	char *pass[] = {"MY_*", "GITHUB_TOKEN", "LD_PRELOAD"};
	struct mf_env_set set[] = {{"FIXED", "1"}, {"DB_PASSWORD", "hunter2"}, {"SBXSUP_RUN", "x"}};
	m.env_pass = pass;
	m.nenv_pass = 3;
	m.env_set = set;
	m.nenv_set = 3;
	m.home = "/home/u";
	char *caller[] = {"MY_VISIBLE=yes", "MY_API_KEY=s3cr3t", "GITHUB_TOKEN=ghp", "UNLISTED=no",
			  "LD_PRELOAD=/evil.so", NULL};
	struct strv env = {0}, dropped = {0};
	assert_int_equal(env_build(&m, caller, &env, &dropped), 0);
	assert_string_equal(strv_getenv(&env, "MY_VISIBLE"), "yes");
	assert_string_equal(strv_getenv(&env, "FIXED"), "1");
	assert_string_equal(strv_getenv(&env, "HOME"), "/home/u");
	assert_non_null(strv_getenv(&env, "PATH"));
	assert_null(strv_getenv(&env, "MY_API_KEY"));
	assert_null(strv_getenv(&env, "GITHUB_TOKEN"));
	assert_null(strv_getenv(&env, "DB_PASSWORD"));
	assert_null(strv_getenv(&env, "UNLISTED"));
	assert_null(strv_getenv(&env, "LD_PRELOAD"));
	assert_null(strv_getenv(&env, "SBXSUP_RUN"));
	assert_int_equal(dropped.n, 3);
	for (size_t i = 0; i < env.n; i++)
		assert_null(strstr(env.v[i], "s3cr3t"));
	assert_int_equal(env_set(&env, "FIXED", "2"), 0);
	assert_string_equal(strv_getenv(&env, "FIXED"), "2");
	strv_free(&env);
	strv_free(&dropped);
}

static void t_run_args(void **state)
{
	(void)state;
	struct sbx_opts *so = sbx_opts_new();
	assert_non_null(so);
	const struct run_opts *o = sbx_opts_run(so);
	unsetenv("SBXSUP_REQUIRE");
	unsetenv("SBXSUP_AUDIT");
	unsetenv("SBXSUP_SANDBOX");
	char *a1[] = {"run", "-m", "m.json", "--workspace=/w", "-a", "-", "--layers", "preload,bwrap",
		      "--require", "bwrap", "--timeout", "5", "--dry-run", "--", "echo", "hi", NULL};
	assert_int_equal(run_args_parse(16, a1, so), 0);
	assert_string_equal(o->manifest, "m.json");
	assert_string_equal(o->workspace, "/w");
	assert_string_equal(o->audit, "-");
	assert_int_equal(o->want, (1u << SBX_L_PRELOAD) | (1u << SBX_L_BWRAP));
	assert_int_equal(o->require, 1u << SBX_L_BWRAP);
	assert_int_equal(o->timeout_ms, 5000);
	assert_true(o->dry_run);
	assert_string_equal(o->cmd[0], "echo");

	char *a2[] = {"run", "--require", "all", "--", "true", NULL};
	assert_int_equal(run_args_parse(5, a2, so), 0);
	assert_int_equal(o->require, SBX_L_ALL);

	/* conventions of bwrap/systemd-run (cli_opt.h): attached short values, fractional seconds,
	 * layers subtracted/added */
	char *a4[] = {"run", "-mm.json", "-w/w", "--timeout=1.5", "--layers", "auto,-probes,-netfilter", "--",
		      "true", NULL};
	assert_int_equal(run_args_parse(8, a4, so), 0);
	assert_string_equal(o->manifest, "m.json");
	assert_string_equal(o->workspace, "/w");
	assert_int_equal(o->timeout_ms, 1500);
	assert_int_equal(o->want, SBX_L_ALL & ~((1u << SBX_L_PROBES) | (1u << SBX_L_NETFILTER)));
	char *a5[] = {"run", "--layers", "-bwrap", "--timeout", "0.0001", "--", "true", NULL};
	assert_int_equal(run_args_parse(7, a5, so), 0);
	assert_int_equal(o->want, SBX_L_ALL & ~(1u << SBX_L_BWRAP));
	assert_int_equal(o->timeout_ms, 1);
	char *a6[] = {"run", "--layers", "none,+preload,landlock", "--", "true", NULL};
	assert_int_equal(run_args_parse(5, a6, so), 0);
	assert_int_equal(o->want, (1u << SBX_L_PRELOAD) | (1u << SBX_L_LANDLOCK));
	static const char *const bad_layers[] = {"auto,-auto", "auto,,bwrap", "auto,-", "+nope", "auto,-nope"};
	for (size_t i = 0; i < sizeof bad_layers / sizeof bad_layers[0]; i++) {
		char *b[] = {"run", "--layers", (char *)bad_layers[i], "--", "true", NULL};
		assert_int_equal(run_args_parse(5, b, so), -1);
	}
	static const char *const bad_secs[] = {"1e3", "inf", "nan", ".5", "1.", "0", "0.0", "-1", "0x10", " 1", ""};
	for (size_t i = 0; i < sizeof bad_secs / sizeof bad_secs[0]; i++) {
		char *b[] = {"run", "--timeout", (char *)bad_secs[i], "--", "true", NULL};
		assert_int_equal(run_args_parse(5, b, so), -1);
	}
	char *bad1[] = {"run", "--timeout", "-3", "--", "true", NULL};
	char *bad2[] = {"run", "--layers", "nope", "--", "true", NULL};
	char *bad3[] = {"run", "--", NULL};
	char *bad4[] = {"run", "--frobnicate", "--", "true", NULL};
	assert_int_equal(run_args_parse(5, bad1, so), -1);
	assert_int_equal(run_args_parse(5, bad2, so), -1);
	assert_int_equal(run_args_parse(2, bad3, so), -1);
	assert_int_equal(run_args_parse(4, bad4, so), -1);

	setenv("SBXSUP_SANDBOX", "FaLsE", 1);
	setenv("SBXSUP_REQUIRE", "landlock", 1);
	char *a3[] = {"run", "--", "true", NULL};
	assert_int_equal(run_args_parse(3, a3, so), 0);
	assert_true(o->disabled);
	assert_int_equal(o->require, 1u << SBX_L_LANDLOCK);
	char *bad5[] = {"run", "-m", "x.json", "true", NULL}; /* no "--" */
	assert_int_equal(run_args_parse(4, bad5, so), -1);
	unsetenv("SBXSUP_SANDBOX");
	unsetenv("SBXSUP_REQUIRE");
	assert_true(run_env_false("off") && run_env_false("NO") && run_env_false("0"));
	assert_false(run_env_false("1") || run_env_false("yes") || run_env_false(NULL));
	sbx_opts_free(so);
}

static void t_ctl_status(void **state)
{
	(void)state;
	char v[64];
	const char *st = "landlock=on\nlandlock_level=abi 7\nseccomp=off\nseccomp_why=no\n";
	assert_int_equal(ctl_status_get(st, "landlock", v, sizeof v), 0);
	assert_string_equal(v, "on");
	assert_int_equal(ctl_status_get(st, "landlock_level", v, sizeof v), 0);
	assert_string_equal(v, "abi 7");
	assert_int_equal(ctl_status_get(st, "seccomp_why", v, sizeof v), 0);
	assert_string_equal(v, "no");
	assert_int_equal(ctl_status_get(st, "probes", v, sizeof v), -1);
}

static ssize_t find(const struct strv *a, const char *s1, const char *s2)
{
	for (size_t i = 0; i + 1 < a->n; i++)
		if (!strcmp(a->v[i], s1) && (!s2 || !strcmp(a->v[i + 1], s2)))
			return (ssize_t)i;
	return -1;
}

static void t_bwrap_argv(void **state)
{
	(void)state;
	char ws[] = "/tmp/test_run_parts.XXXXXX";
	assert_non_null(mkdtemp(ws));
	struct mf_ctx ctx;
	char err[512];
	assert_int_equal(mf_ctx_init(&ctx, ws, err, sizeof err), 0);
	struct manifest *m = NULL;
	struct mf_errors e;
	memset(&e, 0, sizeof e);
	assert_int_equal(manifest_load_default(&ctx, &m, &e), 0);
	void *blob = NULL;
	size_t len = 0;
	struct pol_build_opts bo = {.uid = getuid()};
	assert_int_equal(pol_build(m, &bo, &blob, &len, err, sizeof err), 0);
	const char *why;
	const struct policy *p = pol_open(blob, len, &why);
	assert_non_null(p);
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
	mf_errors_free(&e);
	rmdir(ws);
}

/* The one table: every layer registered at its own index, named, probed, saying what is lost;
 * exactly one wrapper; the names parse back to their bits. */
static void t_layer_table(void **state)
{
	(void)state;
	int wrappers = 0;
	for (int l = 0; l < SBX_L__N; l++) {
		const struct layer_ops *o = sbx_layer_ops[l];
		assert_non_null(o);
		assert_int_equal(o->id, l);
		assert_true(o->name && o->name[0]);
		assert_true(o->lost && o->lost[0]);
		assert_non_null(o->probe);
		assert_true(!o->fd == !o->drain); /* a descriptor to poll is drained, and only then */
		wrappers += o->wrap != NULL;
		unsigned mask = 0;
		char err[256];
		assert_int_equal(sbx_layer_parse(o->name, &mask, err, sizeof err), 0);
		assert_int_equal(mask, 1u << l);
	}
	assert_int_equal(wrappers, 1);
	/* "identity" is no layer: a --require name only, outside the layers' mask */
	unsigned mask = 0;
	char err[256];
	assert_int_equal(sbx_layer_list_parse("bwrap,identity", &mask, err, sizeof err), 0);
	assert_int_equal(mask, (1u << SBX_L_BWRAP) | SBX_REQ_IDENTITY);
	assert_int_equal(mask & SBX_L_ALL, 1u << SBX_L_BWRAP);
	assert_int_equal(sbx_layer_list_parse("all", &mask, err, sizeof err), 0);
	assert_int_equal(mask, SBX_L_ALL);
}

/* The attempt's environment: the plan's, then the run's variables (placeholders before the
 * attempt), then each active layer's; SBXSUP_SANDBOX=0 adds nothing. */
static void t_attempt_env(void **state)
{
	(void)state;
	struct run_plan p;
	memset(&p, 0, sizeof p);
	strv_add(&p.env, "PATH=/usr/bin");
	struct detect d;
	memset(&d, 0, sizeof d);
	snprintf(d.preload, sizeof d.preload, "/x/libsbxpreload.so");
	struct sbx_layers L;
	memset(&L, 0, sizeof L);
	sbx_layer_set_on(&L, layer_preload.id, "LD_PRELOAD");
	struct layer_ctx c = {.d = &d, .L = &L, .wrapped = false, .report_sock = "/tmp/r/report"};
	struct strv e = {0};
	assert_int_equal(plan_attempt_env(&p, &c, -1, -1, NULL, false, &e), 0);
	assert_string_equal(strv_getenv(&e, "PATH"), "/usr/bin");
	assert_string_equal(strv_getenv(&e, "SBXSUP_POLICY_FD"), LAYER_FD_PLACEHOLDER);
	assert_string_equal(strv_getenv(&e, "SBXSUP_RUN"), LAYER_RUN_PLACEHOLDER);
	assert_string_equal(strv_getenv(&e, "LD_PRELOAD"), "/x/libsbxpreload.so");
	assert_string_equal(strv_getenv(&e, "SBXSUP_REPORT_ADDR"), "/tmp/r/report");
	strv_free(&e);
	c.wrapped = true;
	assert_int_equal(plan_attempt_env(&p, &c, 5, 6, "abc", false, &e), 0);
	assert_string_equal(strv_getenv(&e, "SBXSUP_POLICY_FD"), "5");
	assert_string_equal(strv_getenv(&e, "SBXSUP_REPORT_FD"), "6");
	assert_string_equal(strv_getenv(&e, "LD_PRELOAD"), SBX_RUN_PRELOAD);
	assert_string_equal(strv_getenv(&e, "SBXSUP_REPORT_ADDR"), SBX_RUN_REPORT);
	strv_free(&e);
	assert_int_equal(plan_attempt_env(&p, &c, 5, 6, "abc", true, &e), 0);
	assert_int_equal(e.n, 1);
	strv_free(&e);
	plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_secret_shaped), cmocka_unit_test(t_env_build),
		cmocka_unit_test(t_run_args),      cmocka_unit_test(t_ctl_status),
		cmocka_unit_test(t_bwrap_argv),    cmocka_unit_test(t_layer_table),
		cmocka_unit_test(t_attempt_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
