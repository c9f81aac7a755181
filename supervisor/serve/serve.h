/* serve.h — `sbxsup serve`: a warm server that runs `sbxsup run` calls sent over a socket.
 *
 * Promise: serve_main() listens on cfg->socket (serve_sock.h: 0600, owner-only directory, peer uid
 * checked) and answers each connection with one run in a fresh child process forked for it: the
 * child reads the request (serve_proto.h), keeps only the descriptors the client passed (each
 * placed at the number the client gave it; every other descriptor of the server is closed, so
 * nothing of the server or of another call reaches the run), takes the client's working directory
 * and environment, calls cfg->run (which runs `sbxsup run` with those arguments: its own plan,
 * sandbox, audit run and result record), and replies with the exit status and the result record.
 * Pre-created sandboxes (cfg->warm): after replying, the child of a call (at most cfg->warm_max,
 * default SERVE_WARM_MAX, such children at a time, each with one sandbox) prepares the next run for the same command,
 * options, working directory and environment and parks it before run.start; while fewer than
 * warm_max children pre-create, a child whose sandbox parked gives a copy of its template to a new
 * one (fill, serve_child_copy), so a burst of up to warm_max back-to-back calls finds parked
 * sandboxes from the first call on; the server hands the next connection to a child whose sandbox
 * is parked (else to a new cold child while fewer than cfg->warm_max pre-create, else to one that is
 * preparing). After its reply a child waits until no call has been in flight for SERVE_QUIET_MS
 * before it cleans up and prepares again (a burst does not share the CPUs with that). A call that matches is released
 * into it (its argv, stdio and tag; run.start written then), one that does not ends the parked
 * sandbox unaudited and runs cold in that child. A sandbox runs at most one call.
 * What is kept between calls: the probe programs (the server holds a slot of the shared probe set
 * while it lives, so runs only claim a slot) and the host probes of the layer table; no run ever
 * reuses anything another run used. A client that disconnects ends its run as SIGTERM ends a
 * direct run. SIGTERM/SIGINT stop the server: it stops accepting, removes its socket, sends SIGTERM
 * to every live run (each ends as a direct `sbxsup run` does on SIGTERM: the tree killed, run.end
 * written), waits up to SERVE_STOP_GRACE_MS, then SIGKILLs what is left (the run's janitor removes
 * its cgroups and directories) and returns 0. Fatal set-up errors return 125 with one line said.
 * Ownership: cfg and what it points to stay the caller's; cfg->run is called in the child only.
 */
#ifndef SBX_SERVE_H
#define SBX_SERVE_H

#include "serve_cfg.h"

int serve_main(const struct serve_cfg *cfg);

#endif
