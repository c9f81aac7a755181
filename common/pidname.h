/* pidname.h — "is the process that left this behind gone?" for stale-state sweeps.
 *
 * Promise: no allocation, no state, nothing kept open. sbx_pid_gone asks the kernel (kill with
 * signal 0) and says "gone" only on ESRCH: a live process, or one we may not signal (EPERM), is
 * never taken for gone, so a sweep never removes what a live owner still uses.
 */
#ifndef SBX_PIDNAME_H
#define SBX_PIDNAME_H

#include <stdbool.h>

/* True when no process with this pid exists (kill(pid, 0) fails with ESRCH). pid must be > 0. */
bool sbx_pid_gone(long pid);

/* The pid of a name "<prefix><decimal pid><rest>": returns it (> 0, at most 2^30) and points *rest
 * at what follows the digits; 0 when the name does not start with prefix followed by a pid. */
long sbx_name_pid(const char *name, const char *prefix, const char **rest);

#endif
