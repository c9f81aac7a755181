/* msg.c — see msg.h. */
#include <stdarg.h>
#include <stdio.h>

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
