/* env.c — see env.h. */
#include "env.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Matched case-insensitively against the whole name. Deliberately broad: a wrongly dropped
 * variable is a visible, recorded inconvenience; a leaked credential is not recoverable. */
static const char *const secret_globs[] = {
	"*_KEY", "*_KEYS", "*_API_KEY", "*APIKEY*", "*_PRIVATE_KEY*", "*SECRET_KEY*",
	"*_TOKEN", "*_TOKENS", "*TOKEN", "GH_*TOKEN", "GITHUB_TOKEN", "*_AUTH_TOKEN",
	"*_SECRET", "*_SECRETS", "*_SECRET_*", "*PASSWORD*", "*PASSWD*", "*_PASS", "*_PWD_*",
	"*_CREDENTIALS", "*_CREDENTIAL", "GOOGLE_APPLICATION_CREDENTIALS",
	"DATABASE_URL", "*_DATABASE_URL", "*_DSN", "AWS_*", "AZURE_*", "SSH_AUTH_SOCK",
	"GPG_AGENT_INFO", "KRB5CCNAME", "*_COOKIE", "*_SESSION",
};

bool env_secret_shaped(const char *name)
{
	if (!strcmp(name, "OLDPWD"))
		return false;
	for (size_t i = 0; i < sizeof secret_globs / sizeof secret_globs[0]; i++)
		if (fnmatch(secret_globs[i], name, FNM_CASEFOLD) == 0)
			return true;
	return false;
}

bool env_reserved(const char *name)
{
	return !strcmp(name, "LD_PRELOAD") || !strcmp(name, "LD_AUDIT") ||
	       !strncmp(name, "SBXSUP_", 7);
}

int env_set(struct strv *env, const char *name, const char *value)
{
	return strv_setenv(env, name, value);
}

static bool path_all_absolute(const char *path)
{
	if (!*path)
		return false;
	for (const char *p = path; p && *p;) {
		if (*p != '/')
			return false;
		p = strchr(p, ':');
		if (p)
			p++;
		else
			break;
		if (!*p)
			return false; /* trailing ':' = current directory */
	}
	return !strstr(path, "::");
}

static int note_drop(struct strv *dropped, const char *name)
{
	for (size_t i = 0; i < dropped->n; i++)
		if (!strcmp(dropped->v[i], name))
			return 0;
	return strv_add(dropped, name);
}

static bool passes(const struct manifest *m, const char *name)
{
	for (size_t i = 0; i < m->nenv_pass; i++)
		if (fnmatch(m->env_pass[i], name, 0) == 0)
			return true;
	return false;
}

int env_build(const struct manifest *m, char *const *caller_env, struct strv *out, struct strv *dropped)
{
	const char *path = getenv("PATH");
	int rc = 0;
	rc |= env_set(out, "PATH", path && path_all_absolute(path) ? path : SBX_DEFAULT_PATH);
	if (m->home)
		rc |= env_set(out, "HOME", m->home);
	static const char *const basic[] = {"LANG", "TERM"};
	for (size_t i = 0; i < 2; i++) {
		const char *v = getenv(basic[i]);
		if (v)
			rc |= env_set(out, basic[i], v);
	}
	for (char *const *e = caller_env; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || eq == *e)
			continue;
		char name[256];
		size_t len = (size_t)(eq - *e);
		if (len >= sizeof name)
			continue;
		memcpy(name, *e, len);
		name[len] = 0;
		if (!passes(m, name) || env_reserved(name))
			continue;
		if (env_secret_shaped(name)) {
			rc |= note_drop(dropped, name);
			continue;
		}
		rc |= env_set(out, name, eq + 1);
	}
	for (size_t i = 0; i < m->nenv_set; i++) {
		const char *name = m->env_set[i].name;
		if (env_reserved(name))
			continue;
		if (env_secret_shaped(name)) {
			rc |= note_drop(dropped, name);
			continue;
		}
		rc |= env_set(out, name, m->env_set[i].value ? m->env_set[i].value : "");
	}
	return rc ? -1 : 0;
}

int env_path_keep(struct strv *env, bool (*keep)(const char *dir, const void *arg), const void *arg)
{
	const char *path = strv_getenv(env, "PATH");
	char *out = calloc(1, (path ? strlen(path) : 0) + 1);
	if (!out)
		return -1;
	size_t ol = 0;
	for (const char *s = path ? path : ""; *s;) {
		size_t n = strcspn(s, ":");
		char dir[4096];
		if (n && n < sizeof dir) {
			memcpy(dir, s, n);
			dir[n] = 0;
			if (keep(dir, arg)) {
				if (ol)
					out[ol++] = ':';
				memcpy(out + ol, dir, n);
				ol += n;
			}
		}
		s += n;
		if (*s == ':')
			s++;
	}
	int rc = env_set(env, "PATH", ol ? out : SBX_DEFAULT_PATH);
	free(out);
	return rc;
}

/* An existing directory the policy lets the executor read. */
static bool policy_readable_dir(const char *dir, const void *arg)
{
	char norm[4096];
	struct stat st;
	struct pol_decision d;
	return pol_normalize("/", dir, norm, sizeof norm) == 0 && stat(norm, &st) == 0 && S_ISDIR(st.st_mode) &&
	       pol_path(arg, norm, POL_READ, &d) == POL_ALLOW;
}

int env_filter_path(struct strv *env, const struct policy *p)
{
	if (!strv_getenv(env, "PATH"))
		return env_set(env, "PATH", SBX_DEFAULT_PATH);
	return env_path_keep(env, policy_readable_dir, p);
}
