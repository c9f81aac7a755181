/* serve_proto.h — the wire protocol between a client and `sbxsup serve` (docs/serve.md).
 *
 * Promise: one AF_UNIX SOCK_SEQPACKET connection carries exactly one call: one request message
 * (at most SBX_SERVE_REQ_MAX bytes, with its descriptors in one SCM_RIGHTS control message), then
 * one reply message (at most SBX_SERVE_REP_MAX bytes). Integers are 32-bit in host byte order (the
 * socket is local). serve_req_parse() trusts nothing in the message: every count is bounded, every
 * string lies inside the message and is NUL-terminated, the descriptor table matches the number
 * of descriptors that actually arrived; it never allocates more than bounded arrays and never
 * reads outside [buf, buf+len). serve_req_encode()/serve_rep_encode() build the messages a client
 * and the server send; serve_rep_parse() reads a reply.
 *
 * Request:  "SBXQ" u32 version u32 flags(0) u32 argc u32 envc u32 nfds
 *           i32 target[nfds]          -1: the caller's working directory (exactly one, an O_PATH
 *                                     directory fd), else the fd number the descriptor takes in
 *                                     the run (0..SBX_SERVE_FD_TARGET_MAX, each at most once;
 *                                     0, 1, 2 are the executor's stdio)
 *           argc NUL-terminated strings: the `sbxsup run` arguments, argv[0] = "run", options, "--",
 *                                     COMMAND, ARG... (parsed in the server exactly as `run` does)
 *           envc NUL-terminated strings "NAME=value": the caller's environment
 *           (nothing after the last string)
 * Reply:    "SBXR" u32 version i32 exit u32 reclen, then reclen bytes: the result record (one
 *           JSON object, the same as `sbxsup run --result`; docs/result-record.md)
 * Ownership: the parsed request points into the caller's buffer (no copies); the caller owns the
 * buffer and the descriptors.
 */
#ifndef SBX_SERVE_PROTO_H
#define SBX_SERVE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define SBX_SERVE_VERSION        1u
#define SBX_SERVE_REQ_MAX        (128u * 1024u)   /* bytes of one request (argv + env + header) */
#define SBX_SERVE_REP_MAX        (64u * 1024u)    /* bytes of one reply */
#define SBX_SERVE_MAX_FDS        8u               /* descriptors in one request (cwd + stdio + 4) */
#define SBX_SERVE_MAX_ARGS       4096u
#define SBX_SERVE_MAX_ENV        4096u
#define SBX_SERVE_FD_TARGET_MAX  1023             /* highest fd number a passed descriptor may take */
#define SBX_SERVE_HDR_LEN        24u
#define SBX_SERVE_REP_HDR_LEN    16u

struct serve_req {
	uint32_t argc, envc, nfds;
	int32_t target[SBX_SERVE_MAX_FDS];
	unsigned cwd_index;                    /* the index of the -1 target */
	const char *argv[SBX_SERVE_MAX_ARGS + 1];   /* NULL-terminated */
	const char *envp[SBX_SERVE_MAX_ENV + 1];    /* NULL-terminated */
};

/* Parse buf[0..len) that arrived with `nfds_got` descriptors. 0, or -1 with a one-line why. */
int serve_req_parse(const void *buf, size_t len, unsigned nfds_got, struct serve_req *out,
		    char *why, size_t whylen);
/* Encode a request into out[0..cap). Returns its length, or -1 (too large: errno E2BIG). */
long serve_req_encode(char *out, size_t cap, char *const *argv, char *const *envp,
		      const int32_t *target, unsigned nfds);
/* Encode a reply. Returns its length, or -1 (the record does not fit: errno E2BIG). */
long serve_rep_encode(char *out, size_t cap, int exit_status, const char *record, size_t reclen);
/* Parse a reply: 0 (*exit_status set, *record and *reclen point into buf), or -1 with why. */
int serve_rep_parse(const void *buf, size_t len, int *exit_status, const char **record, size_t *reclen,
		    char *why, size_t whylen);

#endif
