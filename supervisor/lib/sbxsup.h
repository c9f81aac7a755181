/* sbxsup.h — libsbxsup: run a command under the sbxsup sandbox supervisor from C.
 *
 * What it is. The library is `sbxsup run` as calls: check a manifest, build the plan a run would
 * follow (the `--dry-run` view), run a command with your descriptors as its stdin/stdout/stderr and
 * a timeout, and read the result record (the JSON object `sbxsup run --result` writes,
 * docs/result-record.md). The sbxsup command line goes through these same calls for `sbxsup run`;
 * the sbxsup binary links the same objects statically, the library is libsbxsup.so.0.
 *
 * Versioning. SBXSUP_API_VERSION is the version of this header; sbx_api_version() the version of
 * the library loaded. A program built against version N runs with a library whose version is >= N
 * and whose soname is the same (libsbxsup.so.0): calls are only added, never changed. Every type
 * is opaque (no struct layout is part of the ABI) except struct sbx_err, whose layout is fixed.
 *
 * Errors. A call that can fail returns 0 or a negative SBX_E_* code and, when `err` is not NULL,
 * fills it with the same code and one line of English (for a bad manifest: every problem, one per
 * line, "FILE: WHERE: WHAT"). The library never writes its errors on stderr. A run that sbxsup
 * refused (a required layer missing, an audit destination it cannot use, ...) is not a call
 * error: the call succeeds and the result says so (status "refused", exit 125, a reason code).
 *
 * Ownership. Every handle is the caller's from the call that makes it until the matching *_free()
 * (NULL is accepted and ignored). Strings the library returns from an accessor belong to the
 * handle and live as long as it does; strings returned through a `char **` are the caller's and are
 * released with sbx_free(). Strings and descriptors the caller passes in are copied (strings) or
 * duplicated (descriptors, at sbx_run time); the caller keeps its own.
 *
 * The helper binary. A sandboxed run execs an sbxsup binary inside bwrap as its first stage (and
 * finds libsbxpreload.so beside it or in ../lib/sbxsup). The library uses, in this order: the path
 * given to sbx_opts_set_helper(), $SBXSUP_BIN, ../bin/sbxsup (then ../../bin/sbxsup, for a
 * multiarch directory) relative to the directory the library was loaded from
 * (PREFIX/lib/libsbxsup.so.0 -> PREFIX/bin/sbxsup, whatever PREFIX the build had),
 * then PREFIX/bin/sbxsup of the build. Library and helper must come from the same build (make
 * install installs both).
 *
 * Threads, fork and signals. Building options, loading manifests and reading results are
 * thread-safe for different handles (share a handle between threads only under a lock of yours).
 * sbx_plan() and sbx_run() are not re-entrant per process: one runs at a time (a second concurrent
 * call fails with SBX_E_BUSY), because a run acts on the whole process while it lasts:
 *   - it forks and waits for its children with waitpid(-1): the calling process must have no other
 *     children (they would be reaped, and at the end of the run every child of the process is
 *     killed with SIGKILL, so nothing the executor started survives it);
 *   - it becomes a child subreaper (PR_SET_CHILD_SUBREAPER), blocks SIGCHLD, SIGINT, SIGTERM and
 *     SIGHUP in the calling thread (a signalfd takes them; SIGINT/SIGTERM/SIGHUP are passed on to
 *     the executor) and ignores SIGPIPE; sbx_run() and sbx_plan() restore the subreaper flag, the
 *     thread's signal mask and SIGPIPE's disposition before they return. Other threads should
 *     block these four signals (else the kernel may deliver them there, not to the run);
 *   - the executor's environment is built from the process's `environ` (the manifest's allowlist);
 *     the library does not change the environment. Of the environment it reads HOME, PATH,
 *     XDG_STATE_HOME and the host-tuning variables a run reads under the command line too
 *     (SBXSUP_PRELOAD_LIB, SBXSUP_USER, SBXSUP_UID, SBXSUP_USERNS, SBXSUP_PROBES_*,
 *     SBXSUP_DEBUG_BPF; README "Environment variables"), plus SBXSUP_BIN (the helper).
 *     SBXSUP_SANDBOX, SBXSUP_REQUIRE and SBXSUP_AUDIT are the command line's: a program sets the
 *     options.
 * A program that cannot give these guarantees (many threads, children of its own) should fork a
 * process for the run, or run the sbxsup command line with --result. After fork(), each process
 * has its own copy of every handle (free it in both); a child forked while a run is in progress in
 * another thread cannot start one (SBX_E_BUSY).
 *
 * Messages. What sbxsup says during a run (warnings such as "sbxsup: warning: landlock off: ...",
 * refusals, bwrap's own warnings) goes to the message descriptor (sbx_opts_set_message_fd(),
 * default 2), which the executor never inherits. Said inside the sandbox, and so on the executor's
 * stderr as with the command line: the exec stage's "COMMAND: not found". The first refusal or
 * failure is also in the result record (reason.code, reason.message).
 */
#ifndef SBXSUP_H
#define SBXSUP_H

#ifdef __cplusplus
extern "C" {
#endif

#define SBXSUP_API_VERSION 1

#if defined(__GNUC__)
#define SBX_API __attribute__((visibility("default")))
#else
#define SBX_API
#endif

/* Error codes (negative return values; sbx_err.code). */
enum sbx_errcode {
	SBX_OK = 0,
	SBX_E_INVAL = -1,    /* a NULL handle or argument, an empty command, a bad value */
	SBX_E_NOMEM = -2,
	SBX_E_MANIFEST = -3, /* the manifest does not load, validate or compile */
	SBX_E_LAYERS = -4,   /* a layer list names no layer (sbx_opts_set_layers / _require) */
	SBX_E_BUSY = -5,     /* another sbx_plan/sbx_run is in progress in this process */
	SBX_E_HELPER = -6,   /* the helper sbxsup binary is not found or not executable */
	SBX_E_REFUSED = -7,  /* sbx_plan: the plan was built but a required layer is not active (or no
	                      * unprivileged identity for the executor: reason identity_unavailable) */
	SBX_E_SYSTEM = -8,   /* a system call failed (message says which) */
};

/* Filled by a failing call when not NULL. Fixed layout. */
struct sbx_err {
	int code;            /* enum sbx_errcode */
	char message[1024];  /* one or more lines, NUL-terminated, no trailing newline */
};

/* The version of the loaded library (SBXSUP_API_VERSION it was built with), and sbxsup's release
 * ("0.1.0"; a static string). */
SBX_API int sbx_api_version(void);
SBX_API const char *sbx_version(void);
/* A static English name for a code ("bad manifest"); never NULL. */
SBX_API const char *sbx_strerror(int code);
/* Releases a string the library returned through a `char **`. NULL is ignored. */
SBX_API void sbx_free(void *p);

/* ---- manifests ------------------------------------------------------------------------------- */

struct sbx_manifest;

/* Loads, validates and compiles the manifest at `path` (NULL: the built-in default manifest), with
 * relative hints taken from `workspace` (NULL: the current directory) — the check of
 * `sbxsup validate`. Returns 0 with *out set, or SBX_E_MANIFEST (err lists every problem),
 * SBX_E_INVAL, SBX_E_NOMEM with *out NULL. Reads only the file; runs nothing. */
SBX_API int sbx_manifest_load(const char *path, const char *workspace, struct sbx_manifest **out,
			      struct sbx_err *err);
/* The manifest's "name" (executor name); owned by m. */
SBX_API const char *sbx_manifest_name(const struct sbx_manifest *m);
/* Non-fatal findings ("capabilities[3]: network:http without hosts grants any host"): how many, and
 * the i-th (owned by m; NULL when i is out of range). */
SBX_API unsigned sbx_manifest_warning_count(const struct sbx_manifest *m);
SBX_API const char *sbx_manifest_warning(const struct sbx_manifest *m, unsigned i);
SBX_API void sbx_manifest_free(struct sbx_manifest *m);

/* ---- options of a run -------------------------------------------------------------------------- */

struct sbx_opts;

/* Options with the command line's defaults: the built-in manifest, the current directory as the
 * workspace, no audit stream, layers "auto", nothing required, the manifest's timeout, stdio 0/1/2,
 * messages on 2. NULL when out of memory. */
SBX_API struct sbx_opts *sbx_opts_new(void);
SBX_API void sbx_opts_free(struct sbx_opts *o);

/* Each setter copies what it is given and returns 0 or SBX_E_INVAL / SBX_E_NOMEM / SBX_E_LAYERS.
 * NULL for a string means "back to the default". They mirror `sbxsup run`'s options: */
SBX_API int sbx_opts_set_manifest(struct sbx_opts *o, const char *path);              /* -m */
/* the manifest's file (sbx_manifest_load's path); the run loads and checks it again */
SBX_API int sbx_opts_use_manifest(struct sbx_opts *o, const struct sbx_manifest *m);
SBX_API int sbx_opts_set_workspace(struct sbx_opts *o, const char *dir);             /* -w */
/* --audit: a file (created 0600, appended), "fd:N", "-" is refused (stdout is the executor's) */
SBX_API int sbx_opts_set_audit(struct sbx_opts *o, const char *dest);
/* --layers / --require: "auto", "all", "none", or a comma list of layer names, "-name" removes */
SBX_API int sbx_opts_set_layers(struct sbx_opts *o, const char *list, struct sbx_err *err);
SBX_API int sbx_opts_set_require(struct sbx_opts *o, const char *list, struct sbx_err *err);
SBX_API int sbx_opts_set_timeout_ms(struct sbx_opts *o, long ms);  /* 0: the manifest's / default */
SBX_API int sbx_opts_set_audit_budget_mb(struct sbx_opts *o, long mb); /* -1: the manifest's */
SBX_API int sbx_opts_set_tag(struct sbx_opts *o, const char *tag);   /* --tag (run.start, result) */
/* also write the result record where `sbxsup run --result FD|FILE` would (the handle has it anyway):
 * a FILE by the audit file's rules, and inside anything the executor can write the run is refused
 * (reason result_destination; docs/result-record.md) */
SBX_API int sbx_opts_set_result_dest(struct sbx_opts *o, const char *dest);
/* disabled != 0: no layer at all (SBXSUP_SANDBOX=0): recorded, refused when a layer is required */
SBX_API int sbx_opts_set_disabled(struct sbx_opts *o, int disabled);
/* shadow != 0: --shadow, the executor's writes land in a per-run store (docs/shadow.md); the
 * result record's "shadow" names the change set for `sbxsup shadow diff|commit|discard` */
SBX_API int sbx_opts_set_shadow(struct sbx_opts *o, int shadow);
/* on == 0: --sensor off — no report-only sensor when neither seccomp nor the probes are on (what the
 * silent layers refuse is then not reported; warned about, run.start.level.sensor says so). Default
 * on. */
SBX_API int sbx_opts_set_sensor(struct sbx_opts *o, int on);
/* The executor's stdin, stdout and stderr: open descriptors of the caller (any numbers, 0-2
 * included); sbx_run duplicates them, the caller keeps and closes its own. Default 0, 1, 2. */
SBX_API int sbx_opts_set_stdio(struct sbx_opts *o, int in_fd, int out_fd, int err_fd);
/* Where sbxsup's own messages go during the run (default 2; -1: back to 2). Not duplicated: it
 * must stay open until sbx_run returns. */
SBX_API int sbx_opts_set_message_fd(struct sbx_opts *o, int fd);
/* The sbxsup binary the sandbox execs (see "The helper binary"). NULL: $SBXSUP_BIN, ../bin/sbxsup
 * beside the library, the build's PREFIX/bin/sbxsup. Checked at sbx_run / sbx_plan time. */
SBX_API int sbx_opts_set_helper(struct sbx_opts *o, const char *path);

/* ---- plan, run, result ------------------------------------------------------------------------- */

/* The plan `sbxsup run --dry-run` prints, as JSON (*plan: the caller's, sbx_free), for running argv
 * (NULL-terminated, argv[0] the command) with o. Nothing is created or started; no audit line is
 * written. Returns 0, SBX_E_REFUSED (the plan is there, but a run would be refused: a required
 * layer is not active), or an error with *plan NULL (SBX_E_MANIFEST, SBX_E_INVAL, SBX_E_BUSY,
 * SBX_E_HELPER, SBX_E_NOMEM). */
SBX_API int sbx_plan(const struct sbx_opts *o, char *const argv[], char **plan, struct sbx_err *err);

struct sbx_result;

/* Runs argv under o and waits for the end of the run (the executor and everything it started):
 * sbxsup's whole `run` (plan, audit stream, layers, the command, run.end). Returns 0 with *res set
 * whenever sbxsup got as far as deciding an outcome — including a refusal (exit 125 and a reason
 * code in the result) and a run that was killed by the timeout; or SBX_E_INVAL, SBX_E_BUSY,
 * SBX_E_HELPER, SBX_E_NOMEM, SBX_E_SYSTEM with *res NULL (nothing ran). Blocks the calling thread. */
SBX_API int sbx_run(const struct sbx_opts *o, char *const argv[], struct sbx_result **res,
		    struct sbx_err *err);

/* The result record as one line of JSON without a newline (docs/result-record.md); owned by r. */
SBX_API const char *sbx_result_json(const struct sbx_result *r);
/* sbxsup's exit status: the command's, 124 timeout, 125 sbxsup refused or failed, 126, 127, or
 * 128+N when the command was killed by signal N. -1 for a NULL r. */
SBX_API int sbx_result_exit(const struct sbx_result *r);
/* The signal that killed the command, 0 when none (also 0 for a NULL r). */
SBX_API int sbx_result_signal(const struct sbx_result *r);
SBX_API int sbx_result_timed_out(const struct sbx_result *r);  /* 1 when the timeout ended it */
/* "clean", "contained" or "breach" (docs/result-record.md); owned by r, NULL for a NULL r. */
SBX_API const char *sbx_result_verdict(const struct sbx_result *r);
/* "exited", "signaled", "timeout" or "refused"; owned by r. */
SBX_API const char *sbx_result_status(const struct sbx_result *r);
/* The run id of the audit stream (the id in every line of the run); NULL when no run was opened. */
SBX_API const char *sbx_result_run_id(const struct sbx_result *r);
/* reason.code / reason.message when sbxsup refused or failed ("bad_manifest", ...); else NULL. */
SBX_API const char *sbx_result_reason_code(const struct sbx_result *r);
SBX_API const char *sbx_result_reason_message(const struct sbx_result *r);
SBX_API void sbx_result_free(struct sbx_result *r);

#ifdef __cplusplus
}
#endif

#endif
