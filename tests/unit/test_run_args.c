/* test_run_args.c — unit tests of `sbxsup run`'s and `sbxsup serve`'s argument parser (cli/run_args.c),
 * which fills the library's options. */
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

#include "layer_set.h"
#include "run.h"
#include "run_args.h"
#include "sbxsup.h"
#include "sbxsup_int.h"

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

/* `sbxsup serve` parses with the same parser: run's options are the calls' defaults (their words
 * kept, in order), its own options are not among them, and there is no command. */
static void t_serve_args(void **state)
{
	(void)state;
	unsetenv("SBXSUP_REQUIRE");
	unsetenv("SBXSUP_AUDIT");
	unsetenv("SBXSUP_SANDBOX");
	struct sbx_opts *so = sbx_opts_new();
	assert_non_null(so);
	const struct run_opts *o = sbx_opts_run(so);
	struct serve_args sv;
	char *a1[] = {"serve", "--socket", "/run/s", "-mm.json", "--quiet", "--layers", "auto,-probes",
		      "--no-warm", "--tag=x", NULL};
	assert_int_equal(serve_args_parse(9, a1, so, &sv), 0);
	assert_string_equal(sv.socket, "/run/s");
	assert_true(sv.quiet && sv.no_warm);
	assert_int_equal(sv.nopts, 4);
	assert_string_equal(sv.opts[0], "-mm.json");
	assert_string_equal(sv.opts[1], "--layers");
	assert_string_equal(sv.opts[2], "auto,-probes");
	assert_string_equal(sv.opts[3], "--tag=x");
	assert_null(sv.opts[4]);
	assert_string_equal(o->manifest, "m.json");
	assert_int_equal(o->want, SBX_L_ALL & ~(1u << SBX_L_PROBES));
	assert_null(o->cmd);
	free(sv.opts);
	char *bad1[] = {"serve", "--socket", "/run/s", "--", "true", NULL};
	assert_int_equal(serve_args_parse(5, bad1, so, &sv), -1);
	free(sv.opts);
	char *bad2[] = {"serve", "--timeout", "x", NULL};
	assert_int_equal(serve_args_parse(3, bad2, so, &sv), -1);
	free(sv.opts);
	char *help[] = {"serve", "--help", NULL};
	assert_int_equal(serve_args_parse(2, help, so, &sv), 1);
	free(sv.opts);
	/* a run's --tag and --result words, which the pre-created sandbox's key leaves out */
	struct run_words rw;
	char *a2[] = {"run", "--tag", "t", "-a", "-", "--result=3", "--", "true", NULL};
	assert_int_equal(run_args_parse_words(8, a2, so, &rw), 0);
	assert_int_equal(rw.tag[0], 1);
	assert_int_equal(rw.tag[1], 3);
	assert_int_equal(rw.result[0], 5);
	assert_int_equal(rw.result[1], 6);
	sbx_opts_free(so);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_run_args), cmocka_unit_test(t_serve_args),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
