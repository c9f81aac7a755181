/* msg.c — see msg.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "quote.h"

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
	int e = errno; /* callers report errno after speaking */
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* A name a caller did not quote (one inside a module's error text) still cannot move the
	 * cursor or start a line that passes for sbxsup's: control bytes and the like are escaped, the
	 * quoting already in the text is kept (quote.h). */
	char *safe = NULL;
	for (const unsigned char *p = (const unsigned char *)buf; *p; p++)
		if (*p < 0x20 || *p >= 0x7f) {
			if (!(safe = sbx_escape_json(buf)))  /* out of memory: at least nothing a terminal acts on */
				for (char *q = buf; *q; q++)
					if ((unsigned char)*q < 0x20 || (unsigned char)*q == 0x7f)
						*q = '?';
			break;
		}
	if (msg_fd < 0)
		fprintf(stderr, "sbxsup: %s\n", safe ? safe : buf);
	else
		dprintf(msg_fd, "sbxsup: %s\n", safe ? safe : buf);
	free(safe);
	errno = e;
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
