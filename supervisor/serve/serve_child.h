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

#include "serve_cfg.h"
#include "serve_call.h" /* serve_refuse */

/* ch: the server's channel to this child when it may become the pre-created sandbox after its
 * call (serve_warm.c), else -1. */
__attribute__((noreturn)) void serve_child(int conn, int ch, const struct serve_cfg *cfg);

/* A pre-creating child that starts from another child's template instead of a call (the server
 * fills up to cfg->warm_max parked sandboxes, serve.c): closes every descriptor but tp and ch,
 * reads the template from tp (a request as a client sends it, with exactly one descriptor: the
 * working directory; parsed by the same parser, bounded by SERVE_REQ_TIMEOUT_S), enters its
 * working directory, takes its environment and prepares a sandbox for it exactly as a call's
 * child does after its call (serve_warm.c). Anything else on tp: it exits. */
__attribute__((noreturn)) void serve_child_copy(int tp, int ch, const struct serve_cfg *cfg);

#endif
