/* test_neverwrite.c — one answer everywhere for what is never writable (issue 30): a manifest whose
 * write grant would reach a system path or /etc is invalid, naming them (syspaths.h); for valid
 * manifests with broad grants, `explain`'s decision (the manifest parsed as explain does, then
 * pol_path) and the directory view the layers enforce (bwrap binds and Landlock rules: the dir
 * table minus the masks) agree on a sample of paths, and both refuse writes to every
 * never-writable path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "manifest.h"
#include "policy.h"
#include "policy_build.h"
#include "syspaths.h"

static struct mf_ctx ctx = {.home = "/home/u", .workspace = "/work/ws", .uid = 1000};

static int parse_write(const char *glob, struct manifest **m, struct mf_errors *e)
{
	char json[1024];
	snprintf(json, sizeof json,
		 "{\"sbxsup\": 1, \"name\": \"t\", \"capabilities\": [{\"cap\": \"fs:write\", \"hints\": [\"%s\"]},"
		 " {\"cap\": \"fs:read\", \"hint\": \"/**\"}]}", glob);
	memset(e, 0, sizeof *e);
	*m = NULL;
	return manifest_parse(json, strlen(json), "t.json", &ctx, m, e);
}

static void t_invalid_broad_writes(void **st)
{
	(void)st;
	static const struct { const char *glob, *names; } rows[] = {
		{"/**", "/usr /bin /sbin /lib /lib64 /lib32 /opt /var/lib/python3 /etc"},
		{"/*", "/usr /bin /sbin /lib /lib64 /lib32 /opt /etc"},
		{"/usr/**", "/usr"}, {"/usr/local/bin", "/usr"}, {"/etc/cron.d", "/etc"},
		{"/**/x", "/usr /bin /sbin /lib /lib64 /lib32 /opt /var/lib/python3 /etc"},
		{"/u?r/local", "/usr"}, {"/e*", "/etc"}, {"/*/bin/**", "/usr"}, {"/var/lib/*/x", "/var/lib/python3"},
		{"../../../etc/x", "/etc"},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct manifest *m;
		struct mf_errors e;
		int rc = parse_write(rows[i].glob, &m, &e);
		if (rc == 0 || !e.n || !strstr(e.msg[0], rows[i].names))
			print_error("%s: rc %d: %s\n", rows[i].glob, rc, e.n ? e.msg[0] : "(no error)");
		assert_int_equal(rc, -1);
		assert_non_null(strstr(e.msg[0], "never writable"));
		assert_non_null(strstr(e.msg[0], rows[i].names));
		manifest_free(m);
		mf_errors_free(&e);
	}
	static const char *const ok[] = {"/srv/**", "./out", "~/proj/**", "/var/tmp/x", "/home/u/**",
					  "/work/ws/**", "/data/usr/x", "/var/lib2/x", "/\\\\*\\\\*/x"};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		struct manifest *m;
		struct mf_errors e;
		int rc = parse_write(ok[i], &m, &e);
		if (rc != 0)
			print_error("%s: %s\n", ok[i], e.n ? e.msg[0] : "?");
		assert_int_equal(rc, 0);
		manifest_free(m);
		mf_errors_free(&e);
	}
}

/* What the directory layers let be written: some dir entry with write at or above the path, and
 * no mask at or above it. */
static bool layers_write(const struct policy *p, const char *path)
{
	bool w = false;
	struct pol_dir d;
	for (size_t i = 0; i < pol_dir_count(p); i++)
		if (pol_dir_get(p, i, &d) == 0 && (d.access & POL_WRITE) && path_under(path, d.path))
			w = true;
	for (size_t i = 0; i < pol_mask_count(p); i++)
		if (pol_mask_get(p, i, &d) == 0 && path_under(path, d.path))
			w = false;
	return w;
}

static void t_explain_and_layers_agree(void **st)
{
	(void)st;
	static const char *const grants[] = {"/srv/**", "~/**", "/var/tmp", "./out", "/opt2/**", "/home/u/proj/**"};
	static const char *const sample[] = {
		"/usr/local/bin/x", "/usr/bin/python3", "/etc/cron.d/x", "/etc/passwd", "/bin/sh", "/sbin/x",
		"/lib/x", "/lib64/x", "/lib32/x", "/opt/x", "/var/lib/python3/x", "/usr", "/etc",
		"/srv/a", "/srv/a/b/c", "/srv", "/home/u/x", "/home/u/proj/a", "/home/u/.ssh/id_rsa",
		"/home/v/x", "/root/x", "/var/tmp", "/var/tmp/y", "/var/x", "/work/ws/f", "/work/ws/out/f",
		"/opt2/x", "/x",
	};
	for (size_t g = 0; g < sizeof grants / sizeof grants[0]; g++) {
		struct manifest *m;
		struct mf_errors e;
		assert_int_equal(parse_write(grants[g], &m, &e), 0);
		void *blob = NULL;
		size_t len = 0;
		char err[512];
		struct pol_build_opts bo = {.resolve = false, .uid = ctx.uid}; /* as explain builds it */
		assert_int_equal(pol_build(m, &bo, &blob, &len, err, sizeof err), 0);
		const char *why = NULL;
		const struct policy *p = pol_open(blob, len, &why);
		assert_non_null(p);
		for (size_t i = 0; i < sizeof sample / sizeof sample[0]; i++) {
			char *abs = mf_expand_path(sample[i], &ctx); /* explain's --path */
			assert_non_null(abs);
			struct pol_decision d;
			bool core = pol_path(p, abs, POL_WRITE, &d) == POL_ALLOW;
			bool lay = layers_write(p, abs);
			bool never = false;
			for (size_t k = 0; never_writable(k); k++)
				never |= path_under(abs, never_writable(k));
			if (core != lay || (never && core))
				print_error("grant %s, %s: explain %s (%s), layers %s, never-writable %d\n", grants[g],
					    abs, core ? "ALLOWED" : "DENIED", pol_rule_text(p, d.rule),
					    lay ? "writable" : "not writable", never);
			assert_true(core == lay);
			assert_false(never && core);
			free(abs);
		}
		free(blob);
		manifest_free(m);
		mf_errors_free(&e);
	}
}

/* The policy build refuses it too, whoever built the manifest (defence in depth: the library). */
static void t_build_refuses(void **st)
{
	(void)st;
	struct mf_hint w = {.glob = "/**", .abs = "/**", .dir = "/", .jpath = "capabilities[0].hint"};
	struct manifest m = {.version = 1, .name = "t", .autonomy = MF_AUTONOMY_SUPERVISED,
			     .workspace = "/work/ws", .home = "/home/u", .writes = &w, .nwrites = 1};
	void *blob = NULL;
	size_t len = 0;
	char err[512] = "";
	struct pol_build_opts bo = {.uid = 1000};
	assert_int_equal(pol_build(&m, &bo, &blob, &len, err, sizeof err), -1);
	assert_non_null(strstr(err, "never writable"));
	assert_non_null(strstr(err, "/usr"));
	free(blob);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_invalid_broad_writes),
		cmocka_unit_test(t_explain_and_layers_agree),
		cmocka_unit_test(t_build_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
