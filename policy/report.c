/* report.c — the preload -> supervisor record codec (see report.h).
 *
 * Promise: sbx_rec_encode() is async-signal-safe (no locks, no allocation, no libc state: only
 * memcpy/strnlen) and produces one datagram of at most SBX_REC_MAX bytes. sbx_rec_decode() accepts a
 * datagram only when it is exactly well formed: right magic and version, a known type, the length
 * equal to header + subject_len + comm_len, bounded strings without NUL bytes, reserved zero, enum
 * values in range (op/access/family checked per type; `err` is a positive errno, or for op
 * "resolve" the negative EAI_* code the caller got, -16..-1). Anything else is rejected as a whole; the
 * decoded strings are NUL terminated.
 */
#include "report.h"

#include <string.h>
#include <sys/socket.h>

#include "policy.h"

#define COMM_MAX 16u

_Static_assert(sizeof(struct sbx_rec_hdr) == 36, "record header must have no padding");
_Static_assert(sizeof(struct sbx_rec_hdr) + SBX_REC_SUBJECT_MAX + COMM_MAX <= SBX_REC_MAX,
	       "SBX_REC_MAX must hold a full record");

static size_t bounded_len(const char *s, size_t max)
{
	return s ? strnlen(s, max) : 0;
}

size_t sbx_rec_encode(void *buf, const struct sbx_rec_hdr *h, const char *subject, const char *comm)
{
	struct sbx_rec_hdr hdr = *h;
	size_t sl = bounded_len(subject, SBX_REC_SUBJECT_MAX);
	size_t cl = bounded_len(comm, COMM_MAX);
	unsigned char *p = buf;

	hdr.magic = SBX_REC_MAGIC;
	hdr.version = SBX_REC_VERSION;
	hdr.subject_len = (uint16_t)sl;
	hdr.comm_len = (uint16_t)cl;
	hdr.reserved = 0;
	memcpy(p, &hdr, sizeof hdr);
	if (sl)
		memcpy(p + sizeof hdr, subject, sl);
	if (cl)
		memcpy(p + sizeof hdr + sl, comm, cl);
	return sizeof hdr + sl + cl;
}

static int family_ok(unsigned f)
{
	return f == 0 || f == AF_INET || f == AF_INET6 || f == AF_UNIX;
}

int sbx_rec_decode(const void *buf, size_t len, struct sbx_rec *out)
{
	const unsigned char *p = buf;
	struct sbx_rec_hdr h;

	if (!buf || !out || len < sizeof h || len > SBX_REC_MAX)
		return -1;
	memcpy(&h, p, sizeof h);
	if (h.magic != SBX_REC_MAGIC || h.version != SBX_REC_VERSION || h.reserved != 0)
		return -1;
	if (h.subject_len > SBX_REC_SUBJECT_MAX || h.comm_len > COMM_MAX)
		return -1;
	if (len != sizeof h + (size_t)h.subject_len + h.comm_len)
		return -1;
	if (h.pid < 0)
		return -1;
	/* errno values are positive; a refused name resolution carries its EAI_* code (negative) */
	if (h.err < 0 && !(h.type == SBX_REC_DENY && h.op == SBX_OP_RESOLVE && h.err >= -16))
		return -1;
	switch (h.type) {
	case SBX_REC_ACK:
		if (h.op != 0 || h.access != 0 || h.family != 0 || h.err != 0 || h.port != 0)
			return -1;
		break;
	case SBX_REC_DENY:
		if (h.op == 0 || h.op >= SBX_OP__MAX)
			return -1;
		if (h.access & ~(unsigned)(POL_READ | POL_WRITE | POL_EXEC))
			return -1;
		if (!family_ok(h.family))
			return -1;
		if (h.subject_len == 0)
			return -1;
		break;
	default:
		return -1;
	}
	if (memchr(p + sizeof h, 0, (size_t)h.subject_len + h.comm_len))
		return -1;
	out->h = h;
	memcpy(out->subject, p + sizeof h, h.subject_len);
	out->subject[h.subject_len] = 0;
	memcpy(out->comm, p + sizeof h + h.subject_len, h.comm_len);
	out->comm[h.comm_len] = 0;
	return 0;
}

static const char *const op_names[SBX_OP__MAX] = {
	[SBX_OP_OPEN] = "open",       [SBX_OP_STAT] = "stat",         [SBX_OP_EXEC] = "exec",
	[SBX_OP_CONNECT] = "connect", [SBX_OP_SENDTO] = "sendto",     [SBX_OP_BIND] = "bind",
	[SBX_OP_RESOLVE] = "resolve", [SBX_OP_UNLINK] = "unlink",     [SBX_OP_RENAME] = "rename",
	[SBX_OP_MKDIR] = "mkdir",     [SBX_OP_RMDIR] = "rmdir",       [SBX_OP_LINK] = "link",
	[SBX_OP_SYMLINK] = "symlink", [SBX_OP_CHMOD] = "chmod",       [SBX_OP_CHOWN] = "chown",
	[SBX_OP_TRUNCATE] = "truncate", [SBX_OP_UTIME] = "utime",     [SBX_OP_READLINK] = "readlink",
	[SBX_OP_OPENDIR] = "opendir", [SBX_OP_ACCESS] = "access",     [SBX_OP_SPAWN] = "spawn",
	[SBX_OP_CHROOT] = "chroot",   [SBX_OP_SOCKET] = "socket",
	[SBX_OP_XATTR] = "xattr",     [SBX_OP_MKNOD] = "mknod",     [SBX_OP_WATCH] = "watch",
};

const char *sbx_op_name(unsigned op)
{
	return op < SBX_OP__MAX ? op_names[op] : NULL;
}

/* The strongest access named: write > exec > read; no bit (network ops) is "connect". */
const char *sbx_access_name(unsigned access)
{
	if (access & POL_WRITE)
		return "write";
	if (access & POL_EXEC)
		return "exec";
	if (access & POL_READ)
		return "read";
	return "connect";
}

/* ---- gateway records ---------------------------------------------------------------------- */

_Static_assert(sizeof(struct sbx_net_hdr) == 56, "network record header must have no padding");

size_t sbx_net_encode(void *buf, const struct sbx_net_hdr *h, const char *host, const char *peer)
{
	struct sbx_net_hdr hdr = *h;
	size_t hl = bounded_len(host, SBX_NET_STR_MAX), pl = bounded_len(peer, SBX_NET_STR_MAX);
	unsigned char *p = buf;
	hdr.magic = SBX_NET_MAGIC;
	hdr.version = SBX_NET_VERSION;
	hdr.host_len = (uint16_t)hl;
	hdr.peer_len = (uint16_t)pl;
	memcpy(p, &hdr, sizeof hdr);
	if (hl)
		memcpy(p + sizeof hdr, host, hl);
	if (pl)
		memcpy(p + sizeof hdr + hl, peer, pl);
	return sizeof hdr + hl + pl;
}

int sbx_net_decode(const void *buf, size_t len, struct sbx_net_rec *out)
{
	const unsigned char *p = buf;
	struct sbx_net_hdr h;
	if (!buf || !out || len < sizeof h || len > SBX_NET_REC_MAX)
		return -1;
	memcpy(&h, p, sizeof h);
	if (h.magic != SBX_NET_MAGIC || h.version != SBX_NET_VERSION)
		return -1;
	if (h.host_len > SBX_NET_STR_MAX || h.peer_len > SBX_NET_STR_MAX ||
	    len != sizeof h + (size_t)h.host_len + h.peer_len)
		return -1;
	if (h.family != 0 && h.family != AF_INET && h.family != AF_INET6)
		return -1;
	if (h.proto != 0 && h.proto != 6 && h.proto != 17)
		return -1;
	switch (h.kind) {
	case SBX_NET_DNS_DENY:
	case SBX_NET_DNS_ANSWER:
		if (h.host_len == 0 || h.reason != 0)
			return -1;
		break;
	case SBX_NET_DENY:
		if (h.reason == SBX_NR_NONE || h.reason >= SBX_NR__MAX)
			return -1;
		break;
	case SBX_NET_FLOW:
		if (h.reason != 0 || h.family == 0)
			return -1;
		break;
	default:
		return -1;
	}
	if (memchr(p + sizeof h, 0, (size_t)h.host_len + h.peer_len))
		return -1;
	out->h = h;
	memcpy(out->host, p + sizeof h, h.host_len);
	out->host[h.host_len] = 0;
	memcpy(out->peer, p + sizeof h + h.host_len, h.peer_len);
	out->peer[h.peer_len] = 0;
	return 0;
}

static const char *const net_reasons[SBX_NR__MAX] = {
	[SBX_NR_NAME_NOT_GRANTED] = "name-not-granted", [SBX_NR_NO_NAME] = "no-name",
	[SBX_NR_ADDR_NOT_GRANTED] = "addr-not-granted", [SBX_NR_HTTP_RULE] = "http-rule",
	[SBX_NR_BAD_REQUEST] = "bad-request",           [SBX_NR_TIMEOUT] = "timeout",
	[SBX_NR_UPSTREAM] = "upstream-failed",          [SBX_NR_UDP_NOT_RELAYED] = "udp-not-relayed",
	[SBX_NR_CONN_LIMIT] = "too-many-connections",
};

const char *sbx_net_reason_name(unsigned reason)
{
	return reason < SBX_NR__MAX ? net_reasons[reason] : NULL;
}
