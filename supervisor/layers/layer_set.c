/* layer_set.c — the run's bookkeeping of the layers (layer_set.h): names, parsing of layer lists,
 * on/off/moot with the reason, and the levels of the sensor and the privilege guard. It names no
 * entry of the table (layers.c), so the entries can record their own state here. */
#include "layer_set.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The names of enum sbx_layer; each entry's `name` is the same (tests/unit/test_layers.c). */
static const char *const names[SBX_L__N] = {
	[SBX_L_PRELOAD] = "preload", [SBX_L_BWRAP] = "bwrap",         [SBX_L_SECCOMP] = "seccomp",
	[SBX_L_LANDLOCK] = "landlock", [SBX_L_NETFILTER] = "netfilter", [SBX_L_PROBES] = "probes",
	[SBX_L_LIMITS] = "limits",
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
		if (i == SBX_L__N && !(n == 8 && !strncmp(p, "identity", 8))) {
			snprintf(err, errlen, "unknown layer '%.*s' (layers: preload, bwrap, seccomp, landlock, "
				 "netfilter, probes, limits, or auto/all/none; --require also takes identity)", (int)n, p);
			return -1;
		}
		*mask |= 1u << i; /* (i == SBX_L__N: SBX_REQ_IDENTITY) */
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
	s->moot &= ~(1u << l);
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

void sbx_layer_set_moot(struct sbx_layers *s, enum sbx_layer l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set(s, l, false, fmt, ap);
	va_end(ap);
	if ((unsigned)l < SBX_L__N)
		s->moot |= 1u << l;
}

int sbx_layer_list_parse(const char *list, unsigned *mask, char *err, size_t errlen)
{
	unsigned all = 0, m = 0;
	char one[32];
	(void)sbx_layer_parse("auto", &all, err, errlen);
	if (list[0] == '-' || list[0] == '+')
		m = all; /* "-probes" alone: auto minus probes */
	for (const char *p = list;;) {
		size_t n = strcspn(p, ",");
		char sign = n && (*p == '-' || *p == '+') ? *p : 0;
		const char *name = sign ? p + 1 : p;
		size_t nl = sign ? n - 1 : n;
		if (!nl) {
			snprintf(err, errlen, "empty layer name in '%s'", list);
			return -1;
		}
		if (nl >= sizeof one) {
			snprintf(err, errlen, "unknown layer '%.*s'", (int)nl, name);
			return -1;
		}
		memcpy(one, name, nl);
		one[nl] = '\0';
		unsigned bit = 0;
		if (sbx_layer_parse(one, &bit, err, errlen) < 0)
			return -1;
		if (sign && (!strcmp(one, "auto") || !strcmp(one, "all") || !strcmp(one, "none"))) {
			snprintf(err, errlen, "'%c%s': +/- apply to a layer name", sign, one);
			return -1;
		}
		if (!strcmp(one, "none"))
			m = 0;
		else if (sign == '-')
			m &= ~bit;
		else
			m |= bit;
		p += n;
		if (!*p)
			break;
		p++;
	}
	*mask = m;
	return 0;
}

void sbx_privguard_level(const struct sbx_layers *L, char *out, size_t outlen)
{
	if (!strcmp(L->privguard, "notify"))
		snprintf(out, outlen, "setuid/setgid, devices, file capabilities, user namespaces: refused and reported (%s)",
			 sbx_layer_on(L, SBX_L_SECCOMP) ? "seccomp" : !strcmp(L->sensor, "on") ? "sensor" : "guard filter");
	else if (!strcmp(L->privguard, "errno"))
		snprintf(out, outlen, "setuid/setgid, devices, user namespaces: refused, unreported (no user notification)");
	else
		snprintf(out, outlen, "off (no sandbox)");
}

void sbx_deny_level(const struct sbx_layers *L, char *out, size_t outlen)
{
	const char *who = !strcmp(L->denies, "seccomp") ? "the seccomp layer"
			  : !strcmp(L->denies, "sensor") ? "the report-only sensor's filter (seccomp off)"
			  : !strcmp(L->denies, "guard") ? "the privilege guard's filter (seccomp off)" : NULL;
	if (who)
		snprintf(out, outlen, "below libc by %s: every open, exec and write-class call decided, opens "
			 "performed by sbxsup (files at start and created later)", who);
	else
		snprintf(out, outlen, "at start only (bwrap masks, Landlock rules): no user notification, so a "
			 "match created during the run is not held below libc");
}

void sbx_sensor_level(const struct sbx_layers *L, char *out, size_t outlen)
{
	bool sc = sbx_layer_on(L, SBX_L_SECCOMP), pr = sbx_layer_on(L, SBX_L_PROBES);
	if (sc || pr)
		snprintf(out, outlen, "not needed: %s%s%s report", sc ? "seccomp" : "", sc && pr ? " and " : "",
			 pr ? "probes" : "");
	else if (!strcmp(L->sensor, "on"))
		snprintf(out, outlen, "seccomp-notify (report-only: files, exec, metadata, sockets, signals, "
			 "escape-class calls; nothing refused but the privilege guard)");
	else if (L->sensor[0])
		snprintf(out, outlen, "%s", L->sensor);
	else if (L->sensor_off)
		snprintf(out, outlen, "off (--sensor off)");
	else
		snprintf(out, outlen, "off (not started)");
}

bool sbx_sensor_missing(const struct sbx_layers *L)
{
	if (sbx_layer_on(L, SBX_L_SECCOMP) || sbx_layer_on(L, SBX_L_PROBES))
		return false;
	return strcmp(L->sensor, "on") != 0;
}
