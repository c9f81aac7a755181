/* serve_cfg.h — what `sbxsup serve` is given and what it tells its caller of a call: the
 * configuration (serve.h serve_main), the limits, and a call's arguments as cfg->inspect reads
 * them. Its own header so the server's parts (serve_call.h, serve_child.h, serve_warm.h) need not
 * include the server's (serve.h), which includes theirs.
 *
 * Promise: types and constants only. Ownership: as serve.h says.
 */
#ifndef SBX_SERVE_CFG_H
#define SBX_SERVE_CFG_H

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

#endif
