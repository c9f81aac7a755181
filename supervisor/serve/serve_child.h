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
#include "serve_call.h" /* serve_refuse */

/* ch: the server's channel to this child when it may become the pre-created sandbox after its
 * call (serve_warm.c), else -1. */
__attribute__((noreturn)) void serve_child(int conn, int ch, const struct serve_cfg *cfg);

#endif
