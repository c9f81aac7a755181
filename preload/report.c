/* report.c — sending records to the supervisor.
 *
 * Promise: one record = one sendto(2) on the inherited SOCK_DGRAM descriptor with
 * MSG_DONTWAIT|MSG_NOSIGNAL, made with the raw system call (never our own interposer): it never
 * blocks, takes no lock, allocates nothing, and is therefore safe in threads, in a fork child and
 * in a signal handler. errno is left as the caller had it.
 *
 * When the queue is full (a flood, a slow supervisor) a denial is not lost silently:
 *   - the first denial that cannot be sent is kept (one slot, `sbx_pl.pend*`) and re-sent before
 *     the next record, and at exit;
 *   - any other one is counted; the count rides on the next record that is sent (`dropped`);
 *   - at exit (destructor) the kept record and the count are sent, retrying a full queue (and
 *     only that: EAGAIN/ENOBUFS) for at most ~1 s (the process is leaving; only a process whose
 *     reports were dropped ever waits here).
 * So "preload.deny lines + dropped counts" equals the denials made. A fork child starts with an
 * empty slot and a zero count (they belong to the parent).
 */
#include "pl.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/syscall.h>

enum { PEND_EMPTY = 0, PEND_BUSY = 1, PEND_FULL = 2 };

static long send_buf(const void *buf, size_t n)
{
	return sbx_sys(SYS_sendto, sbx_pl.report_fd, (long)buf, (long)n, MSG_DONTWAIT | MSG_NOSIGNAL, 0, 0);
}

/* Re-send the kept denial, carrying the current count. 0 sent (or nothing kept), -1 not sent. */
static int send_pending(void)
{
	unsigned full = PEND_FULL;
	if (!atomic_compare_exchange_strong(&sbx_pl.pend_state, &full, PEND_BUSY))
		return 0;
	struct sbx_rec_hdr h;
	memcpy(&h, sbx_pl.pend, sizeof h);
	unsigned d = atomic_exchange(&sbx_pl.dropped, 0u);
	h.dropped = d;
	memcpy(sbx_pl.pend, &h, sizeof h);
	if (send_buf(sbx_pl.pend, sbx_pl.pend_len) < 0) {
		atomic_fetch_add(&sbx_pl.dropped, d);
		atomic_store(&sbx_pl.pend_state, PEND_FULL);
		return -1;
	}
	atomic_store(&sbx_pl.pend_state, PEND_EMPTY);
	return 0;
}

static int send_rec(struct sbx_rec_hdr *h, const char *subject)
{
	unsigned char buf[SBX_REC_MAX];
	char comm[17];
	if (atomic_load(&sbx_pl.pend_state) == PEND_FULL)
		(void)send_pending();
	unsigned d = atomic_exchange(&sbx_pl.dropped, 0u);
	h->dropped = d;
	h->pid = (int32_t)sbx_getpid();
	sbx_comm(comm);
	size_t n = sbx_rec_encode(buf, h, subject, comm);
	if (send_buf(buf, n) >= 0)
		return 0;
	/* give back the count it carried; a denial is kept (first one) or counted itself */
	unsigned self = 0;
	if (h->type == SBX_REC_DENY) {
		unsigned empty = PEND_EMPTY;
		if (atomic_compare_exchange_strong(&sbx_pl.pend_state, &empty, PEND_BUSY)) {
			struct sbx_rec_hdr z;
			memcpy(&z, buf, sizeof z);
			z.dropped = 0;
			memcpy(buf, &z, sizeof z);
			memcpy(sbx_pl.pend, buf, n);
			sbx_pl.pend_len = (uint16_t)n;
			atomic_store(&sbx_pl.pend_state, PEND_FULL);
		} else {
			self = 1;
		}
	}
	atomic_fetch_add(&sbx_pl.dropped, d + self);
	return -1;
}

void sbx_report(const struct sbx_rec_hdr *h, const char *subject)
{
	if (sbx_pl.report_fd < 0)
		return;
	int saved = errno;
	struct sbx_rec_hdr c = *h;
	c.type = SBX_REC_DENY;
	(void)send_rec(&c, subject && *subject ? subject : "?");
	errno = saved;
}

void sbx_report_ack(void)
{
	if (sbx_pl.report_fd < 0)
		return;
	int saved = errno;
	struct sbx_rec_hdr c = { .type = SBX_REC_ACK };
	(void)send_rec(&c, NULL);
	errno = saved;
}

void sbx_report_flush(void)
{
	if (sbx_pl.report_fd < 0)
		return;
	int saved = errno;
	for (int i = 0; i < 1000; i++) {
		bool pend = atomic_load(&sbx_pl.pend_state) != PEND_EMPTY;
		if (!pend && atomic_load(&sbx_pl.dropped) == 0)
			break;
		int r;
		if (pend) {
			r = send_pending();
		} else {
			struct sbx_rec_hdr c = { .type = SBX_REC_ACK };
			r = send_rec(&c, NULL);
		}
		if (r == 0)
			continue;
		if (errno != EAGAIN && errno != ENOBUFS)
			break;
		struct timespec ts = { 0, 1000000 };
		sbx_sys(SYS_nanosleep, (long)&ts, 0, 0, 0, 0, 0);
	}
	errno = saved;
}

void sbx_report_forked(void)
{
	atomic_store(&sbx_pl.pend_state, PEND_EMPTY);
	atomic_store(&sbx_pl.dropped, 0u);
}
