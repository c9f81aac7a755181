/* audit_dest.h — how `sbxsup run` opens its audit stream: a destination the executor cannot
 * replace, forge into or redirect, authenticated with the host key (docs/audit-keys.md).
 *
 * Promise: audit_run_open() opens the writer (audit.h) for one run, or refuses with a one-line
 * reason in err (the caller exits 125):
 *  - "-" is refused: the executor inherits sbxsup's stderr, so it could print forged lines into
 *    the stream (or truncate it when stderr is a file). "fd:N" is refused for N = 0, 1, 2 and for a
 *    descriptor naming the same file or pipe as the executor's stdin/stdout/stderr; a descriptor on
 *    a regular file is checked like a path (its /proc/self/fd name).
 *  - a path is refused when the compiled policy lets the executor write the file, its directory
 *    or any ancestor directory, and opened O_APPEND, both by the rules every destination the
 *    caller reads follows (dest_guard.h: never through a symlink, never waiting on a FIFO, a
 *    regular file of the invoking uid only). Its dev/ino are kept: at run.end the writer checks the
 *    path still names that file (`audit_replaced` in run.end, a warning on stderr when not).
 *  - with a stream, the host key is loaded or created (audit_key.h) and refused when the policy
 *    would let the executor read it; flow control is on with budget_mb (audit.h).
 * Without a destination nothing is opened and no key is touched (events are only counted). With
 * pol NULL (SBXSUP_SANDBOX=0: nothing is confined anyway) the policy checks are skipped.
 */
#ifndef SBX_AUDIT_DEST_H
#define SBX_AUDIT_DEST_H

#include <stdbool.h>
#include <stddef.h>

#include "audit.h"
#include "policy.h"

struct audit_run_cfg {
	const char *dest;            /* NULL: no stream */
	const char *executor;        /* manifest name */
	const struct policy *pol;    /* the run's compiled policy */
	bool private_tmp;            /* the executor's /tmp is not the host's (bwrap mode) */
	long budget_mb;              /* per source class; 0 = unbounded */
};

int audit_run_open(struct audit *a, const struct audit_run_cfg *c, char *err, size_t errlen);

#endif
