/* serve_child.h — one call of `sbxsup serve`, in the child forked for its connection.
 *
 * Promise: serve_child() never returns: it reads the one request from `conn` (bounded by
 * SBX_SERVE_REQ_MAX and SERVE_REQ_TIMEOUT_S), refuses a malformed one with a reply (exit 125, a
 * refusal record, reason "bad_request"), else closes every descriptor it did not get from the
 * client (the listening socket, other connections, the probes' BPF objects, the server's own
 * stdio), puts the client's descriptors at their numbers, /dev/null on 0-2 the client did not
 * pass, enters the client's working directory, takes the client's environment, restores the
 * default signal dispositions, calls cfg->run, replies (exit status + result record) and _exits.
 */
#ifndef SBX_SERVE_CHILD_H
#define SBX_SERVE_CHILD_H

#include "serve.h"

__attribute__((noreturn)) void serve_child(int conn, const struct serve_cfg *cfg);
/* A reply without a run (peer refused, server busy, malformed request): exit 125 + a refusal
 * record with reason `code` and `msg`. Best effort. */
void serve_refuse(int conn, const char *code, const char *msg);

#endif
