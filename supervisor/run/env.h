/* env.h — the executor's environment (SPEC "env").
 *
 * Promise: env_build() starts from an EMPTY environment and adds PATH (the caller's only when every
 * entry is absolute, else a sane default), HOME (the manifest's invoking-user home), LANG and TERM
 * (when the caller has them), the caller's variables matched by the manifest's `env.pass` globs,
 * and `env.set`. A secret-shaped name is never added, even when listed; each such name is put in
 * `dropped` once (the caller emits one `env.drop` event per name — the value is never recorded).
 * Names sbxsup reserves (LD_PRELOAD, LD_AUDIT, SBXSUP_*) are not taken from the caller or the
 * manifest; the run adds its own afterwards.
 */
#ifndef SBX_ENV_H
#define SBX_ENV_H

#include <stdbool.h>
#include "manifest.h"
#include "policy.h"
#include "strv.h"

#define SBX_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

/* True for secret-shaped names (*_KEY, *_TOKEN, *_SECRET, *PASSWORD*, AWS_*, ...). */
bool env_secret_shaped(const char *name);
/* True for names the run sets itself and nobody may override (LD_PRELOAD, SBXSUP_*, ...). */
bool env_reserved(const char *name);

/* caller_env: the invoking environment (environ). Returns 0, or -1 (allocation failure). */
int env_build(const struct manifest *m, char *const *caller_env, struct strv *out, struct strv *dropped);

/* Keep only the PATH entries that exist and that the policy lets the executor read (a command is
 * never searched for in a denied directory, which would only produce denials); if none is left,
 * SBX_DEFAULT_PATH. Returns 0 or -1. */
int env_filter_path(struct strv *env, const struct policy *p);

/* The one PATH filter: keep the entries of env's PATH (which must be set) for which keep(dir, arg)
 * is true, in order; an empty entry or one of 4096 bytes or more is dropped; if none is left,
 * SBX_DEFAULT_PATH. env_filter_path and the direct sandbox's sd_filter_path are its two uses.
 * Returns 0 or -1. */
int env_path_keep(struct strv *env, bool (*keep)(const char *dir, const void *arg), const void *arg);

/* Set NAME=value in an envp vector, replacing an existing entry. Returns 0 or -1. */
int env_set(struct strv *env, const char *name, const char *value);

#endif
