/* report.c — sending records to the supervisor.
 *
 * Promise: one record = one sendto(2) on the inherited SOCK_DGRAM descriptor with
 * MSG_DONTWAIT|MSG_NOSIGNAL, made with the raw system call (never our own interposer): it never
 * blocks, takes no lock, allocates nothing, and is therefore safe in threads, in a fork child and
 * in a signal handler. A record that cannot be sent is counted; the count rides on the next record
 * that is sent (`dropped`). errno is left as the caller had it.
 */
#include "pl.h"

#include <errno.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/syscall.h>

static int send_rec(struct sbx_rec_hdr *h, const char *subject)
{
	unsigned char buf[SBX_REC_MAX];
	char comm[17];
	unsigned d = atomic_exchange(&sbx_pl.dropped, 0u);
	h->dropped = d;
	h->pid = (int32_t)sbx_getpid();
	sbx_comm(comm);
	size_t n = sbx_rec_encode(buf, h, subject, comm);
	long r = sbx_sys(SYS_sendto, sbx_pl.report_fd, (long)buf, (long)n, MSG_DONTWAIT | MSG_NOSIGNAL, 0, 0);
	if (r < 0) {
		atomic_fetch_add(&sbx_pl.dropped, d + 1u);
		return -1;
	}
	return 0;
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

/* At exit: records dropped since the last one sent would otherwise never be counted. One ACK
 * record carries the count (the supervisor adds `dropped` of every record); a full queue is
 * retried for at most ~100 ms — the process is exiting, the executor is not slowed. */
void sbx_report_flush(void)
{
	if (sbx_pl.report_fd < 0 || atomic_load(&sbx_pl.dropped) == 0)
		return;
	int saved = errno;
	for (int i = 0; i < 100 && atomic_load(&sbx_pl.dropped) != 0; i++) {
		struct sbx_rec_hdr c = { .type = SBX_REC_ACK };
		if (send_rec(&c, NULL) == 0)
			break;
		if (errno != EAGAIN && errno != ENOBUFS)
			break;
		struct timespec ts = { 0, 1000000 };
		sbx_sys(SYS_nanosleep, (long)&ts, 0, 0, 0, 0, 0);
	}
	errno = saved;
}
