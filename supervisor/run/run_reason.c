/* run_reason.c — the first refusal or failure of a run, for its result record (run_int.h). Its own
 * file: every step of the run sets it (run.c, run_attempt.c, run_events.c, run_shadow.c), and it
 * depends on none of them. */
#include "run_int.h"

#include <stdarg.h>
#include <stdio.h>

void run_reason(struct run *r, const char *code, const char *fmt, ...)
{
	if (r->reason)
		return;
	r->reason = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->reason_msg, sizeof r->reason_msg, fmt, ap);
	va_end(ap);
}
