/* layers.c — see layers.h. */
#include "layers.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const names[SBX_L__N] = {
	"preload", "bwrap", "seccomp", "landlock", "netfilter", "probes", "limits",
};

const char *sbx_layer_name(enum sbx_layer l)
{
	return (unsigned)l < SBX_L__N ? names[l] : "?";
}

int sbx_layer_parse(const char *list, unsigned *mask, char *err, size_t errlen)
{
	if (!strcmp(list, "auto") || !strcmp(list, "all")) {
		*mask = SBX_L_ALL;
		return 0;
	}
	*mask = 0;
	if (!strcmp(list, "none") || !*list)
		return 0;
	const char *p = list;
	while (*p) {
		size_t n = strcspn(p, ",");
		unsigned i;
		for (i = 0; i < SBX_L__N; i++)
			if (strlen(names[i]) == n && !strncmp(p, names[i], n))
				break;
		if (i == SBX_L__N) {
			snprintf(err, errlen, "unknown layer '%.*s' (layers: preload, bwrap, seccomp, landlock, "
				 "netfilter, probes, limits, or auto/all/none)", (int)n, p);
			return -1;
		}
		*mask |= 1u << i;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

static void set(struct sbx_layers *s, enum sbx_layer l, bool on, const char *fmt, va_list ap)
{
	if ((unsigned)l >= SBX_L__N)
		return;
	if (on)
		s->active |= 1u << l;
	else
		s->active &= ~(1u << l);
	char *dst = on ? s->level[l] : s->why[l];
	size_t len = on ? sizeof s->level[l] : sizeof s->why[l];
	vsnprintf(dst, len, fmt, ap);
	if (on)
		s->why[l][0] = 0;
}

void sbx_layer_set_off(struct sbx_layers *s, enum sbx_layer l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set(s, l, false, fmt, ap);
	va_end(ap);
}

void sbx_layer_set_on(struct sbx_layers *s, enum sbx_layer l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set(s, l, true, fmt, ap);
	va_end(ap);
}
