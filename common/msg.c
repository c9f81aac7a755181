/* msg.c — see msg.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"

/* Per thread, so two threads' runs never speak on each other's descriptor; -1 means stderr. */
static __thread int msg_fd = -1;

int sbx_msg_fd(void)
{
	return msg_fd < 0 ? 2 : msg_fd;
}

int sbx_msg_set_fd(int fd)
{
	int old = sbx_msg_fd();
	msg_fd = fd < 0 ? -1 : fd;
	return old;
}

void sbx_msg(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (msg_fd < 0) {
		fprintf(stderr, "sbxsup: %s\n", buf);
		return;
	}
	dprintf(msg_fd, "sbxsup: %s\n", buf);
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
