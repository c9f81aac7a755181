/* phase_time.c — milliseconds per phase of a run (phase_time.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "phase_time.h"

static long since_us(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000L + (b->tv_nsec - a->tv_nsec) / 1000;
}

void pt_init(struct phase_time *pt, const char *env_value)
{
	memset(pt, 0, sizeof *pt);
	pt->on = env_value && !strcmp(env_value, "1");
	if (pt->on) {
		clock_gettime(CLOCK_MONOTONIC, &pt->start);
		pt->last = pt->start;
	}
}

static void mark(struct phase_time *pt, const char *name)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (pt->n < PT_MAX) {
		snprintf(pt->ph[pt->n].name, sizeof pt->ph[pt->n].name, "%s", name);
		pt->ph[pt->n].us = since_us(&pt->last, &now);
		pt->n++;
	}
	pt->last = now;
}

void pt_mark(struct phase_time *pt, const char *name)
{
	if (pt && pt->on)
		mark(pt, name);
}

void pt_markf(struct phase_time *pt, const char *fmt, ...)
{
	if (!pt || !pt->on)
		return;
	char name[PT_NAME];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	mark(pt, name);
}

void pt_report(struct phase_time *pt, int fd)
{
	if (!pt || !pt->on)
		return;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	char buf[PT_MAX * (PT_NAME + 40) + 80];
	size_t len = 0;
	for (unsigned i = 0; i < pt->n && len < sizeof buf; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "sbxsup: timing: %-28s %8.2f ms\n",
					pt->ph[i].name, pt->ph[i].us / 1000.0);
	if (len < sizeof buf)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "sbxsup: timing: %-28s %8.2f ms\n", "total",
					since_us(&pt->start, &now) / 1000.0);
	if (len > sizeof buf - 1)
		len = sizeof buf - 1;
	(void)!write(fd, buf, len);
	pt->n = 0;
	pt->start = pt->last = now;
}
