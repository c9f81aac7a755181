/* run_int.h — internal to `sbxsup run` (run.c, run_attempt.c, run_events.c): the state of one run.
 *
 * run.c prepares (manifest, policy, audit, layers, cgroups, kernel layers) and decides; run_attempt.c
 * starts the command once (bwrap or direct), runs the event loop and ends the process tree;
 * run_events.c writes what the run records (run.start, env.drop, limit.hit, run.end) and says
 * (refusals, the degradation warning).
 */
#ifndef SBX_RUN_INT_H
#define SBX_RUN_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "audit.h"
#include "audit_dest.h"
#include "cgroup.h"
#include "detect.h"
#include "janitor.h"
#include "layers.h"
#include "manifest.h"
#include "netfilter_layer.h"
#include "policy.h"
#include "seccomp_layer.h"
#include "probes_layer.h"
#include "report_rx.h"
#include "rlimits.h"
#include "run_args.h"
#include "strv.h"

enum attempt_result { ATT_DONE = 0, ATT_SETUP_FAILED = 1, ATT_FAIL = 2 };

struct run {
	struct run_opts o;
	struct manifest *m;
	void *blob;
	size_t bloblen;
	const struct policy *pol;
	int pol_fd;
	struct audit a;
	bool audit_ok;
	struct sbx_layers L;
	struct detect d;
	struct run_limits lim;
	bool nproc_rlimit;
	bool data_rlimit;          /* RLIMIT_DATA: no memory cgroup enforces memory_mb */
	struct cg_run cg;
	struct janitor jan;        /* removes cgroups + tmp dir if we are killed */
	struct sbx_netfilter *nf;
	struct sbx_probes *pr;
	struct strv env, dropped;
	struct timespec t0;
	int sfd, tfd;
	char tmpdir[80];           /* private tmp of the non-bwrap modes, "" when none */
	char repdir[80];           /* private dir (0700) holding the report socket, "" when none */
	char repsock[108];         /* repdir + "/report": SBXSUP_REPORT_ADDR on the host, "" when none */
	int repsrv;                /* the socket bound there (all attempts), -1 when none */
	sigset_t oldmask;
	bool started;              /* run.start written */
	bool timed_out;
	bool audit_failed;
	bool refused;              /* a required layer failed in the stage */
	int fwd_signal;            /* a signal we forwarded before the stage was ready */
	/* per attempt */
	pid_t child, stage_pid;
	bool ready, child_done, pidns;
	int child_status, stage_status;
	bool have_stage_status;
	int ctl, rep, status_rd, err_rd, listener, alive_w, stderr_copy;
	struct sbx_seccomp_state sc_state; /* the exec gate of listener's filter */
	char bwrap_err[512];
	size_t bwrap_err_len;
	struct report_rx rx;
};

/* run_events.c */
int run_emit_start(struct run *r);                 /* run.start, then one env.drop per dropped name */
int run_emit_end(struct run *r, int code, int sig);
int run_limit_events(struct run *r, int sig);      /* limit.hit for what ended or refused something */
bool run_require_missing(const struct run *r);     /* prints one line per missing required layer */
void run_warn_degraded(const struct run *r);       /* the one stderr warning when bwrap is not used */

/* run_attempt.c */
enum attempt_result run_attempt(struct run *r, bool bwrap_mode);
void run_exit_status(struct run *r, bool bwrap_mode, int *code, int *sig);

#endif
