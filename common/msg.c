/* msg.c — see msg.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"

void sbx_msg(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	fprintf(stderr, "sbxsup: %s\n", buf);
}

void sbx_verrf(char *err, size_t errlen, int e, const char *fmt, va_list ap)
{
	if (!err || !errlen)
		return;
	char msg[512];
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (e)
		snprintf(err, errlen, "%s: %s", msg, strerror(e));
	else
		snprintf(err, errlen, "%s", msg);
}
