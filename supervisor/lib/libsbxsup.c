/* libsbxsup.c — see sbxsup.h (public) and sbxsup_int.h (the command line's extra hooks).
 *
 * A thin wrapper: options become a struct run_opts and one run_execute() (run/run.h) does the run;
 * manifests are checked the way `sbxsup validate` checks them (manifest.h + policy_build.h). What
 * run_execute changes in the process (signal mask, SIGPIPE, subreaper, the message descriptor) is
 * saved before and restored after. The one process-wide state here is `busy`: one run at a time.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "layer_set.h"
#include "manifest.h"
#include "msg.h"
#include "policy_build.h"
#include "run.h"
#include "sbxsup.h"
#include "sbxsup_int.h"

#ifndef SBXSUP_BINDIR
#define SBXSUP_BINDIR "/usr/local/bin"
#endif

struct sbx_manifest {
	char *path;                /* NULL: the built-in default */
	struct manifest *m;
	struct mf_errors e;        /* the warnings */
};

/* The options are the run's own struct (run/run.h), filled through the setters below: the command
 * line (cli/run_args.c) and a C caller fill the same fields the run reads. The strings ro points to
 * are the handle's copies (manifest, workspace, audit, tag, result, helper), freed with it;
 * result_extra is not owned (sbxsup_int.h). Per call, sbx_plan/sbx_run copy ro and add the
 * command, the resolved helper and where the plan and the record go. */
struct sbx_opts {
	struct run_opts ro;
	bool stdio_set;
	int stdio[3];
	int msg_fd;
};

struct sbx_result {
	char *json;
	cJSON *rec;
	int exit;
};

static atomic_bool busy;

/* ---- errors ------------------------------------------------------------------------------------ */

static int fail(struct sbx_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct sbx_err *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		err->code = code;
		vsnprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
	}
	return code;
}

static void ok(struct sbx_err *err)
{
	if (err) {
		err->code = SBX_OK;
		err->message[0] = 0;
	}
}

int sbx_api_version(void)
{
	return SBXSUP_API_VERSION;
}

const char *sbx_version(void)
{
	return SBXSUP_VERSION;
}

const char *sbx_strerror(int code)
{
	switch (code) {
	case SBX_OK: return "success";
	case SBX_E_INVAL: return "invalid argument";
	case SBX_E_NOMEM: return "out of memory";
	case SBX_E_MANIFEST: return "bad manifest";
	case SBX_E_LAYERS: return "bad layer list";
	case SBX_E_BUSY: return "another run is in progress in this process";
	case SBX_E_HELPER: return "the sbxsup helper binary is not usable";
	case SBX_E_REFUSED: return "a run would be refused";
	case SBX_E_SYSTEM: return "system error";
	default: return "unknown error";
	}
}

void sbx_free(void *p)
{
	free(p);
}

/* ---- manifests --------------------------------------------------------------------------------- */

/* Appends line to err->message ("\n"-separated), as much as fits. */
static void err_line(struct sbx_err *err, const char *src, const char *line)
{
	if (!err)
		return;
	size_t n = strlen(err->message);
	if (n + 1 >= sizeof err->message)
		return;
	snprintf(err->message + n, sizeof err->message - n, "%s%s: %s", n ? "\n" : "", src, line);
}

int sbx_manifest_load(const char *path, const char *workspace, struct sbx_manifest **out, struct sbx_err *err)
{
	if (!out)
		return fail(err, SBX_E_INVAL, "sbx_manifest_load: out is NULL");
	*out = NULL;
	ok(err);
	const char *src = path ? path : "(built-in default)";
	struct mf_ctx ctx;
	char msg[512] = "";
	if (mf_ctx_init(&ctx, workspace, msg, sizeof msg) < 0)
		return fail(err, SBX_E_INVAL, "%s", msg[0] ? msg : "cannot determine the workspace / home directory");
	struct sbx_manifest *h = calloc(1, sizeof *h);
	if (!h || (path && !(h->path = strdup(path)))) {
		free(h);
		return fail(err, SBX_E_NOMEM, "out of memory");
	}
	int rc = path ? manifest_load(path, &ctx, &h->m, &h->e) : manifest_load_default(&ctx, &h->m, &h->e);
	if (rc < 0 || !h->m) {
		if (err) {
			err->code = SBX_E_MANIFEST;
			for (size_t i = 0; i < h->e.n; i++)
				err_line(err, src, h->e.msg[i]);
			if (h->e.ndropped) {
				snprintf(msg, sizeof msg, "... and %zu more problem(s) not listed", h->e.ndropped);
				err_line(err, src, msg);
			}
			if (!err->message[0])
				err_line(err, src, "cannot load the manifest");
		}
		sbx_manifest_free(h);
		return SBX_E_MANIFEST;
	}
	/* compiled and verified as `sbxsup validate` does: what loads here, `run` accepts */
	if (pol_check(h->m, ctx.uid, msg, sizeof msg) < 0)
		rc = fail(err, SBX_E_MANIFEST, "%s: %s", src, msg);
	if (rc < 0) {
		sbx_manifest_free(h);
		return rc;
	}
	*out = h;
	return 0;
}

const char *sbx_manifest_name(const struct sbx_manifest *m)
{
	return m && m->m ? m->m->name : NULL;
}

unsigned sbx_manifest_warning_count(const struct sbx_manifest *m)
{
	return m ? (unsigned)m->e.nwarn : 0;
}

const char *sbx_manifest_warning(const struct sbx_manifest *m, unsigned i)
{
	return m && i < m->e.nwarn ? m->e.warn[i] : NULL;
}

void sbx_manifest_free(struct sbx_manifest *m)
{
	if (!m)
		return;
	if (m->m)
		manifest_free(m->m);
	mf_errors_free(&m->e);
	free(m->path);
	free(m);
}

/* ---- options ----------------------------------------------------------------------------------- */

struct sbx_opts *sbx_opts_new(void)
{
	struct sbx_opts *o = calloc(1, sizeof *o);
	if (!o)
		return NULL;
	char e[128];
	(void)sbx_layer_list_parse("auto", &o->ro.want, e, sizeof e);
	o->ro.audit_budget_mb = -1;
	o->stdio[0] = 0, o->stdio[1] = 1, o->stdio[2] = 2;
	o->msg_fd = -1;
	return o;
}

void sbx_opts_free(struct sbx_opts *o)
{
	if (!o)
		return;
	free((char *)o->ro.manifest);
	free((char *)o->ro.workspace);
	free((char *)o->ro.audit);
	free((char *)o->ro.tag);
	free((char *)o->ro.result);
	free((char *)o->ro.helper);
	free(o);
}

/* *slot = a copy of s (NULL: the default); the handle owns it. */
static int set_str(struct sbx_opts *o, const char **slot, const char *s)
{
	if (!o)
		return SBX_E_INVAL;
	char *c = NULL;
	if (s && !(c = strdup(s)))
		return SBX_E_NOMEM;
	free((char *)*slot);
	*slot = c;
	return 0;
}

struct run_opts *sbx_opts_run(struct sbx_opts *o)
{
	return o ? &o->ro : NULL;
}

int sbx_opts_set_manifest(struct sbx_opts *o, const char *path)
{
	return o ? set_str(o, &o->ro.manifest, path) : SBX_E_INVAL;
}

int sbx_opts_use_manifest(struct sbx_opts *o, const struct sbx_manifest *m)
{
	return o && m ? set_str(o, &o->ro.manifest, m->path) : SBX_E_INVAL;
}

int sbx_opts_set_workspace(struct sbx_opts *o, const char *dir)
{
	return o ? set_str(o, &o->ro.workspace, dir) : SBX_E_INVAL;
}

int sbx_opts_set_audit(struct sbx_opts *o, const char *dest)
{
	return o ? set_str(o, &o->ro.audit, dest) : SBX_E_INVAL;
}

int sbx_opts_set_tag(struct sbx_opts *o, const char *tag)
{
	return o ? set_str(o, &o->ro.tag, tag) : SBX_E_INVAL;
}

int sbx_opts_set_result_dest(struct sbx_opts *o, const char *dest)
{
	return o ? set_str(o, &o->ro.result, dest) : SBX_E_INVAL;
}

int sbx_opts_set_helper(struct sbx_opts *o, const char *path)
{
	return o ? set_str(o, &o->ro.helper, path) : SBX_E_INVAL;
}

static int set_layers(struct sbx_opts *o, const char *list, bool require, struct sbx_err *err)
{
	if (!o)
		return fail(err, SBX_E_INVAL, "options handle is NULL");
	const char *l = list ? list : require ? "none" : "auto";
	unsigned m = 0;
	char e[256] = "";
	if (!*l || sbx_layer_list_parse(l, &m, e, sizeof e) < 0 ||
	    (!require && (m & ~SBX_L_ALL) && snprintf(e, sizeof e, "'identity' is not a layer (a require name)")))
		return fail(err, SBX_E_LAYERS, "%s: %s", require ? "require" : "layers", e[0] ? e : "empty layer list");
	if (require && !strcmp(l, "auto"))
		m = 0; /* "auto" means "whatever is available": nothing is required (as --require auto) */
	*(require ? &o->ro.require : &o->ro.want) = m;
	ok(err);
	return 0;
}

int sbx_opts_set_layers(struct sbx_opts *o, const char *list, struct sbx_err *err)
{
	return set_layers(o, list, false, err);
}

int sbx_opts_set_require(struct sbx_opts *o, const char *list, struct sbx_err *err)
{
	return set_layers(o, list, true, err);
}

int sbx_opts_set_timeout_ms(struct sbx_opts *o, long ms)
{
	if (!o || ms < 0)
		return SBX_E_INVAL;
	o->ro.timeout_ms = ms;
	return 0;
}

int sbx_opts_set_audit_budget_mb(struct sbx_opts *o, long mb)
{
	if (!o || mb < -1)
		return SBX_E_INVAL;
	o->ro.audit_budget_mb = mb;
	return 0;
}

int sbx_opts_set_disabled(struct sbx_opts *o, int disabled)
{
	if (!o)
		return SBX_E_INVAL;
	o->ro.disabled = disabled != 0;
	return 0;
}

int sbx_opts_set_shadow(struct sbx_opts *o, int shadow)
{
	if (!o)
		return SBX_E_INVAL;
	o->ro.shadow = shadow != 0;
	return 0;
}

int sbx_opts_set_sensor(struct sbx_opts *o, int on)
{
	if (!o)
		return SBX_E_INVAL;
	o->ro.sensor_off = on == 0;
	return 0;
}

int sbx_opts_set_stdio(struct sbx_opts *o, int in_fd, int out_fd, int err_fd)
{
	if (!o || in_fd < 0 || out_fd < 0 || err_fd < 0)
		return SBX_E_INVAL;
	o->stdio[0] = in_fd, o->stdio[1] = out_fd, o->stdio[2] = err_fd;
	o->stdio_set = true;
	return 0;
}

int sbx_opts_set_message_fd(struct sbx_opts *o, int fd)
{
	if (!o)
		return SBX_E_INVAL;
	o->msg_fd = fd < 0 ? -1 : fd;
	return 0;
}

int sbx_opts_set_layer_masks(struct sbx_opts *o, unsigned want, unsigned require)
{
	if (!o)
		return SBX_E_INVAL;
	o->ro.want = want, o->ro.require = require;
	return 0;
}

int sbx_opts_set_temp_workspace(struct sbx_opts *o, const char *dir)
{
	if (!o || !dir || strlen(dir) >= sizeof o->ro.ws_tmp)
		return SBX_E_INVAL;
	int rc = set_str(o, &o->ro.workspace, dir);
	if (rc == 0)
		snprintf(o->ro.ws_tmp, sizeof o->ro.ws_tmp, "%s", dir);
	return rc;
}

int sbx_opts_set_warm(struct sbx_opts *o, const struct run_warm *w)
{
	if (!o)
		return SBX_E_INVAL;
	o->ro.warm = w;
	return 0;
}

int sbx_opts_set_result_extra(struct sbx_opts *o, const char *dest, int fd)
{
	if (!o)
		return SBX_E_INVAL;
	o->ro.result_extra = dest;
	o->ro.result_extra_fd = fd;
	return 0;
}

/* ---- a run ------------------------------------------------------------------------------------- */

/* What run_execute changes in the process, to put back. */
struct saved {
	sigset_t mask;
	struct sigaction pipe;
	int subreaper;
	int msg_fd;
};

static void save_process(struct saved *s, int msg_fd)
{
	pthread_sigmask(SIG_SETMASK, NULL, &s->mask);
	sigaction(SIGPIPE, NULL, &s->pipe);
	if (prctl(PR_GET_CHILD_SUBREAPER, &s->subreaper, 0, 0, 0) < 0)
		s->subreaper = 0;
	s->msg_fd = sbx_msg_set_fd(msg_fd);
}

static void restore_process(const struct saved *s)
{
	(void)sbx_msg_set_fd(s->msg_fd);
	(void)prctl(PR_SET_CHILD_SUBREAPER, (unsigned long)s->subreaper, 0, 0, 0);
	sigaction(SIGPIPE, &s->pipe, NULL);
	pthread_sigmask(SIG_SETMASK, &s->mask, NULL);
}

/* PREFIX/bin/sbxsup next to the PREFIX/lib (or PREFIX/lib/<multiarch>) this code was loaded from
 * (libsbxsup.so.0, or the sbxsup binary itself when linked statically): an installed tree works
 * whatever PREFIX it was built with. */
static int beside_us(char *out, size_t outlen)
{
	if (!out || !outlen)
		return -1;
	Dl_info info;
	char self[PATH_MAX];
	if (!dladdr((void *)beside_us, &info) || !info.dli_fname || !realpath(info.dli_fname, self))
		return -1;
	char *slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = 0;
	snprintf(out, outlen, "%s/../bin/sbxsup", self);
	if (access(out, X_OK) == 0)
		return 0;
	snprintf(out, outlen, "%s/../../bin/sbxsup", self); /* PREFIX/lib/<multiarch>/libsbxsup.so.0 */
	return access(out, X_OK);
}

/* The helper binary: the option, $SBXSUP_BIN, ../bin/sbxsup relative to the library, SBXSUP_BINDIR. */
static int resolve_helper(const struct sbx_opts *o, char *out, size_t outlen, struct sbx_err *err)
{
	const char *env = getenv("SBXSUP_BIN");
	char rel[PATH_MAX + 16];
	const char *h = o->ro.helper ? o->ro.helper : env && *env ? env
		      : beside_us(rel, sizeof rel) == 0 ? rel : SBXSUP_BINDIR "/sbxsup";
	char real[PATH_MAX];
	if (!realpath(h, real) || access(real, X_OK) < 0)
		return fail(err, SBX_E_HELPER, "the sbxsup binary %s (%s): %s; install sbxsup, or name it with "
			    "sbx_opts_set_helper() or SBXSUP_BIN", h,
			    o->ro.helper ? "sbx_opts_set_helper" : env && *env ? "SBXSUP_BIN" : "built-in path",
			    strerror(errno));
	snprintf(out, outlen, "%s", real);
	return 0;
}

/* This call's copy of the options: the command, the resolved helper; the command line's own
 * fields (dry_run: sbx_plan sets it; server) and where output goes are the call's. */
static void to_run_opts(const struct sbx_opts *o, char *const argv[], const char *helper, struct run_opts *ro)
{
	*ro = o->ro;
	ro->cmd = (char **)argv; /* never written through */
	ro->helper = helper;
	ro->dry_run = false;
	ro->server = NULL;
	ro->stdio = NULL;
	ro->plan_out = NULL;
	ro->result_out = NULL;
}

/* Common entry of sbx_plan / sbx_run: checks, the busy flag, the helper (into helper[hlen], which
 * *ro points to), the run options. On success the caller holds the busy flag. */
static int enter(const struct sbx_opts *o, char *const argv[], const void *out, char *helper, size_t hlen,
		 struct run_opts *ro, struct sbx_err *err)
{
	if (!o || !argv || !argv[0] || !argv[0][0] || !out)
		return fail(err, SBX_E_INVAL, "%s", !o ? "options handle is NULL" : !out ? "output pointer is NULL"
						    : "no command given (argv is NULL or empty)");
	if (atomic_exchange(&busy, true))
		return fail(err, SBX_E_BUSY, "another sbx_plan/sbx_run is in progress in this process");
	int rc = resolve_helper(o, helper, hlen, err);
	if (rc < 0)
		atomic_store(&busy, false);
	else
		to_run_opts(o, argv, helper, ro);
	return rc;
}

/* The plan or run itself: run_execute(ro) with the process state it changes (signal mask, SIGPIPE,
 * subreaper, message fd) saved around it; its result record into *rec (NULL when none was built).
 * Returns run_execute's exit code. */
static int execute(const struct sbx_opts *o, struct run_opts *ro, cJSON **rec)
{
	*rec = NULL;
	ro->result_out = rec;
	struct saved sv;
	save_process(&sv, o->msg_fd);
	int code = run_execute(ro, 0);
	restore_process(&sv);
	return code;
}

/* The record's reason, for a call that fails without a result. */
static int reason_error(const cJSON *rec, int code_if_unknown, struct sbx_err *err)
{
	const cJSON *reason = cJSON_GetObjectItemCaseSensitive(rec, "reason");
	const char *code = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(reason, "code"));
	const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(reason, "message"));
	int c = code && !strcmp(code, "bad_manifest") ? SBX_E_MANIFEST
		: code && (!strcmp(code, "layer_required") || !strcmp(code, "identity_unavailable") ||
			   !strcmp(code, "gateway_unavailable")) ? SBX_E_REFUSED
											  : code_if_unknown;
	fail(err, c, "%s%s%s", code ? code : "failed", msg ? ": " : "", msg ? msg : "");
	return c;
}

int sbx_plan(const struct sbx_opts *o, char *const argv[], char **plan, struct sbx_err *err)
{
	char helper[PATH_MAX];
	if (plan)
		*plan = NULL;
	struct run_opts ro;
	int rc = enter(o, argv, plan, helper, sizeof helper, &ro, err);
	if (rc < 0)
		return rc;
	ro.dry_run = true;
	ro.result = NULL; /* a plan writes no record */
	ro.plan_out = plan;
	cJSON *rec;
	int code = execute(o, &ro, &rec);
	atomic_store(&busy, false);
	if (!*plan)
		rc = reason_error(rec, SBX_E_SYSTEM, err);
	else if (code != 0)
		rc = fail(err, SBX_E_REFUSED, "a required layer is not active: a run would be refused");
	else
		ok(err);
	cJSON_Delete(rec);
	return rc;
}

/* Takes rec: the record stays a struct; its one line (as --result prints it) is made here. */
static int make_result(cJSON *rec, int code, struct sbx_result **res, struct sbx_err *err)
{
	struct sbx_result *r = calloc(1, sizeof *r);
	if (!r || !(r->json = cJSON_PrintUnformatted(rec))) {
		free(r);
		cJSON_Delete(rec);
		return fail(err, SBX_E_NOMEM, "out of memory printing the result record");
	}
	r->rec = rec;
	r->exit = code;
	*res = r;
	ok(err);
	return 0;
}

int sbx_run(const struct sbx_opts *o, char *const argv[], struct sbx_result **res, struct sbx_err *err)
{
	char helper[PATH_MAX];
	if (res)
		*res = NULL;
	struct run_opts ro;
	int rc = enter(o, argv, res, helper, sizeof helper, &ro, err);
	if (rc < 0)
		return rc;
	/* the executor's stdio: copies above 2, so the child's dup2 onto 0-2 never clobbers one of them */
	int fds[3] = {-1, -1, -1};
	for (int i = 0; o->stdio_set && i < 3; i++)
		if ((fds[i] = fcntl(o->stdio[i], F_DUPFD_CLOEXEC, 3)) < 0) {
			rc = fail(err, SBX_E_SYSTEM, "stdio descriptor %d: %s", o->stdio[i], strerror(errno));
			goto out;
		}
	if (o->stdio_set)
		ro.stdio = fds;
	cJSON *rec;
	int code = execute(o, &ro, &rec);
	rc = rec ? make_result(rec, code, res, err)
		 : fail(err, SBX_E_NOMEM, "out of memory building the result record");
out:
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	atomic_store(&busy, false);
	return rc;
}

int sbx_refuse_arguments(const struct sbx_opts *o)
{
	if (!o)
		return SBX_EXIT_INTERNAL;
	struct run_opts ro;
	char *const none[] = {NULL};
	to_run_opts(o, none, NULL, &ro);
	return run_execute(&ro, -1);
}

/* ---- results ----------------------------------------------------------------------------------- */

static const char *rec_str(const struct sbx_result *r, const char *key)
{
	return r ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r->rec, key)) : NULL;
}

const char *sbx_result_json(const struct sbx_result *r)
{
	return r ? r->json : NULL;
}

int sbx_result_exit(const struct sbx_result *r)
{
	return r ? r->exit : -1;
}

int sbx_result_signal(const struct sbx_result *r)
{
	const cJSON *s = r ? cJSON_GetObjectItemCaseSensitive(r->rec, "signal") : NULL;
	return cJSON_IsNumber(s) ? s->valueint : 0;
}

int sbx_result_timed_out(const struct sbx_result *r)
{
	return r && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r->rec, "timeout"));
}

const char *sbx_result_verdict(const struct sbx_result *r)
{
	return rec_str(r, "verdict");
}

const char *sbx_result_status(const struct sbx_result *r)
{
	return rec_str(r, "status");
}

const char *sbx_result_run_id(const struct sbx_result *r)
{
	return rec_str(r, "run");
}

static const char *reason_str(const struct sbx_result *r, const char *key)
{
	const cJSON *re = r ? cJSON_GetObjectItemCaseSensitive(r->rec, "reason") : NULL;
	return cJSON_IsObject(re) ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(re, key)) : NULL;
}

const char *sbx_result_reason_code(const struct sbx_result *r)
{
	return reason_str(r, "code");
}

const char *sbx_result_reason_message(const struct sbx_result *r)
{
	return reason_str(r, "message");
}

void sbx_result_free(struct sbx_result *r)
{
	if (!r)
		return;
	cJSON_Delete(r->rec);
	free(r->json);
	free(r);
}
