/* probes_layer.h — eBPF tracepoint probes that observe policy-violating syscalls of the run; its
 * entry in the layer table is layer_probes.
 *
 * Promise: sbx_probes_probe() is cheap (no program load): it reports the pinned set when one is
 * there (`sbxsup probes load`), else checks capabilities and BTF; sbx_probes_probe_full() loads and
 * attaches for real (tens of ms, for `sbxsup status`). sbx_probes_start() uses the operator's
 * pinned set, else the automatic shared set of overlapping runs, else loads and attaches the best
 * tier itself and shares it (SBXSUP_PROBES_NOPIN=1: private, shares nothing), and makes the probes
 * watch this run: its pid tree, from the armed exec through every fork, whatever cgroup a process
 * moves to; its failure turns the layer off with its reason. sbx_probes_stop() leaves no state: the
 * last run of a shared set removes its pins. sbx_probes_arm() starts the watch at the next exec
 * of `pid` (the stage's execve of the command), so sbxsup's and bwrap's own set-up is never
 * reported. sbx_probes_drain() decides each event with the compiled policy (pol_path /
 * pol_net_addr; sbx_probes_set_policy() replaces it after a re-plan) and emits `kernel.violation`
 * with its outcome and sensor; it handles at most one ring buffer's worth of records per call and
 * returns how many (-1: the audit stream failed -> fail closed); the fd stays readable while
 * records remain, and one call after the run's processes are gone empties the ring and writes the
 * ring-overflow summaries (sbx_probes_counts below; sbx_probes_flush() forces that at the final drain).
 * sbx_probes_lost() is the exact count of records lost for good (ring and overflow counters full);
 * sbx_probes_untracked() the children the kernel could not add to the run's pid set (blind spots,
 * 0 in normal operation); sbx_probes_stats() records seen, violations emitted, malformed records.
 * Ownership: struct sbx_probes is the caller's until sbx_probes_stop().
 */
#ifndef SBX_PROBES_LAYER_H
#define SBX_PROBES_LAYER_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include "audit.h"
#include "policy.h"

struct sbx_probes;
/* 1 usable (level: the hook tier, e.g. "tp_btf sys_enter/sys_exit"), 0 not (why). */
int sbx_probes_probe(char *level, size_t levellen, char *why, size_t whylen);
int sbx_probes_start(const struct policy *p, uint64_t cgroup_v2_id /* 0: none */,
		     struct sbx_probes **out, char *level, size_t levellen, char *why, size_t whylen);
/* sbx_probes_start() in two steps, so that the second runs while the sandbox starts: begin (the
 * set, the slot, its ring buffer installed, the counters reset) and prepare (the consumer's mapping
 * of the ring, ~1 ms for 8 MiB, and the in-kernel decision filled, ~1 ms; level gets "; kernel-allow
 * N|off" appended to begin's). Nothing of the run is recorded before the armed exec, so prepare may
 * come any time before sbx_probes_arm(), which calls it when it was not (idempotent). 0, or -1 with
 * why (prepare: the layer is then off; the caller still calls sbx_probes_stop()). */
int sbx_probes_begin(const struct policy *p, uint64_t cgroup_v2_id /* 0: none */,
		     struct sbx_probes **out, char *level, size_t levellen, char *why, size_t whylen);
int sbx_probes_prepare(struct sbx_probes *pr, char *level, size_t levellen, char *why, size_t whylen);
int sbx_probes_arm(struct sbx_probes *pr, pid_t pid);
int sbx_probes_fd(const struct sbx_probes *pr);
int sbx_probes_drain(struct sbx_probes *pr, struct audit *a);
uint64_t sbx_probes_lost(const struct sbx_probes *pr);
void sbx_probes_stop(struct sbx_probes *pr);
/* The policy events are decided with from now on (the run re-planned it: retry without bwrap). */
void sbx_probes_set_policy(struct sbx_probes *pr, const struct policy *p);

int sbx_probes_probe_full(char *level, size_t levellen, char *why, size_t whylen);

/* Exact counts of the run's records by what became of them (for the audit writer's budgets and the
 * run's verdict). Under ring overflow the kernel counts the records it could not deliver under
 * their decision key with one sample; once the run's command has started and none of its
 * processes is alive any more, a drain decides each sample and writes ONE kernel.violation per key
 * with "count" and "summary": "ring overflow" — so a breach drowned in a flood is still written,
 * with its outcome and its exact count. Only records that did not fit the overflow counters either
 * are lost (`lost`, = sbx_probes_lost()); those whose call did not fail (`lost_unknown`) are written
 * as one kernel.violation summary with outcome "undecidable" and their count. */
struct sbx_probes_counts {
	uint64_t records;            /* syscall records delivered through the ring */
	uint64_t breach, contained, undecidable;   /* violations by outcome, summaries by their count */
	uint64_t summarized;         /* records counted in overflow summaries (violations or not) */
	uint64_t lost;               /* records lost for good (exact) */
	uint64_t lost_unknown;       /* of which the call did not fail or its result is unknown */
	bool final;                  /* the overflow counters were collected once no process was left */
	uint64_t kallowed;           /* opens allowed in the kernel: no record (probes_kdec.h) */
};
void sbx_probes_counts(const struct sbx_probes *pr, struct sbx_probes_counts *c);
/* Collect the overflow counters now (the caller knows the run's processes are gone: the final
 * drain). 0, or -1 when the audit stream failed. */
int sbx_probes_flush(struct sbx_probes *pr, struct audit *a);
uint64_t sbx_probes_untracked(const struct sbx_probes *pr);
void sbx_probes_stats(const struct sbx_probes *pr, uint64_t *events, uint64_t *violations,
		      uint64_t *malformed);

#endif
