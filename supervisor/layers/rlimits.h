/* rlimits.h — the limits layer (entry layer_limits): rlimits (always) and the wall clock; the
 * cgroup limits are set up by the run (run/cgroup.h) and described by the entry.
 *
 * Promise: limits_apply() sets, in the calling process (the child, after fork, before exec — it
 * only calls setrlimit, so it is async-signal-safe): RLIMIT_DATA from memory_mb (when asked), RLIMIT_CPU from
 * cpu_s (soft = cpu_s -> SIGXCPU, hard = cpu_s + 1 -> SIGKILL), RLIMIT_FSIZE from fsize_mb
 * (SIGXFSZ), RLIMIT_NOFILE (manifest or default 1024), RLIMIT_CORE = 0, and RLIMIT_NPROC from pids
 * only when `nproc` is set (RLIMIT_NPROC counts every process of the uid, so the run prefers the
 * pids cgroup and records which one it used). Limits are only ever lowered, never raised.
 */
#ifndef SBX_RLIMITS_H
#define SBX_RLIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>
#include "manifest.h"

/* Effective limits: manifest values, defaults filled in (wall 300 s, nofile 1024), --timeout. */
struct run_limits {
	long wall_s, cpu_s, memory_mb, pids, fsize_mb, nofile;
	long wall_ms; /* the wall clock the timer uses (--timeout 1.5 -> 1500; wall_s rounded up) */
};
void limits_resolve(const struct mf_limits *m, long timeout_ms, struct run_limits *out);
/* data: set RLIMIT_DATA from memory_mb (the fallback when no memory cgroup enforces memory_mb; with
 * one, the cgroup is the accurate limit and an OOM kill is reported as limit.hit). */
int limits_apply(const struct run_limits *l, bool nproc, bool data);
/* "rlimit data=256M cpu=20s fsize=64M nofile=256 core=0" */
void limits_describe(const struct run_limits *l, bool nproc, bool data, char *out, size_t outlen);
cJSON *limits_plan(const struct run_limits *l);

#endif
