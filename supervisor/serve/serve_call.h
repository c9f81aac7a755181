/* serve_call.h — one call of `sbxsup serve` as the child handles it: receive the request and its
 * descriptors, run it cold, reply (serve_call.c). serve_child.c runs the first call of a
 * connection, serve_warm.c the calls a pre-created sandbox takes; both use these, neither the other.
 */
#ifndef SBX_SERVE_CALL_H
#define SBX_SERVE_CALL_H

#include "serve_cfg.h"
#include "serve_proto.h"

/* A reply without a run (peer refused, server busy, malformed request): exit 125 + a refusal
 * record with reason `code` and `msg`. Best effort. */
void serve_refuse(int conn, const char *code, const char *msg);

/* One call's request and descriptors (received close-on-exec). */
struct serve_call {
	char *buf;                 /* SBX_SERVE_REQ_MAX + 1 */
	struct serve_req *rq;      /* points into buf */
	int conn;
	int fds[SBX_SERVE_MAX_FDS + 1];
	unsigned nfds;
};
struct serve_call *serve_call_new(void);
/* Read and parse the request on conn; -1: refused with a reply (its descriptors closed). */
int serve_call_recv(struct serve_call *c, int conn);
/* Run c cold in this process: close every descriptor but c's and ch, place c's descriptors, cwd,
 * environment, run, tell the server 'W' on ch (when >= 0), reply. The process keeps the client's
 * cwd and environment (environ points into c). Returns ch's new number (it may move), -1. */
int serve_call_cold(struct serve_call *c, int ch, const struct serve_cfg *cfg);
void serve_send_reply(int conn, int code, const char *rec, size_t reclen);
void serve_reply_record(int conn, int code, int rec);   /* the status + the record in memfd rec */
long serve_recv_req(int conn, char *buf, size_t cap, int *fds, unsigned *nfds, char *why, size_t whylen);
void serve_close_all_but(const int *keep, size_t n);
/* Child -> server on ch: 'W' (my call is answered: I prepare the next sandbox; forget my
 * connection), 'T' (I took the connection you sent; watch it). */
void serve_tell(int ch, char what);

#endif
