/* strv.h — a growable, NULL-terminated vector of owned strings (argv / envp builder).
 *
 * Promise: v[n] is always NULL, so `v` can be passed to execve as is. Every add copies its string.
 * Errors (allocation) are returned as -1, never ignored; a failed vector stays valid and freeable.
 */
#ifndef SBX_STRV_H
#define SBX_STRV_H

#include <stddef.h>

struct strv {
	char **v;
	size_t n, cap;
};

int strv_add(struct strv *s, const char *str);
int strv_addf(struct strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Add several strings; stops at the NULL sentinel. Returns -1 if any add failed. */
int strv_addv(struct strv *s, ...) __attribute__((sentinel));
/* Value of NAME in an envp-style vector ("NAME=value"), or NULL. */
const char *strv_getenv(const struct strv *s, const char *name);
/* Set NAME=value in an envp-style vector, replacing an existing entry. Returns 0 or -1. */
int strv_setenv(struct strv *s, const char *name, const char *value);
void strv_free(struct strv *s);

#endif
