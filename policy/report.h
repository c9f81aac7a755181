/* report.h — records from inside the sandbox to the supervisor (preload denials, acks) and the
 * stage's control messages.
 *
 * Promise: a record is never interleaved, never blocks its sender, and is decoded as hostile input.
 *
 * Transport: an AF_UNIX SOCK_DGRAM socketpair; the executor side is inherited at fd number given by
 * SBXSUP_REPORT_FD. Every record is one datagram (one sendto with MSG_DONTWAIT|MSG_NOSIGNAL), so
 * records never interleave, a full queue drops the record (never blocks the executor), and no lock
 * is needed (async-signal-safe, fork-safe, thread-safe). Drops are counted by the preload in the
 * next record it manages to send (`dropped`).
 *
 * The supervisor treats every byte as hostile: sbx_rec_decode() checks magic, version, type, sizes,
 * NUL-termination and enum ranges; strings are bounded; the kernel-supplied SCM_CREDENTIALS pid is
 * preferred over the record's pid when available.
 *
 * libc only (linked into libsbxpreload.so).
 */
#ifndef SBX_REPORT_H
#define SBX_REPORT_H

#include <stddef.h>
#include <stdint.h>

#define SBX_REC_MAGIC   0x52584253u /* "SBXR" */
#define SBX_REC_VERSION 1u
#define SBX_REC_MAX     4608u       /* header + subject + comm: one datagram */
#define SBX_REC_SUBJECT_MAX 4096u

enum sbx_rec_type { SBX_REC_ACK = 1, SBX_REC_DENY = 2 };

/* Operations (preload.deny "op"). Keep in step with sbx_op_name(). */
enum sbx_op {
	SBX_OP_OPEN = 1, SBX_OP_STAT, SBX_OP_EXEC, SBX_OP_CONNECT, SBX_OP_SENDTO, SBX_OP_BIND,
	SBX_OP_RESOLVE, SBX_OP_UNLINK, SBX_OP_RENAME, SBX_OP_MKDIR, SBX_OP_RMDIR, SBX_OP_LINK,
	SBX_OP_SYMLINK, SBX_OP_CHMOD, SBX_OP_CHOWN, SBX_OP_TRUNCATE, SBX_OP_UTIME, SBX_OP_READLINK,
	SBX_OP_OPENDIR, SBX_OP_ACCESS, SBX_OP_SPAWN, SBX_OP_CHROOT, SBX_OP_SOCKET,
	SBX_OP_XATTR, SBX_OP_MKNOD, SBX_OP_WATCH, /* set/remove xattr; mknod/mkfifo; inotify/fanotify */
	SBX_OP__MAX
};

/* Wire format: header, then subject_len bytes (no NUL), then comm_len bytes (no NUL). */
struct sbx_rec_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;        /* enum sbx_rec_type */
	int32_t pid;          /* as seen by the sender (namespaced) */
	uint16_t op;          /* enum sbx_op */
	uint8_t access;       /* enum pol_access bits; for network: 0 */
	uint8_t family;       /* 0 (path / name), AF_INET, AF_INET6, AF_UNIX */
	int32_t err;          /* errno returned to the caller (EACCES, EPERM, EAI_FAIL...) */
	uint32_t rule;        /* rule index in the compiled policy */
	uint16_t port;        /* host order, network ops */
	uint16_t subject_len; /* path, host name, or textual address */
	uint16_t comm_len;
	uint16_t reserved;
	uint32_t dropped;     /* records this process could not send before this one */
};

struct sbx_rec {
	struct sbx_rec_hdr h;
	char subject[SBX_REC_SUBJECT_MAX + 1];
	char comm[17];
};

/* Encode into buf (>= SBX_REC_MAX bytes). Truncates subject/comm to their bounds. Returns the
 * length. Async-signal-safe. */
size_t sbx_rec_encode(void *buf, const struct sbx_rec_hdr *h, const char *subject, const char *comm);
/* Decode and validate an untrusted datagram. Returns 0, or -1 (reject it). */
int sbx_rec_decode(const void *buf, size_t len, struct sbx_rec *out);
const char *sbx_op_name(unsigned op);            /* "open", "exec", ... or NULL if out of range */
const char *sbx_access_name(unsigned access);    /* "read", "write", "exec", "connect" */

/* Records from the network gateway (supervisor/net/gateway.h) to the supervisor: same transport
 * rules (one datagram each, never blocking the sender, decoded as hostile input), but on a socket
 * only the gateway holds, and their own magic so that no other record can pass for one.
 * Wire format: struct sbx_net_hdr, then host_len bytes, then peer_len bytes (no NUL in either). */
#define SBX_NET_MAGIC    0x4e584253u /* "SBXN" */
#define SBX_NET_VERSION  1u
#define SBX_NET_STR_MAX  1024u
#define SBX_NET_REC_MAX  (64u + 2u * SBX_NET_STR_MAX)

enum sbx_net_kind { SBX_NET_DNS_DENY = 1, SBX_NET_DENY = 2, SBX_NET_FLOW = 3, SBX_NET_DNS_ANSWER = 4 };
/* net.deny reasons. Keep in step with sbx_net_reason_name(). */
enum sbx_net_reason {
	SBX_NR_NONE = 0,
	SBX_NR_NAME_NOT_GRANTED,  /* SNI / Host / CONNECT names a host not granted for the port */
	SBX_NR_NO_NAME,           /* no SNI / Host in the first bytes, destination not an address grant */
	SBX_NR_ADDR_NOT_GRANTED,  /* destination address/port not granted (no name, no literal) */
	SBX_NR_HTTP_RULE,         /* method or path outside the grant's HTTP rules */
	SBX_NR_BAD_REQUEST,       /* malformed first bytes (TLS or HTTP) */
	SBX_NR_TIMEOUT,           /* no name within the time allowed */
	SBX_NR_UPSTREAM,          /* the granted host could not be reached (resolution or connect) */
	SBX_NR_UDP_NOT_RELAYED,   /* UDP the gateway cannot carry (an unrestricted network's, not DNS) */
	SBX_NR_CONN_LIMIT,        /* more connections open at once than the gateway carries */
	SBX_NR__MAX
};

struct sbx_net_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t kind;        /* enum sbx_net_kind */
	uint16_t port;        /* host order */
	uint8_t proto;        /* IPPROTO_TCP / IPPROTO_UDP (0 for dns.deny) */
	uint8_t family;       /* AF_INET, AF_INET6, or 0 (no address) */
	uint16_t qtype;       /* dns.deny */
	uint16_t reason;      /* enum sbx_net_reason (net.deny) */
	uint8_t addr[16];     /* network order */
	uint64_t bytes_out;   /* client -> host */
	uint64_t bytes_in;
	uint32_t duration_ms;
	uint16_t host_len;    /* granted name / queried name */
	uint16_t peer_len;    /* the name the client sent (SNI, Host, CONNECT) */
};

struct sbx_net_rec {
	struct sbx_net_hdr h;
	char host[SBX_NET_STR_MAX + 1];
	char peer[SBX_NET_STR_MAX + 1];
};

/* Encode into buf (>= SBX_NET_REC_MAX bytes); strings truncated to SBX_NET_STR_MAX. */
size_t sbx_net_encode(void *buf, const struct sbx_net_hdr *h, const char *host, const char *peer);
/* Decode and validate an untrusted datagram: 0, or -1 (reject it). */
int sbx_net_decode(const void *buf, size_t len, struct sbx_net_rec *out);
const char *sbx_net_reason_name(unsigned reason); /* "name-not-granted", ... or NULL */

/* Environment variables the supervisor sets for the executor (and the exec interposers restore). */
#define SBX_ENV_POLICY_FD "SBXSUP_POLICY_FD"
#define SBX_ENV_REPORT_FD "SBXSUP_REPORT_FD"
#define SBX_ENV_RUN       "SBXSUP_RUN"
/* Optional: an AF_UNIX SOCK_DGRAM address the supervisor listens on ("/path" or "@abstract"). When
 * the inherited report descriptor is gone (closed with a raw system call, replaced), the preload
 * connects a new socket to it instead of losing the record. */
#define SBX_ENV_REPORT_ADDR "SBXSUP_REPORT_ADDR"

#endif
