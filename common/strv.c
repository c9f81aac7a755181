/* strv.c — see strv.h. */
#include "strv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(struct strv *s)
{
	if (s->n + 1 < s->cap)
		return 0;
	size_t cap = s->cap ? s->cap * 2 : 16;
	char **v = realloc(s->v, cap * sizeof *v);
	if (!v)
		return -1;
	s->v = v;
	s->cap = cap;
	return 0;
}

static int take(struct strv *s, char *str)
{
	if (!str || grow(s) < 0) {
		free(str);
		return -1;
	}
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
	return 0;
}

int strv_add(struct strv *s, const char *str)
{
	return take(s, strdup(str));
}

int strv_addf(struct strv *s, const char *fmt, ...)
{
	char *str = NULL;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&str, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -1;
	return take(s, str);
}

int strv_addv(struct strv *s, ...)
{
	int rc = 0;
	va_list ap;
	va_start(ap, s);
	for (const char *a; (a = va_arg(ap, const char *));)
		if (strv_add(s, a) < 0)
			rc = -1;
	va_end(ap);
	return rc;
}

const char *strv_getenv(const struct strv *s, const char *name)
{
	size_t len = strlen(name);
	for (size_t i = 0; i < s->n; i++)
		if (!strncmp(s->v[i], name, len) && s->v[i][len] == '=')
			return s->v[i] + len + 1;
	return NULL;
}

void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

int strv_setenv(struct strv *s, const char *name, const char *value)
{
	size_t len = strlen(name);
	for (size_t i = 0; i < s->n; i++) {
		if (!strncmp(s->v[i], name, len) && s->v[i][len] == '=') {
			char *e = NULL;
			if (asprintf(&e, "%s=%s", name, value) < 0)
				return -1;
			free(s->v[i]);
			s->v[i] = e;
			return 0;
		}
	}
	return strv_addf(s, "%s=%s", name, value);
}
