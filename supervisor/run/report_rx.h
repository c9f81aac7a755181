/* report_rx.h — the supervisor side of the preload report socket (policy/report.h).
 *
 * Promise: report_rx_drain() reads every pending datagram without blocking, validates each with
 * sbx_rec_decode (hostile input: anything malformed is counted in `rejected` and dropped), prefers
 * the kernel's SCM_CREDENTIALS pid over the record's, and turns each denial into one
 * `preload.deny` event (src "preload"); acks are counted (`acks` > 0 proves the preload is loaded in
 * the command). Bounded against a flooding executor: at most RX_BATCH datagrams per call (the event
 * loop stays responsive); the stream itself is bounded by the writer (audit.h flow control:
 * identical records coalesce, preload records have their own byte budget and can never use the
 * kernel-side events' budget). `suppressed` stays 0 (kept for run.end's field). Returns -1 only when the audit stream failed (the run must
 * fail closed). Both sockets (the inherited socketpair and the bound address the preload falls
 * back to) go through the same decoding and bounds, and share the counters.
 */
#ifndef SBX_REPORT_RX_H
#define SBX_REPORT_RX_H

#include <stdint.h>
#include "audit.h"
#include "policy.h"

struct report_rx {
	int fd;                    /* supervisor end, SO_PASSCRED set, non-blocking */
	int addr_fd;               /* the socket bound at SBXSUP_REPORT_ADDR (same settings), or -1:
				    * drained the same way, after `fd` (a zeroed struct must set it) */
	const struct policy *pol;  /* for rule texts */
	uint64_t acks, denies, dropped, rejected, suppressed;
};

#define RX_BATCH 256

int report_rx_drain(struct report_rx *r, struct audit *a);

#endif
