/* phase_time.h — where the start-up of `sbxsup run` goes: milliseconds per phase, on stderr.
 *
 * Promise: with SBXSUP_TIMING=1 in sbxsup's environment, pt_report() writes one line per phase
 * ("sbxsup: timing: <phase> <ms> ms"), in the order the phases ended, then the total since
 * pt_init(); without it every call is a no-op (no clock read, nothing written). A phase is the wall
 * time from the previous mark (or pt_init) to pt_mark(); the same name marked twice is two lines.
 * Names are copied (at most PT_NAME-1 bytes); beyond PT_MAX phases the rest fold into the total.
 * Owner: the caller (struct run holds one; the layers get a pointer in layer_ctx, NULL: none). No
 * global state, no allocation; not thread-safe (one run, one thread).
 */
#ifndef SBX_PHASE_TIME_H
#define SBX_PHASE_TIME_H

#include <stdbool.h>
#include <time.h>

#define PT_MAX  48
#define PT_NAME 40

struct phase_time {
	bool on;
	unsigned n;
	struct timespec start, last;
	struct {
		char name[PT_NAME];
		long us;
	} ph[PT_MAX];
};

/* Reads SBXSUP_TIMING from env_value (getenv's result, NULL: off): on when it is "1". */
void pt_init(struct phase_time *pt, const char *env_value);
/* The phase `name` ended now. pt may be NULL. */
void pt_mark(struct phase_time *pt, const char *name);
/* printf-style name (e.g. per layer). */
void pt_markf(struct phase_time *pt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One line per phase and the total, on fd (sbx_msg_fd()); then the list is emptied. */
void pt_report(struct phase_time *pt, int fd);

#endif
