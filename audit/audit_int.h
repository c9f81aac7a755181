/* audit_int.h — private to the writer (audit.c, audit_emit.c, audit_flow.c, audit_dest.c).
 *
 * Promise: audit_write_event() is the one place a line is built and written (seq and prev are set
 * there, the MAC computed, the line written with one write(2)); it always frees `ev` and adds the
 * bytes written to *bytes (may be NULL). The flow functions return 0 or -1 (write failed). */
#ifndef SBX_AUDIT_INT_H
#define SBX_AUDIT_INT_H

#include "audit.h"

int audit_write_event(struct audit *a, cJSON *ev, size_t *bytes);

/* audit_flow.c */
struct audit_flow *audit_flow_new(long budget_mb);
void audit_flow_free(struct audit_flow *f);
/* A security event of severity sev: coalesce, budget, write or count. Takes ev. */
int audit_flow_security(struct audit *a, cJSON *ev, int sev);
/* Write what is held (before any non-security event). */
int audit_flow_flush(struct audit *a);
/* run.end is about to be written: flush, write the budget summaries, add the counters to ev. */
int audit_flow_end(struct audit *a, cJSON *run_end);
int audit_flow_tick(struct audit *a);
int audit_flow_poll_ms(const struct audit *a);
void audit_flow_set_cap(struct audit_flow *f, uint64_t cap);


#endif
