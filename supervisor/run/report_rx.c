/* report_rx.c — see report_rx.h. */
#include "report_rx.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "report.h"

static int emit_deny(struct report_rx *r, struct audit *a, const struct sbx_rec *rec, pid_t kpid)
{
	cJSON *ev = audit_event(a, "preload.deny", "preload");
	if (!ev)
		return -1;
	const struct sbx_rec_hdr *h = &rec->h;
	cJSON_AddNumberToObject(ev, "pid", kpid > 0 ? kpid : h->pid);
	audit_add_str(ev, "comm", rec->comm, 16);
	const char *op = sbx_op_name(h->op);
	cJSON_AddStringToObject(ev, "op", op ? op : "?");
	bool net = h->op == SBX_OP_CONNECT || h->op == SBX_OP_SENDTO || h->op == SBX_OP_BIND;
	if (h->op == SBX_OP_RESOLVE) {
		audit_add_str(ev, "host", rec->subject, SBX_REC_SUBJECT_MAX);
		if (h->port)
			cJSON_AddNumberToObject(ev, "port", h->port);
	} else if (net && (h->family == AF_INET || h->family == AF_INET6)) {
		audit_add_str(ev, "addr", rec->subject, SBX_REC_SUBJECT_MAX);
		cJSON_AddNumberToObject(ev, "port", h->port);
	} else {
		audit_add_str(ev, "path", rec->subject, SBX_REC_SUBJECT_MAX);
	}
	const char *acc = net || h->op == SBX_OP_RESOLVE ? "connect" : sbx_access_name(h->access);
	cJSON_AddStringToObject(ev, "access", acc ? acc : "?");
	audit_add_str(ev, "rule", r->pol ? pol_rule_text(r->pol, h->rule) : "?", 512);
	cJSON_AddNumberToObject(ev, "errno", h->err);
	if (h->dropped)
		cJSON_AddNumberToObject(ev, "dropped", h->dropped);
	return audit_emit(a, ev);
}

static int drain_fd(struct report_rx *r, struct audit *a, int fd)
{
	for (int batch = 0; batch < RX_BATCH; batch++) {
		_Alignas(8) unsigned char buf[SBX_REC_MAX + 64];
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * 8)];
		} c;
		struct iovec iov = {buf, sizeof buf};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.b,
				    .msg_controllen = sizeof c.b};
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0)
			return 0; /* EAGAIN: drained; any other error: nothing more to read */
		pid_t kpid = 0;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS &&
			    cm->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
				struct ucred uc;
				memcpy(&uc, CMSG_DATA(cm), sizeof uc);
				kpid = uc.pid;
			} else if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
				/* fds are never expected: close them so the sandbox cannot fill our table */
				size_t nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				for (size_t i = 0; i < nfd; i++) {
					int f;
					memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof f);
					close(f);
				}
			}
		}
		struct sbx_rec rec;
		if ((mh.msg_flags & MSG_TRUNC) || sbx_rec_decode(buf, (size_t)n, &rec) < 0) {
			r->rejected++;
			continue;
		}
		r->dropped += rec.h.dropped;
		if (rec.h.type == SBX_REC_ACK) {
			r->acks++;
			continue;
		}
		r->denies++;
		if (emit_deny(r, a, &rec, kpid) < 0)
			return -1;
	}
	return 0;
}

int report_rx_drain(struct report_rx *r, struct audit *a)
{
	if (r->fd >= 0 && drain_fd(r, a, r->fd) < 0)
		return -1;
	if (r->addr_fd >= 0 && drain_fd(r, a, r->addr_fd) < 0)
		return -1;
	return 0;
}
