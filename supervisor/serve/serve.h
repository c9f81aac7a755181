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

#include <stdbool.h>
#include <stddef.h>

#define SERVE_MAX_LIVE      64      /* concurrent calls; more are refused with a reply */
#define SERVE_WARM_MAX      2       /* default: children that each keep one sandbox parked (docs/serve.md) */
#define SERVE_WARM_LIMIT    16      /* the most `sbxsup serve --warm N` takes */
#define SERVE_STOP_GRACE_MS 5000
#define SERVE_REQ_TIMEOUT_S 10      /* a connection must deliver its request within this */
#define SERVE_QUIET_MS      50      /* no call in flight this long: answered children clean up and
				     * prepare their next sandbox (serve_warm.c hold()) */
#define SERVE_HOLD_MAX_MS   2000    /* ... or after this long anyway */

struct run_warm;

/* What a call asks for, as cfg->inspect reads its arguments (in the child). */
struct serve_call_info {
	char *key;              /* malloc'd: the options (the server's and the call's, minus --tag and
				 * --result) and the command's name, one NUL-separated list ending in an
				 * empty string; NULL: this call never uses a pre-created sandbox
				 * (bad arguments, --help, --dry-run, -a fd:N, a run from "/") */
	size_t keylen;
	char **cmd;             /* the command and its arguments (into argv) */
	const char *tag;        /* --tag, NULL (tag, result, manifest: in key's buffer, after keylen) */
	const char *result;     /* the call's own --result FD|FILE, NULL */
	const char *manifest;   /* -m FILE, NULL: the built-in default */
	char **mem;             /* malloc'd: what cmd points into (free it, and key) */
};

struct serve_cfg {
	const char *socket;
	bool keep_probes;       /* hold the shared probe set (root, probes layer wanted) */
	bool quiet;             /* no per-call line on stderr */
	/* In the forked child: argv/environ/cwd/stdio are the client's. Runs the call, writes the
	 * result record to record_fd (as `--result N` would), returns sbxsup run's exit status. */
	int (*run)(int argc, char **argv, int record_fd, void *arg);
	/* Pre-created sandboxes (docs/serve.md "What is warm"); both NULL: every call is cold.
	 * inspect: 0 with *out filled (free out->key), -1 out of memory. warm: as run, with the command
	 * known only by name until w->wait() hands over the call (run/run.h struct run_warm). */
	int (*inspect)(int argc, char **argv, void *arg, struct serve_call_info *out);
	int (*warm)(int argc, char **argv, int record_fd, const struct run_warm *w, void *arg);
	void *arg;
	int warm_max;           /* children that pre-create (one parked sandbox each): 1..SERVE_WARM_LIMIT;
				 * 0: SERVE_WARM_MAX */
};

int serve_main(const struct serve_cfg *cfg);

#endif
