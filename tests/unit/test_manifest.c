/* test_manifest.c — manifest parsing (supervisor/manifest/manifest.h): valid manifests, every invalid one
 * asserting that its message names the right JSON path (or line and column for syntax), autonomy
 * transforms, the built-in default, size/depth refusal, duplicate keys, hint expansion, hosts. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sodium.h>

#include "learn.h"
#include "manifest.h"

static struct mf_ctx ctx = {.home = "/home/u", .workspace = "/work/ws", .uid = 1000};

static int parse(const char *json, struct manifest **m, struct mf_errors *e)
{
	memset(e, 0, sizeof *e);
	*m = NULL;
	return manifest_parse(json, strlen(json), "test.json", &ctx, m, e);
}

/* true when some error message starts with `prefix` */
static bool has_err(const struct mf_errors *e, const char *prefix)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strncmp(e->msg[i], prefix, strlen(prefix)))
			return true;
	return false;
}

static bool has_warn(const struct mf_errors *e, const char *prefix)
{
	for (size_t i = 0; i < e->nwarn; i++)
		if (!strncmp(e->warn[i], prefix, strlen(prefix)))
			return true;
	return false;
}

static void dump(const struct mf_errors *e)
{
	for (size_t i = 0; i < e->n; i++)
		fprintf(stderr, "# err: %s\n", e->msg[i]);
}

/* Expect failure with an error starting with prefix. */
static void expect_err(const char *json, const char *prefix)
{
	struct manifest *m;
	struct mf_errors e;
	int rc = parse(json, &m, &e);
	if (rc == 0 || !has_err(&e, prefix)) {
		fprintf(stderr, "# wanted an error starting with \"%s\" for %s\n", prefix, json);
		dump(&e);
	}
	assert_int_equal(rc, -1);
	assert_null(m);
	assert_true(has_err(&e, prefix));
	mf_errors_free(&e);
}

static struct manifest *expect_ok(const char *json, struct mf_errors *e)
{
	struct manifest *m;
	int rc = parse(json, &m, e);
	if (rc)
		dump(e);
	assert_int_equal(rc, 0);
	assert_non_null(m);
	return m;
}

#define HDR "{\"sbxsup\":1,\"name\":\"t\","

/* ---- valid ---------------------------------------------------------------------------------- */

static const char spec_example[] =
	"{\n"
	"  \"sbxsup\": 1,\n"
	"  \"name\": \"notes-search\",\n"
	"  \"autonomy\": \"supervised\",\n"
	"  \"code_path\": \"/opt/executors/notes_search.py\",\n"
	"  \"capabilities\": [\n"
	"    \"code:exec\",\n"
	"    {\"cap\": \"fs:read\",  \"hint\": \"~/notes/**\"},\n"
	"    {\"cap\": \"fs:write\", \"hints\": [\"/tmp/**\", \"./out\"]},\n"
	"    {\"cap\": \"network:http\", \"hosts\": [\"api.example.com:443\", \"127.0.0.1:8080\", \"10.1.0.0/16\"]}\n"
	"  ],\n"
	"  \"deny\": [\"~/.ssh/**\", \"**/.env\"],\n"
	"  \"env\": {\"pass\": [\"LANG\", \"LC_*\", \"NOTES_DIR\"], \"set\": {\"PYTHONDONTWRITEBYTECODE\": \"1\"}},\n"
	"  \"limits\": {\"wall_s\": 30, \"cpu_s\": 20, \"memory_mb\": 256, \"pids\": 64, \"fsize_mb\": 64, \"nofile\": 256}\n"
	"}\n";

static void t_spec_example(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok(spec_example, &e);
	assert_string_equal(m->name, "notes-search");
	assert_int_equal(m->autonomy, MF_AUTONOMY_SUPERVISED);
	assert_string_equal(m->code_path, "/opt/executors/notes_search.py");
	assert_string_equal(m->code_dir, "/opt/executors");
	assert_true(m->code_exec);
	assert_int_equal(m->nreads, 1);
	assert_string_equal(m->reads[0].glob, "~/notes/**");
	assert_string_equal(m->reads[0].abs, "/home/u/notes/**");
	assert_string_equal(m->reads[0].dir, "/home/u/notes");
	assert_string_equal(m->reads[0].jpath, "capabilities[1].hint");
	assert_int_equal(m->nwrites, 2);
	assert_string_equal(m->writes[0].abs, "/tmp/**");
	assert_string_equal(m->writes[1].abs, "/work/ws/out");
	assert_string_equal(m->writes[1].dir, "/work/ws/out");
	assert_string_equal(m->writes[1].jpath, "capabilities[2].hints[1]");
	assert_int_equal(m->ndenies, 2);
	assert_string_equal(m->denies[0].abs, "/home/u/.ssh/**");
	assert_string_equal(m->denies[0].jpath, "deny[0]");
	assert_true(m->net_granted);
	assert_false(m->net_any);
	assert_int_equal(m->nhosts, 3);
	assert_int_equal(m->hosts[0].kind, MF_HOST_NAME);
	assert_string_equal(m->hosts[0].name, "api.example.com");
	assert_int_equal(m->hosts[0].port, 443);
	assert_int_equal(m->hosts[1].kind, MF_HOST_V4);
	assert_memory_equal(m->hosts[1].addr, "\x7f\x00\x00\x01", 4);
	assert_int_equal(m->hosts[1].prefix, 32);
	assert_int_equal(m->hosts[1].port, 8080);
	assert_int_equal(m->hosts[2].prefix, 16);
	assert_int_equal(m->hosts[2].port, 0);
	assert_string_equal(m->hosts[2].jpath, "capabilities[3].hosts[2]");
	assert_int_equal(m->nnet_modes, 1);
	assert_string_equal(m->net_modes[0], "http");
	assert_int_equal(m->nenv_pass, 3);
	assert_string_equal(m->env_pass[1], "LC_*");
	assert_int_equal(m->nenv_set, 1);
	assert_string_equal(m->env_set[0].name, "PYTHONDONTWRITEBYTECODE");
	assert_string_equal(m->env_set[0].value, "1");
	assert_int_equal(m->limits.wall_s, 30);
	assert_int_equal(m->limits.cpu_s, 20);
	assert_int_equal(m->limits.memory_mb, 256);
	assert_int_equal(m->limits.pids, 64);
	assert_int_equal(m->limits.fsize_mb, 64);
	assert_int_equal(m->limits.nofile, 256);
	assert_string_equal(m->source, "test.json");
	assert_string_equal(m->workspace, "/work/ws");
	assert_string_equal(m->home, "/home/u");
	assert_false(m->is_default);
	assert_int_equal(e.n, 0);
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_sha256(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok(spec_example, &e);
	unsigned char h[32];
	char hex[65];
	crypto_hash_sha256(h, (const unsigned char *)spec_example, strlen(spec_example));
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", h[i]);
	assert_string_equal(m->sha256_hex, hex);
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_minimal_defaults(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok("{\"sbxsup\":1,\"name\":\"a.b_c-9\"}", &e);
	assert_int_equal(m->autonomy, MF_AUTONOMY_SUPERVISED);
	assert_false(m->code_exec);
	assert_false(m->net_granted);
	assert_false(m->net_any);
	assert_null(m->code_path);
	assert_int_equal(m->nreads + m->nwrites + m->ndenies + m->nhosts, 0);
	assert_int_equal(m->limits.wall_s, MF_DEFAULT_WALL_S);
	assert_int_equal(m->limits.nofile, MF_DEFAULT_NOFILE);
	assert_int_equal(m->limits.cpu_s, -1);
	assert_int_equal(m->limits.memory_mb, -1);
	assert_int_equal(m->limits.pids, -1);
	assert_int_equal(m->limits.fsize_mb, -1);
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_default_manifest(void **st)
{
	(void)st;
	struct mf_errors e = {0};
	struct manifest *m = NULL;
	assert_int_equal(manifest_load_default(&ctx, &m, &e), 0);
	assert_true(m->is_default);
	assert_string_equal(m->name, "default");
	assert_string_equal(m->source, "(built-in default)");
	assert_true(m->code_exec);
	assert_false(m->net_granted);
	assert_false(m->net_any);
	assert_int_equal(m->nreads + m->nwrites + m->nhosts, 0);
	assert_int_equal(m->limits.wall_s, 300);
	assert_int_equal(m->limits.nofile, 1024);
	assert_int_equal(strlen(m->sha256_hex), 64);
	assert_int_equal(e.n + e.nwarn, 0);
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_kind_alias_and_string_caps(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok(HDR "\"capabilities\":[\"code:exec\",{\"kind\":\"fs:read\","
				       "\"hint\":\"/data\",\"hints\":[\"/more/*.txt\"]}]}", &e);
	assert_true(m->code_exec);
	assert_int_equal(m->nreads, 2);
	assert_string_equal(m->reads[0].jpath, "capabilities[1].hint");
	assert_string_equal(m->reads[1].jpath, "capabilities[1].hints[0]");
	assert_string_equal(m->reads[1].dir, "/more");
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_autonomy_readonly(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok(HDR "\"autonomy\":\"readonly\",\"capabilities\":["
				       "{\"cap\":\"fs:read\",\"hint\":\"/r\"},{\"cap\":\"fs:write\",\"hints\":[\"out\",\"/w\"]},"
				       "{\"cap\":\"network:https\",\"hosts\":[\"example.org\"]}]}", &e);
	assert_int_equal(m->autonomy, MF_AUTONOMY_READONLY);
	assert_int_equal(m->nwrites, 0);
	assert_int_equal(m->nreads, 3);
	assert_string_equal(m->reads[1].abs, "/work/ws/out");
	assert_string_equal(m->reads[2].abs, "/w");
	assert_false(m->net_granted);
	assert_false(m->net_any);
	assert_int_equal(m->nhosts, 0);
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_autonomy_full(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok(HDR "\"autonomy\":\"full\",\"capabilities\":["
				       "{\"cap\":\"fs:write\",\"hint\":\"out\"}]}", &e);
	assert_int_equal(m->autonomy, MF_AUTONOMY_FULL);
	assert_int_equal(m->nwrites, 1);
	assert_true(m->net_granted);
	assert_true(m->net_any);
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_network_without_hosts_warns(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok(HDR "\"capabilities\":[\"code:exec\",\"network:https\"]}", &e);
	assert_true(m->net_granted);
	assert_true(m->net_any);
	assert_true(has_warn(&e, "capabilities[1]: "));
	assert_non_null(strstr(e.warn[0], "grants any host"));
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_ignored_family(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok(HDR "\"capabilities\":[\"mail:send\",{\"cap\":\"time:read\",\"zone\":\"x\"}]}",
				       &e);
	assert_int_equal(m->nignored, 2);
	assert_string_equal(m->ignored_caps[0], "mail:send");
	assert_string_equal(m->ignored_caps[1], "time:read");
	assert_true(has_warn(&e, "capabilities[0]: "));
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_hint_expansion(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok(HDR "\"capabilities\":[{\"cap\":\"fs:read\",\"hints\":["
				       "\"~\",\"~/a/../b\",\"rel/x\",\"./y/\",\"../up\",\"/a//b/./c\"]}]}", &e);
	assert_int_equal(m->nreads, 6);
	assert_string_equal(m->reads[0].abs, "/home/u");
	assert_string_equal(m->reads[1].abs, "/home/u/b");
	assert_string_equal(m->reads[2].abs, "/work/ws/rel/x");
	assert_string_equal(m->reads[3].abs, "/work/ws/y");
	assert_string_equal(m->reads[4].abs, "/work/up");
	assert_string_equal(m->reads[5].abs, "/a/b/c");
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_hint_truncation(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok(HDR "\"capabilities\":[{\"cap\":\"fs:read\",\"hints\":["
				       "\"~/notes/**\",\"/a/*/b\",\"/a/b?c/d\",\"/x/y.txt\",\"src/**/*.c\"]}]}", &e);
	assert_string_equal(m->reads[0].dir, "/home/u/notes");
	assert_string_equal(m->reads[1].dir, "/a");
	assert_string_equal(m->reads[2].dir, "/a");
	assert_string_equal(m->reads[3].dir, "/x/y.txt");
	assert_string_equal(m->reads[4].dir, "/work/ws/src");
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_root_glob_warns(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok(HDR "\"capabilities\":[{\"cap\":\"fs:read\",\"hint\":\"/**\"}]}", &e);
	assert_string_equal(m->reads[0].dir, "/");
	assert_true(has_warn(&e, "capabilities[0].hint: "));
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_deny_anywhere(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok(HDR "\"deny\":[\"**/.env\",\"secrets/*\",\"~/.aws\"]}", &e);
	assert_string_equal(m->denies[0].abs, "/**/.env");
	assert_string_equal(m->denies[0].glob, "**/.env");
	assert_string_equal(m->denies[1].abs, "/work/ws/secrets/*");
	assert_string_equal(m->denies[1].dir, "/work/ws/secrets");
	assert_string_equal(m->denies[2].abs, "/home/u/.aws");
	assert_string_equal(m->denies[2].jpath, "deny[2]");
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_hosts_forms(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok(HDR "\"capabilities\":[{\"cap\":\"network:tcp\",\"hosts\":["
				       "\"Example.COM.\",\"[::1]:443\",\"[fd00::]/8:53\",\"::1\",\"[::ffff:127.0.0.2]:80\","
				       "\"localhost:8080\",\"127.0.0.0/8\"]}]}", &e);
	assert_int_equal(m->nhosts, 7);
	assert_string_equal(m->hosts[0].name, "example.com");
	assert_string_equal(m->hosts[0].text, "Example.COM.");
	assert_int_equal(m->hosts[0].port, 0);
	assert_int_equal(m->hosts[1].kind, MF_HOST_V6);
	assert_int_equal(m->hosts[1].prefix, 128);
	assert_int_equal(m->hosts[1].port, 443);
	assert_int_equal(m->hosts[1].addr[15], 1);
	assert_int_equal(m->hosts[2].prefix, 8);
	assert_int_equal(m->hosts[2].port, 53);
	assert_int_equal(m->hosts[2].addr[0], 0xfd);
	assert_int_equal(m->hosts[3].kind, MF_HOST_V6);
	assert_int_equal(m->hosts[3].port, 0);
	assert_int_equal(m->hosts[4].kind, MF_HOST_V4); /* IPv4-mapped becomes IPv4 */
	assert_memory_equal(m->hosts[4].addr, "\x7f\x00\x00\x02", 4);
	assert_int_equal(m->hosts[4].prefix, 32);
	assert_int_equal(m->hosts[5].kind, MF_HOST_NAME);
	assert_int_equal(m->hosts[5].port, 8080);
	assert_int_equal(m->hosts[6].prefix, 8);
	manifest_free(m);
	mf_errors_free(&e);
}

/* contract v2: a numeric IPv6 address with a zone id is an address, not a name */
static void t_hosts_zone_id(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok(HDR "\"capabilities\":[{\"cap\":\"network:tcp\",\"hosts\":["
				       "\"fe80::1%lo\",\"[fe80::2%eth0]:8080\",\"[fe80::%2]/64\"]}]}", &e);
	assert_int_equal(m->nhosts, 3);
	assert_int_equal(m->hosts[0].kind, MF_HOST_V6);
	assert_int_equal(m->hosts[0].addr[0], 0xfe);
	assert_int_equal(m->hosts[0].addr[15], 1);
	assert_int_equal(m->hosts[0].port, 0);
	assert_string_equal(m->hosts[0].text, "fe80::1%lo");
	assert_int_equal(m->hosts[1].kind, MF_HOST_V6);
	assert_int_equal(m->hosts[1].port, 8080);
	assert_int_equal(m->hosts[1].addr[15], 2);
	assert_int_equal(m->hosts[2].kind, MF_HOST_V6);
	assert_int_equal(m->hosts[2].prefix, 64);
	manifest_free(m);
	mf_errors_free(&e);
	expect_err(HDR "\"capabilities\":[{\"cap\":\"network:tcp\",\"hosts\":[\"fe80::1%\"]}]}",
		   "capabilities[0].hosts[0]: \"fe80::1%\": not a valid IPv6 zone id");
	expect_err(HDR "\"capabilities\":[{\"cap\":\"network:tcp\",\"hosts\":[\"fe80::1%a/b\"]}]}",
		   "capabilities[0].hosts[0]");
	expect_err(HDR "\"capabilities\":[{\"cap\":\"network:tcp\",\"hosts\":[\"10.0.0.1%lo\"]}]}",
		   "capabilities[0].hosts[0]");
}

static void t_code_path_relative(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok(HDR "\"code_path\":\"tools/run.py\"}", &e);
	assert_string_equal(m->code_path, "/work/ws/tools/run.py");
	assert_string_equal(m->code_dir, "/work/ws/tools");
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_expand_path_api(void **st)
{
	(void)st;
	char *p = mf_expand_path("~/.ssh/id_rsa", &ctx);
	assert_string_equal(p, "/home/u/.ssh/id_rsa");
	free(p);
	p = mf_expand_path("a/../../b", &ctx);
	assert_string_equal(p, "/work/b");
	free(p);
	errno = 0;
	assert_null(mf_expand_path("", &ctx));
	assert_int_equal(errno, EINVAL);
	assert_null(mf_expand_path("~root/x", &ctx));
	char *longp = malloc(5000);
	memset(longp, 'a', 4999);
	longp[0] = '/';
	longp[4999] = '\0';
	errno = 0;
	assert_null(mf_expand_path(longp, &ctx));
	assert_int_equal(errno, ENAMETOOLONG);
	free(longp);
	char *d = mf_hint_dir("/h/u/notes/**");
	assert_string_equal(d, "/h/u/notes");
	free(d);
}

static void t_env_and_limits_ok(void **st)
{
	(void)st;
	struct mf_errors e;
	struct manifest *m = expect_ok(HDR "\"env\":{\"pass\":[\"LC_?\",\"MY_*\"],\"set\":{\"_A1\":\"x y\"}},"
				       "\"limits\":{\"fsize_mb\":0,\"wall_s\":604800}}", &e);
	assert_int_equal(m->nenv_pass, 2);
	assert_string_equal(m->env_set[0].value, "x y");
	assert_int_equal(m->limits.fsize_mb, 0);
	assert_int_equal(m->limits.wall_s, 604800);
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_utf8_ok(void **st)
{
	(void)st;
	struct mf_errors e;
	/* a BOM-less manifest with non-ASCII text in a hint is fine */
	struct manifest *m = expect_ok(HDR "\"deny\":[\"~/caf\xc3\xa9/**\"]}", &e);
	assert_string_equal(m->denies[0].abs, "/home/u/caf\xc3\xa9/**");
	manifest_free(m);
	mf_errors_free(&e);
}

/* ---- syntax (line and column) ----------------------------------------------------------------- */

static void t_syntax_trailing_comma(void **st)
{
	(void)st;
	expect_err("{\"sbxsup\":1,\"name\":\"x\",}", "line 1, column 24: ");
}

static void t_syntax_multiline(void **st)
{
	(void)st;
	expect_err("{\n  \"sbxsup\": 1,\n  \"name\" \"x\"\n}", "line 3, column 10: ");
}

static void t_syntax_unterminated(void **st)
{
	(void)st;
	expect_err("{\"sbxsup\":1,\n\"name\":\"x}", "line 2, column 8: unterminated string");
}

static void t_syntax_eof(void **st)
{
	(void)st;
	expect_err("{\"sbxsup\":1,\"name\":\"x\"", "line 1, column 23: unexpected end of input");
}

static void t_syntax_messages(void **st)
{
	(void)st;
	expect_err("{\"sbxsup\":1,\"name\" \"x\"}", "line 1, column 20: expected ':' after the key");
	expect_err("{\"sbxsup\":1 \"name\":\"x\"}", "line 1, column 13: expected ',' or '}'");
	expect_err(HDR "\"deny\":[\"/a\" \"/b\"]}", "line 1, column 37: expected ',' or ']'");
	expect_err(HDR "\"deny\":[\"/a\",]}", "line 1, column 37: unexpected ']' after ','");
	expect_err(HDR "\"deny\":[\"/a\\q\"]}", "line 1, column 35: invalid escape '\\q'");
	expect_err(HDR "\"deny\":[\"\\udc00\"]}", "line 1, column 33: invalid \\u escape");
	expect_err(HDR "\"limits\":{\"pids\":012}}", "line 1, column 41: invalid number");
	expect_err("{'sbxsup':1}", "line 1, column 2: single quotes");
	expect_err("{\"sbxsup\":1, // c\n\"name\":\"x\"}", "line 1, column 14: expected a key");
	expect_err("{\"sbxsup\":tru}", "line 1, column 11: unexpected word");
	expect_err("{\"sbxsup\":1,\"name\":\"a\tb\"}", "line 1, column 22: raw control character");
	struct mf_errors e;
	struct manifest *m = expect_ok("\xef\xbb\xbf{\"sbxsup\":1,\"name\":\"bom\"}", &e); /* BOM tolerated */
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_syntax_trailing_data(void **st)
{
	(void)st;
	expect_err("{\"sbxsup\":1,\"name\":\"x\"}\n{}", "line 2, column 1: ");
}

static void t_syntax_empty(void **st)
{
	(void)st;
	expect_err("  \n ", "line 2, column 2: empty manifest");
}

static void t_nul_byte(void **st)
{
	(void)st;
	static const char buf[] = "{\"sbxsup\":1,\n\"name\":\"a\0b\"}";
	struct manifest *m;
	struct mf_errors e = {0};
	assert_int_equal(manifest_parse(buf, sizeof buf - 1, "t", &ctx, &m, &e), -1);
	assert_true(has_err(&e, "line 2, column 10: NUL"));
	mf_errors_free(&e);
}

static void t_nul_escape(void **st)
{
	(void)st;
	expect_err(HDR "\"deny\":[\"/a\\u0000b\"]}", "line 1, column 35: \\u0000");
}

static void t_bad_utf8(void **st)
{
	(void)st;
	expect_err("{\"sbxsup\":1,\n \"name\":\"\xc3\x28\"}", "line 2, column 10: invalid UTF-8");
	expect_err("{\"sbxsup\":1,\"name\":\"\xed\xa0\x80\"}", "line 1, column 21: invalid UTF-8"); /* surrogate */
	expect_err("{\"sbxsup\":1,\"name\":\"\xc0\xaf\"}", "line 1, column 21: invalid UTF-8");     /* overlong */
}

static void t_too_deep(void **st)
{
	(void)st;
	size_t n = 10000;
	char *buf = malloc(2 * n + 1);
	memset(buf, '[', n);
	memset(buf + n, ']', n);
	buf[2 * n] = '\0';
	struct manifest *m;
	struct mf_errors e = {0};
	assert_int_equal(manifest_parse(buf, 2 * n, "t", &ctx, &m, &e), -1);
	assert_int_equal(e.n, 1);
	assert_true(has_err(&e, "line 1, column 33: nesting deeper than 32"));
	mf_errors_free(&e);
	free(buf);
}

static void t_too_big(void **st)
{
	(void)st;
	size_t n = MF_MAX_BYTES + 1;
	char *buf = malloc(n);
	memset(buf, ' ', n);
	struct manifest *m;
	struct mf_errors e = {0};
	assert_int_equal(manifest_parse(buf, n, "t", &ctx, &m, &e), -1);
	assert_true(has_err(&e, "manifest is 1048577 bytes; the limit is 1048576"));
	mf_errors_free(&e);
	free(buf);
}

static void t_load_huge_file_refused(void **st)
{
	(void)st;
	char path[] = "/tmp/sbxsup-test-manifest.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1L << 30), 0); /* 1 GiB, sparse: must not be read */
	close(fd);
	struct manifest *m;
	struct mf_errors e = {0};
	assert_int_equal(manifest_load(path, &ctx, &m, &e), -1);
	assert_true(has_err(&e, "manifest is 1073741824 bytes"));
	unlink(path);
	mf_errors_free(&e);
}

static void t_load_file(void **st)
{
	(void)st;
	char path[] = "/tmp/sbxsup-test-manifest.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, spec_example, strlen(spec_example)), (ssize_t)strlen(spec_example));
	close(fd);
	struct manifest *m;
	struct mf_errors e = {0};
	assert_int_equal(manifest_load(path, &ctx, &m, &e), 0);
	assert_string_equal(m->source, path);
	manifest_free(m);
	unlink(path);
	assert_int_equal(manifest_load(path, &ctx, &m, &e), -1);
	assert_true(has_err(&e, "cannot open: "));
	mf_errors_free(&e);
}

/* ---- duplicate keys ----------------------------------------------------------------------------- */

static void t_dup_top(void **st)
{
	(void)st;
	expect_err("{\"sbxsup\":1,\"name\":\"x\",\"name\":\"y\"}", "line 1, column 24: name: duplicate key (first at line 1, column 13)");
}

static void t_dup_nested(void **st)
{
	(void)st;
	expect_err(HDR "\"env\":{\"set\":{\"A\":\"1\",\"B\":\"2\",\"A\":\"3\"}}}", "line 1, column 54: env.set.A: duplicate key (first at line 1, column 38)");
	expect_err(HDR "\"capabilities\":[\"code:exec\",{\"cap\":\"fs:read\",\"hint\":\"/a\",\"hint\":\"/b\"}]}",
		   "line 1, column 81: capabilities[1].hint: duplicate key (first at line 1, column 69)");
}

/* The same name written with an escape, and a duplicate in an object too large for the pairwise
 * check (found when the object closes): both are still duplicates, at the later key. */
static void t_dup_escaped_and_large(void **st)
{
	(void)st;
	expect_err(HDR "\"env\":{\"set\":{\"A\":\"1\",\"\\u0041\":\"2\"}}}", "line 1, column 46: env.set.A: duplicate key");
	char buf[2048] = HDR "\"env\":{\"set\":{";
	for (int i = 0; i < 40; i++)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "\"V%d\":\"x\",", i);
	strcat(buf, "\"V7\":\"y\"}}}");
	expect_err(buf, "line 1, column 428: env.set.V7: duplicate key (first at line 1, column 101)");
}

/* ---- semantic: each names its JSON path ----------------------------------------------------- */

static void t_top_not_object(void **st)
{
	(void)st;
	expect_err("[1,2]", "(top level): ");
}

static void t_missing_version(void **st)
{
	(void)st;
	expect_err("{\"name\":\"x\"}", "sbxsup: required");
}

static void t_bad_version(void **st)
{
	(void)st;
	expect_err("{\"sbxsup\":2,\"name\":\"x\"}", "sbxsup: unsupported schema version 2");
	expect_err("{\"sbxsup\":\"1\",\"name\":\"x\"}", "sbxsup: must be the number 1");
}

static void t_missing_name(void **st)
{
	(void)st;
	expect_err("{\"sbxsup\":1}", "name: required");
}

static void t_bad_name(void **st)
{
	(void)st;
	expect_err("{\"sbxsup\":1,\"name\":\"a b\"}", "name: ");
	expect_err("{\"sbxsup\":1,\"name\":\"\"}", "name: ");
	expect_err("{\"sbxsup\":1,\"name\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}",
		   "name: "); /* 65 characters */
	expect_err("{\"sbxsup\":1,\"name\":7}", "name: must be a string");
}

static void t_unknown_top(void **st)
{
	(void)st;
	expect_err(HDR "\"capabilitis\":[]}", "capabilitis: unknown field");
}

static void t_bad_autonomy(void **st)
{
	(void)st;
	expect_err(HDR "\"autonomy\":\"yolo\"}", "autonomy: ");
	expect_err(HDR "\"autonomy\":true}", "autonomy: must be a string");
}

static void t_caps_not_array(void **st)
{
	(void)st;
	expect_err(HDR "\"capabilities\":\"fs:read\"}", "capabilities: must be an array");
}

static void t_cap_bad_type(void **st)
{
	(void)st;
	expect_err(HDR "\"capabilities\":[\"code:exec\",42]}", "capabilities[1]: must be a string");
}

static void t_cap_no_colon(void **st)
{
	(void)st;
	expect_err(HDR "\"capabilities\":[\"fsread\"]}", "capabilities[0]: \"fsread\": expected \"family:mode\"");
}

static void t_cap_unknown_mode(void **st)
{
	(void)st;
	expect_err(HDR "\"capabilities\":[\"code:exec\",{\"cap\":\"fs:raed\",\"hint\":\"/a\"}]}",
		   "capabilities[1].cap: unknown mode \"raed\"");
	expect_err(HDR "\"capabilities\":[\"network:ftp\"]}", "capabilities[0]: unknown mode \"ftp\"");
	expect_err(HDR "\"capabilities\":[\"code:run\"]}", "capabilities[0]: unknown mode \"run\"");
}

static void t_cap_and_kind(void **st)
{
	(void)st;
	expect_err(HDR "\"capabilities\":[{\"cap\":\"fs:read\",\"kind\":\"fs:read\",\"hint\":\"/a\"}]}",
		   "capabilities[0]: give \"cap\" or its alias \"kind\"");
}

static void t_cap_missing(void **st)
{
	(void)st;
	expect_err(HDR "\"capabilities\":[{\"hint\":\"/a\"}]}", "capabilities[0]: missing \"cap\"");
	expect_err(HDR "\"capabilities\":[{\"cap\":1}]}", "capabilities[0].cap: must be a string");
}

static void t_fs_without_hints(void **st)
{
	(void)st;
	/* contract v2: accepted with a warning, grants nothing */
	struct mf_errors e;
	struct manifest *m = expect_ok(HDR "\"capabilities\":[\"fs:read\",{\"cap\":\"fs:write\"}]}", &e);
	assert_int_equal(m->nreads, 0);
	assert_int_equal(m->nwrites, 0);
	assert_true(has_warn(&e, "capabilities[0]: fs:read without"));
	assert_true(has_warn(&e, "capabilities[1]: fs:write without"));
	manifest_free(m);
	mf_errors_free(&e);
}

static void t_hosts_on_fs(void **st)
{
	(void)st;
	expect_err(HDR "\"capabilities\":[{\"cap\":\"fs:write\",\"hint\":\"/a\",\"hosts\":[\"x.org\"]}]}",
		   "capabilities[0].hosts: hosts on an fs capability");
}

static void t_hints_on_network(void **st)
{
	(void)st;
	expect_err(HDR "\"capabilities\":[{\"cap\":\"network:http\",\"hint\":\"/a\",\"hosts\":[\"x.org\"]}]}",
		   "capabilities[0].hint: path hints on a network capability");
}

static void t_exec_with_hint(void **st)
{
	(void)st;
	expect_err(HDR "\"capabilities\":[{\"cap\":\"code:exec\",\"hint\":\"/bin\"}]}",
		   "capabilities[0].hint: code:exec takes no");
}

static void t_cap_unknown_key(void **st)
{
	(void)st;
	expect_err(HDR "\"capabilities\":[{\"cap\":\"fs:read\",\"hint\":\"/a\",\"hnts\":[]}]}",
		   "capabilities[0].hnts: unknown field");
}

static void t_bad_hosts(void **st)
{
	(void)st;
	const char *j = HDR "\"capabilities\":[\"code:exec\",{\"cap\":\"network:tcp\",\"hosts\":["
		"\"ok.example\",\"a..b\",\"x:0\",\"x:65536\",\"1.2.3.4/33\",\"10.1.2.3/16\",\"[::1\",\"-bad.org\","
		"\"*.com\",\"1.2.3\",\"host/8\",\"[fe80::]/129\",\"\",7,\"a b\"]}]}";
	struct manifest *m;
	struct mf_errors e;
	assert_int_equal(parse(j, &m, &e), -1);
	assert_false(has_err(&e, "capabilities[1].hosts[0]:"));
	for (int i = 1; i <= 14; i++) {
		char p[64];
		snprintf(p, sizeof p, "capabilities[1].hosts[%d]: ", i);
		if (!has_err(&e, p)) {
			fprintf(stderr, "# missing %s\n", p);
			dump(&e);
		}
		assert_true(has_err(&e, p));
	}
	assert_true(has_err(&e, "capabilities[1].hosts[2]: \"x:0\": port must be"));
	assert_true(has_err(&e, "capabilities[1].hosts[5]: \"10.1.2.3/16\": address has bits set"));
	assert_true(has_err(&e, "capabilities[1].hosts[8]: \"*.com\": a wildcard must stand for names"));
	mf_errors_free(&e);
}

/* learn from the network gateway's refusals: the name as sent (never a wildcard), or the address. */
static void t_learn_gateway(void **st)
{
	(void)st;
	struct learn l = {0};
	const char *evs[] = {
		"{\"event\":\"net.deny\",\"host\":\"api.example.com\",\"addr\":\"10.0.0.5\",\"port\":443,"
		"\"proto\":\"tcp\",\"peer\":\"other.example.com\",\"reason\":\"name-not-granted\"}",
		"{\"event\":\"net.deny\",\"addr\":\"10.0.0.6\",\"port\":22,\"proto\":\"tcp\",\"reason\":\"no-name\"}",
		"{\"event\":\"dns.deny\",\"name\":\"pypi.org\",\"qtype\":1}",
		"{\"event\":\"dns.deny\",\"name\":\"*.example.com\",\"qtype\":1}",
		"{\"event\":\"dns.deny\",\"name\":\"a\\\\.b.example.com\",\"qtype\":1}",
		"{\"event\":\"net.deny\",\"addr\":\"10.0.0.5\",\"port\":80,\"proto\":\"tcp\",\"peer\":\"api.example.com\",\"reason\":\"http-rule\"}",
		"{\"event\":\"net.deny\",\"addr\":\"10.0.0.5\",\"port\":443,\"proto\":\"tcp\",\"peer\":\"*.evil.com\",\"reason\":\"name-not-granted\"}",
	};
	for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
		cJSON *ev = cJSON_Parse(evs[i]);
		assert_non_null(ev);
		assert_true(learn_note(&l, ev) >= 0);
		cJSON_Delete(ev);
	}
	assert_int_equal(l.n, 3);
	assert_int_equal(l.v[0].kind, LEARN_HOST);
	assert_string_equal(l.v[0].object, "other.example.com:443");
	assert_int_equal(l.v[1].kind, LEARN_HOST);
	assert_string_equal(l.v[1].object, "10.0.0.6:22");
	assert_int_equal(l.v[2].kind, LEARN_DNS);
	assert_string_equal(l.v[2].object, "pypi.org");
	assert_string_equal(learn_kind_name(LEARN_DNS), "network:dns");
	learn_free(&l);
}

/* Wildcards ("*.x.y") are host grants the gateway serves; a port range is refused as such. */
static void t_wildcard_hosts(void **st)
{
	(void)st;
	struct mf_host h;
	char why[160];
	assert_int_equal(mf_parse_host("*.Example.COM:443", &h, why, sizeof why), 0);
	assert_int_equal(h.kind, MF_HOST_NAME);
	assert_string_equal(h.name, "*.example.com");
	assert_int_equal(h.port, 443);
	mf_host_clear(&h);
	assert_int_equal(mf_parse_host("*.a.b.example.org.", &h, why, sizeof why), 0);
	assert_string_equal(h.name, "*.a.b.example.org");
	mf_host_clear(&h);
	const char *bad[] = {"a.*.com", "*example.com", "**.example.com", "*.*.example.com", "*.com", "*"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(mf_parse_host(bad[i], &h, why, sizeof why), -1);
	assert_int_equal(mf_parse_host("api.example.com:1000-2000", &h, why, sizeof why), -1);
	assert_non_null(strstr(why, "port ranges are not supported"));
}

static void t_empty_hosts(void **st)
{
	(void)st;
	expect_err(HDR "\"capabilities\":[{\"cap\":\"network:tcp\",\"hosts\":[]}]}",
		   "capabilities[0].hosts: empty list");
}

static void t_bad_hints(void **st)
{
	(void)st;
	expect_err(HDR "\"capabilities\":[{\"cap\":\"fs:read\",\"hint\":\"\"}]}", "capabilities[0].hint: \"\": empty");
	expect_err(HDR "\"capabilities\":[{\"cap\":\"fs:read\",\"hints\":[\"/a\",\"~bob/x\"]}]}",
		   "capabilities[0].hints[1]: \"~bob/x\": \"~user\" is not supported");
	expect_err(HDR "\"capabilities\":[{\"cap\":\"fs:read\",\"hints\":\"/a\"}]}",
		   "capabilities[0].hints: must be an array");
	expect_err(HDR "\"capabilities\":[{\"cap\":\"fs:read\",\"hints\":[]}]}", "capabilities[0].hints: empty list");
	expect_err(HDR "\"capabilities\":[{\"cap\":\"fs:read\",\"hints\":[true]}]}",
		   "capabilities[0].hints[0]: must be a path string");
}

static void t_long_hint(void **st)
{
	(void)st;
	size_t n = 5000;
	char *j = malloc(n + 128);
	int off = snprintf(j, 128, HDR "\"deny\":[\"/");
	memset(j + off, 'a', n);
	strcpy(j + off + n, "\"]}");
	expect_err(j, "deny[0]: ");
	free(j);
}

static void t_bad_deny(void **st)
{
	(void)st;
	expect_err(HDR "\"deny\":[\"/ok\",1]}", "deny[1]: must be a path string");
	expect_err(HDR "\"deny\":\"/x\"}", "deny: must be an array");
}

static void t_bad_env(void **st)
{
	(void)st;
	expect_err(HDR "\"env\":{\"pass\":[\"OK\",\"1BAD\"]}}", "env.pass[1]: \"1BAD\": not a variable name");
	expect_err(HDR "\"env\":{\"pass\":[\"LD_PRELOAD\"]}}", "env.pass[0]: \"LD_PRELOAD\": reserved");
	expect_err(HDR "\"env\":{\"set\":{\"LD_PRELOAD\":\"/evil.so\"}}}", "env.set.LD_PRELOAD: reserved");
	expect_err(HDR "\"env\":{\"set\":{\"A-B\":\"x\"}}}", "env.set.A-B: not a variable name");
	expect_err(HDR "\"env\":{\"set\":{\"N\":1}}}", "env.set.N: must be a string");
	expect_err(HDR "\"env\":{\"pas\":[]}}", "env.pas: unknown field");
	expect_err(HDR "\"env\":[]}", "env: must be an object");
}

static void t_bad_limits(void **st)
{
	(void)st;
	expect_err(HDR "\"limits\":{\"wall_s\":-1}}", "limits.wall_s: must be a non-negative integer");
	expect_err(HDR "\"limits\":{\"cpu_s\":1.5}}", "limits.cpu_s: must be a non-negative integer");
	expect_err(HDR "\"limits\":{\"memory_mb\":\"256\"}}", "limits.memory_mb: must be a non-negative integer");
	expect_err(HDR "\"limits\":{\"pids\":1e12}}", "limits.pids: 1000000000000 is out of range");
	expect_err(HDR "\"limits\":{\"wall_s\":0}}", "limits.wall_s: 0 is out of range");
	expect_err(HDR "\"limits\":{\"core\":0}}", "limits.core: unknown limit");
	expect_err(HDR "\"limits\":[30]}", "limits: must be an object");
}

static void t_bad_code_path(void **st)
{
	(void)st;
	expect_err(HDR "\"code_path\":\"/opt/*.py\"}", "code_path: \"/opt/*.py\": must be a plain path");
	expect_err(HDR "\"code_path\":5}", "code_path: must be a path string");
	expect_err(HDR "\"code_path\":\"\"}", "code_path: \"\": empty path");
}

static void t_all_problems_listed(void **st)
{
	(void)st;
	const char *j = "{\"sbxsup\":3,\"name\":\"bad name\",\"autonomy\":\"x\",\"extra\":1,"
			"\"capabilities\":[\"fs:nope\",{\"cap\":\"network:http\",\"hosts\":[\"::1::2\"]}],"
			"\"deny\":[\"\"],\"env\":{\"set\":{\"1\":\"x\"}},\"limits\":{\"nofile\":-5}}";
	struct manifest *m;
	struct mf_errors e;
	assert_int_equal(parse(j, &m, &e), -1);
	const char *want[] = {"extra: ", "sbxsup: ", "name: ", "autonomy: ", "capabilities[0]: ",
			      "capabilities[1].hosts[0]: ", "deny[0]: ", "env.set.1: ", "limits.nofile: "};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		if (!has_err(&e, want[i]))
			fprintf(stderr, "# missing %s\n", want[i]);
		assert_true(has_err(&e, want[i]));
	}
	assert_int_equal(e.n, sizeof want / sizeof want[0]);
	mf_errors_free(&e);
}

static void t_error_cap(void **st)
{
	(void)st;
	/* 100 bad deny entries: MF_MAX_ERRORS stored, the rest counted */
	char *j = malloc(100 * 8 + 64);
	size_t o = (size_t)sprintf(j, HDR "\"deny\":[");
	for (int i = 0; i < 100; i++)
		o += (size_t)sprintf(j + o, "%s1", i ? "," : "");
	strcpy(j + o, "]}");
	struct manifest *m;
	struct mf_errors e;
	assert_int_equal(parse(j, &m, &e), -1);
	assert_int_equal(e.n, MF_MAX_ERRORS);
	assert_int_equal(e.ndropped, 100 - MF_MAX_ERRORS);
	mf_errors_free(&e);
	free(j);
}

static void t_ctx_init(void **st)
{
	(void)st;
	struct mf_ctx c;
	char err[256];
	assert_int_equal(mf_ctx_init(&c, "/var", err, sizeof err), 0);
	assert_string_equal(c.workspace, "/var");
	assert_true(c.home[0] == '/');
	/* the run's own private dirs: a workspace there would be hidden or shared */
	assert_int_equal(mf_ctx_init(&c, "/tmp", err, sizeof err), -1);
	assert_non_null(strstr(err, "workspace is \"/tmp\" (every run gets a private one"));
	assert_int_equal(mf_ctx_init(&c, "/dev/shm", err, sizeof err), -1);
	assert_int_equal(mf_ctx_init(&c, "/nonexistent/sbxsup-ws", err, sizeof err), -1);
	assert_non_null(strstr(err, "workspace"));
	assert_int_equal(mf_ctx_init(&c, "/", err, sizeof err), -1);
	assert_non_null(strstr(err, "workspace is \"/\""));
	assert_int_equal(mf_ctx_init(&c, "/var/./x/..", err, sizeof err), 0);
	assert_string_equal(c.workspace, "/var");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_spec_example),
		cmocka_unit_test(t_sha256),
		cmocka_unit_test(t_minimal_defaults),
		cmocka_unit_test(t_default_manifest),
		cmocka_unit_test(t_kind_alias_and_string_caps),
		cmocka_unit_test(t_autonomy_readonly),
		cmocka_unit_test(t_autonomy_full),
		cmocka_unit_test(t_network_without_hosts_warns),
		cmocka_unit_test(t_ignored_family),
		cmocka_unit_test(t_hint_expansion),
		cmocka_unit_test(t_hint_truncation),
		cmocka_unit_test(t_root_glob_warns),
		cmocka_unit_test(t_deny_anywhere),
		cmocka_unit_test(t_hosts_forms),
		cmocka_unit_test(t_hosts_zone_id),
		cmocka_unit_test(t_code_path_relative),
		cmocka_unit_test(t_expand_path_api),
		cmocka_unit_test(t_env_and_limits_ok),
		cmocka_unit_test(t_utf8_ok),
		cmocka_unit_test(t_syntax_trailing_comma),
		cmocka_unit_test(t_syntax_multiline),
		cmocka_unit_test(t_syntax_unterminated),
		cmocka_unit_test(t_syntax_eof),
		cmocka_unit_test(t_syntax_messages),
		cmocka_unit_test(t_syntax_trailing_data),
		cmocka_unit_test(t_syntax_empty),
		cmocka_unit_test(t_nul_byte),
		cmocka_unit_test(t_nul_escape),
		cmocka_unit_test(t_bad_utf8),
		cmocka_unit_test(t_too_deep),
		cmocka_unit_test(t_too_big),
		cmocka_unit_test(t_load_huge_file_refused),
		cmocka_unit_test(t_load_file),
		cmocka_unit_test(t_dup_top),
		cmocka_unit_test(t_dup_nested),
		cmocka_unit_test(t_dup_escaped_and_large),
		cmocka_unit_test(t_top_not_object),
		cmocka_unit_test(t_missing_version),
		cmocka_unit_test(t_bad_version),
		cmocka_unit_test(t_missing_name),
		cmocka_unit_test(t_bad_name),
		cmocka_unit_test(t_unknown_top),
		cmocka_unit_test(t_bad_autonomy),
		cmocka_unit_test(t_caps_not_array),
		cmocka_unit_test(t_cap_bad_type),
		cmocka_unit_test(t_cap_no_colon),
		cmocka_unit_test(t_cap_unknown_mode),
		cmocka_unit_test(t_cap_and_kind),
		cmocka_unit_test(t_cap_missing),
		cmocka_unit_test(t_fs_without_hints),
		cmocka_unit_test(t_hosts_on_fs),
		cmocka_unit_test(t_hints_on_network),
		cmocka_unit_test(t_exec_with_hint),
		cmocka_unit_test(t_cap_unknown_key),
		cmocka_unit_test(t_bad_hosts),
		cmocka_unit_test(t_wildcard_hosts),
		cmocka_unit_test(t_learn_gateway),
		cmocka_unit_test(t_empty_hosts),
		cmocka_unit_test(t_bad_hints),
		cmocka_unit_test(t_long_hint),
		cmocka_unit_test(t_bad_deny),
		cmocka_unit_test(t_bad_env),
		cmocka_unit_test(t_bad_limits),
		cmocka_unit_test(t_bad_code_path),
		cmocka_unit_test(t_all_problems_listed),
		cmocka_unit_test(t_error_cap),
		cmocka_unit_test(t_ctx_init),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
