/* test_env.c — unit tests of the executor's environment (run/env.c): secret-shaped names, the
 * environment builder, the one PATH filter. */
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

#include "env.h"
#include "manifest.h"
#include "strv.h"

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

/* The one PATH walker: entries kept in order by the predicate; the default PATH when none is left;
 * empty entries dropped. */
static bool keep_usr(const char *dir, const void *arg)
{
	return !strncmp(dir, arg, strlen(arg));
}

static void t_path_keep(void **state)
{
	(void)state;
	struct strv env = {0};
	assert_int_equal(env_set(&env, "PATH", "/usr/bin::/opt/x:/usr/local/bin:/tmp/y"), 0);
	assert_int_equal(env_path_keep(&env, keep_usr, "/usr"), 0);
	assert_string_equal(strv_getenv(&env, "PATH"), "/usr/bin:/usr/local/bin");
	assert_int_equal(env_path_keep(&env, keep_usr, "/nowhere"), 0);
	assert_string_equal(strv_getenv(&env, "PATH"), SBX_DEFAULT_PATH);
	strv_free(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_secret_shaped), cmocka_unit_test(t_env_build), cmocka_unit_test(t_path_keep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
