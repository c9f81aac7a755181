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
 *   - a critical denial (a secret, a manifest deny, a privilege rule: pol_rule_urgent; not a mere
 *     stat/access/readlink) is never left to the slot or the count while the supervisor drains:
 *     its send is retried for up to ~1 s (a flood of distinct such denials is slowed to the
 *     supervisor's pace, so a decoy flood cannot bury the one that matters). A repeat of the
 *     last one that waited (same op, rule and subject) does not wait: it is kept or counted as
 *     above, like any repeated line.
 * So "preload.deny lines + dropped counts" equals the denials made. A fork child starts with an
 * empty slot and a zero count (they belong to the parent).
 * Fixed channel (sbx_pl.fixed: the sandbox's /run/sbxsup, no SBXSUP_* in the environment): each
 * record is one sendto(2) from a fresh close-on-exec socket to SBX_PL_REPORT_FIXED, closed at once;
 * no descriptor of ours stays open, so none can leak, be closed or be reused. The supervisor's
 * bound socket queues at most net.unix.max_dgram_qlen records from such senders: when it is full
 * the send waits for the supervisor to drain, at most SBX_PL_FIXED_WAIT_US per record (only a
 * process flooding denials ever waits), then the record is kept or counted as below.
 * Environment channel: before each send the descriptor is checked to still be the report socket
 * (fstat: same device and inode);
 * when it is gone (or a send on it fails as if it were: EBADF, ENOTSOCK, ECONNREFUSED...) and
 * SBXSUP_REPORT_ADDR names the supervisor's socket (or, with no such variable, the sandbox's fixed
 * SBX_PL_REPORT_FIXED exists), a new socket is connected to it (a raw close of every descriptor,
 * or an exec with a stripped environment, does not silence the reports).
 */
#include "pl.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <sys/syscall.h>

enum { PEND_EMPTY = 0, PEND_BUSY = 1, PEND_FULL = 2 };

static bool can_report(void)
{
	return sbx_pl.report_fd >= 0 || sbx_pl.report_addr[0];
}

/* The report address as a sockaddr (a leading '@' is an abstract name). Returns its length. */
static socklen_t report_sockaddr(struct sockaddr_un *a)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	size_t n = strlen(sbx_pl.report_addr);
	if (sbx_pl.report_addr[0] == '@') {
		memcpy(a->sun_path + 1, sbx_pl.report_addr + 1, n - 1);   /* abstract: leading NUL */
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	}
	memcpy(a->sun_path, sbx_pl.report_addr, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
}

/* A new datagram socket connected to SBXSUP_REPORT_ADDR; it replaces the lost one (and is
 * inherited under the SBXSUP_REPORT_FD the exec interposers hand on). One thread at a time. */
static int reconnect(void)
{
	int busy = 0;
	if (!sbx_pl.report_addr[0] || !atomic_compare_exchange_strong(&sbx_pl.reconnecting, &busy, 1))
		return -1;
	struct sockaddr_un a;
	socklen_t len = report_sockaddr(&a);
	int fd = (int)sbx_sys(SYS_socket, AF_UNIX, SOCK_DGRAM, 0, 0, 0, 0);
	struct stat st;
	if (fd < 0 || sbx_sys(SYS_connect, fd, (long)&a, len, 0, 0, 0) != 0 || sbx_sys(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) != 0) {
		if (fd >= 0)
			sbx_sys(SYS_close, fd, 0, 0, 0, 0, 0);
		atomic_store(&sbx_pl.reconnecting, 0);
		return -1;
	}
	sbx_pl.report_dev = st.st_dev;
	sbx_pl.report_ino = st.st_ino;
	sbx_pl.report_fd = fd;
	char *e = sbx_pl.env[SBX_PL_ENV_REPORT_FD];
	if (e[0]) {
		/* "SBXSUP_REPORT_FD=" + decimal, without stdio */
		char num[16];
		int k = 0;
		for (unsigned v = (unsigned)fd; k == 0 || v; v /= 10)
			num[k++] = (char)('0' + v % 10);
		size_t p = strlen(SBX_ENV_REPORT_FD) + 1;
		while (k)
			e[p++] = num[--k];
		e[p] = 0;
	}
	atomic_store(&sbx_pl.reconnecting, 0);
	return fd;
}

/* The report socket: still the one we were given (same device and inode: a raw close() and a
 * reused number must not send our records into the program's own socket), else a reconnected
 * one, else -1. */
static int report_sock(void)
{
	int fd = sbx_pl.report_fd;
	struct stat st;
	if (fd >= 0 && sbx_sys(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_dev == sbx_pl.report_dev && st.st_ino == sbx_pl.report_ino)
		return fd;
	return reconnect();
}

/* The fixed channel (no descriptor of ours is ever kept): one datagram from a fresh close-on-exec
 * socket to SBX_PL_REPORT_FIXED, closed at once. A program that closes every descriptor, or
 * reuses any number, can neither silence the reports nor receive them. */
static long send_fixed(const void *buf, size_t n)
{
	struct sockaddr_un a;
	socklen_t len = report_sockaddr(&a);
	int fd = (int)sbx_sys(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0, 0, 0);
	if (fd < 0)
		return -1;
	long r = sbx_sys(SYS_sendto, fd, (long)buf, (long)n, MSG_DONTWAIT | MSG_NOSIGNAL, (long)&a, len);
	if (r < 0 && errno == EAGAIN) {
		/* A bound datagram socket takes at most net.unix.max_dgram_qlen (10) records from
		 * senders that are not its peer: wait for the supervisor to drain, bounded. */
		struct timeval tv = { 0, SBX_PL_FIXED_WAIT_US };
		if (sbx_sys(SYS_setsockopt, fd, SOL_SOCKET, SO_SNDTIMEO, (long)&tv, sizeof tv, 0) == 0)
			r = sbx_sys(SYS_sendto, fd, (long)buf, (long)n, MSG_NOSIGNAL, (long)&a, len);
	}
	int e = errno;
	sbx_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	errno = e;
	return r;
}

/* The descriptor is not (or no longer) a usable report socket: a raw close between the check and
 * the send, a peer that is gone. A full queue (EAGAIN/ENOBUFS) or a signal is not that. */
static bool sock_lost(int err)
{
	return err == EBADF || err == ENOTSOCK || err == ENOTCONN || err == ECONNREFUSED ||
	       err == EPIPE || err == EDESTADDRREQ || err == EISCONN || err == EOPNOTSUPP;
}

static long send_buf(const void *buf, size_t n)
{
	if (sbx_pl.fixed)
		return send_fixed(buf, n);
	int fd = report_sock();
	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	long r = sbx_sys(SYS_sendto, fd, (long)buf, (long)n, MSG_DONTWAIT | MSG_NOSIGNAL, 0, 0);
	if (r < 0 && sock_lost(errno) && (fd = reconnect()) >= 0)
		r = sbx_sys(SYS_sendto, fd, (long)buf, (long)n, MSG_DONTWAIT | MSG_NOSIGNAL, 0, 0);
	return r;
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

/* A denial that must never be buried (see the header). */
static bool urgent(const struct sbx_rec_hdr *h)
{
	if (h->op == SBX_OP_STAT || h->op == SBX_OP_ACCESS || h->op == SBX_OP_READLINK)
		return false;
	return pol_rule_urgent(sbx_pl.pol, h->rule) || (sbx_pl.pol2 && pol_rule_urgent(sbx_pl.pol2, h->rule));
}

/* Is this denial the same as the last critical one that waited (see the header)? Remembers it. */
static bool repeat_of_last(const struct sbx_rec_hdr *h, const char *subject)
{
	uint64_t x = 0xcbf29ce484222325ull;
	x = (x ^ h->op) * 0x100000001b3ull;
	x = (x ^ h->rule) * 0x100000001b3ull;
	for (const char *c = subject ? subject : ""; *c; c++)
		x = (x ^ (unsigned char)*c) * 0x100000001b3ull;
	return atomic_exchange(&sbx_pl.last_urgent, x) == x;
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
	if (h->type == SBX_REC_DENY && urgent(h) && !repeat_of_last(h, subject)) {
		/* retried for ~1 s in all (the fixed channel's send waits on its own, bounded) */
		struct timespec t0, t, ts = { 0, 1000000 };
		sbx_sys(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&t0, 0, 0, 0, 0);
		for (;;) {
			if (errno != EAGAIN && errno != ENOBUFS)
				break;
			sbx_sys(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&t, 0, 0, 0, 0);
			if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >= 1000)
				break;
			if (!sbx_pl.fixed)
				sbx_sys(SYS_nanosleep, (long)&ts, 0, 0, 0, 0, 0);
			if (send_buf(buf, n) >= 0)
				return 0;
		}
	}
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
	if (!can_report())
		return;
	int saved = errno;
	struct sbx_rec_hdr c = *h;
	c.type = SBX_REC_DENY;
	(void)send_rec(&c, subject && *subject ? subject : "?");
	errno = saved;
}

void sbx_report_ack(void)
{
	if (!can_report())
		return;
	int saved = errno;
	struct sbx_rec_hdr c = { .type = SBX_REC_ACK };
	(void)send_rec(&c, NULL);
	errno = saved;
}

void sbx_report_flush(void)
{
	if (!can_report())
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
