/* severity.h — how serious a security event is: one classification table for the whole project.
 *
 * Promise: sbx_sev_classify() maps one audit event (the cJSON object as the writer builds it, or as
 * a reader parsed it) to a severity, from one table in severity.c and nowhere else:
 *   critical  a secret path (built-in never-readable list, manifest deny) or any breach
 *   high      write outside the grants, network, exec, escape-class syscall
 *   medium    other denials of a policy rule
 *   low       reads outside the grants that are not secrets
 *   info      known benign libc behaviour (nscd/userdb sockets, ~/.local probes, locale files...)
 *   none      not a security event (run.start, run.end, env.drop, ...)
 * The writer stamps "sev" on every security event; the review commands rank by it and classify
 * events of streams written before "sev" existed with the same function.
 * The table is ordered; the first entry that matches decides. sbx_sev_explain() names that entry
 * (a stable id such as "secret-rule" or "benign-nscd-socket", and a one-line reason) so reviews
 * and tests can say why; sbx_sev_entry() enumerates the table (docs, tests: one test per entry).
 * Pure: no I/O, no global state; the event is only read; returned strings are static.
 */
#ifndef SBX_SEVERITY_H
#define SBX_SEVERITY_H

#include <stddef.h>
#include <cjson/cJSON.h>

enum sbx_sev { SBX_SEV_NONE = 0, SBX_SEV_INFO, SBX_SEV_LOW, SBX_SEV_MEDIUM, SBX_SEV_HIGH, SBX_SEV_CRITICAL };

/* "critical" ... "info"; NULL for SBX_SEV_NONE. */
const char *sbx_sev_name(enum sbx_sev s);
/* Inverse of sbx_sev_name; returns -1 for an unknown name. */
int sbx_sev_parse(const char *name);
/* The severity of one event (see the promise). ev may lack fields: it is then classified on what it has. */
enum sbx_sev sbx_sev_classify(const cJSON *ev);

/* Same as sbx_sev_classify; also sets *id and *why (when not NULL) to the deciding table entry's
 * id and reason, or to NULL for a non-security event. */
enum sbx_sev sbx_sev_explain(const cJSON *ev, const char **id, const char **why);
/* The members of an event the table reads, for a caller that holds no cJSON tree (the review
 * commands read lines as spans): a string member as its decoded text, NULL when absent or not a
 * string; has_* says the member is present at all (any type); port_zero: "port" is the number 0. */
struct sbx_sev_fields {
	const char *event, *rule, *path, *access, *op, *outcome, *addr;
	int has_addr, has_port, has_host, port_zero;
};
/* sbx_sev_explain on those members: the same table, the same answer. */
enum sbx_sev sbx_sev_explain_fields(const struct sbx_sev_fields *f, const char **id, const char **why);

/* True for the events that carry "sev" (preload.deny, kernel.violation, netfilter.deny,
 * seccomp.deny, landlock.deny). */
int sbx_sev_is_security_event(const char *event);
/* Entry i of the table (0-based): its id (NULL past the end), severity and reason. */
const char *sbx_sev_entry(size_t i, enum sbx_sev *sev, const char **why);

#endif
