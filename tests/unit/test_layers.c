/* test_layers.c — the one table of layers and each of its walkers (layers/layers.c), on the real
 * entries: what a walker does with the layers that are on, off or not wanted. layers_probe_all (the
 * functional probes: a throw-away sandbox, BPF loads) is exercised by `sbxsup status`'s tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ctl.h"
#include "detect.h"
#include "layer.h"
#include "layer_set.h"
#include "manifest.h"
#include "policy.h"
#include "policy_build.h"
#include "rlimits.h"
#include "strv.h"

/* the layers' attempt view before any attempt: no descriptor, no environment */
static const struct layer_attempt no_att = {.fds = {.ctl = -1, .stderr_copy = -1, .ldso = -1, .policy = -1,
						     .userns = -1, .passwd = -1, .group = -1, .resolv = -1}};

/* The one table: every layer registered at its own index, named, probed, saying what is lost;
 * exactly one wrapper; the names parse back to their bits. */
static void t_layer_table(void **state)
{
	(void)state;
	int wrappers = 0;
	for (int l = 0; l < SBX_L__N; l++) {
		const struct layer_ops *o = sbx_layer_ops[l];
		assert_non_null(o);
		assert_int_equal(o->id, l);
		assert_true(o->name && o->name[0]);
		assert_true(o->lost && o->lost[0]);
		assert_non_null(o->probe);
		assert_true(!o->fd == !o->drain); /* a descriptor to poll is drained, and only then */
		wrappers += o->wrap != NULL;
		unsigned mask = 0;
		char err[256];
		assert_int_equal(sbx_layer_parse(o->name, &mask, err, sizeof err), 0);
		assert_int_equal(mask, 1u << l);
		assert_string_equal(sbx_layer_name(l), o->name); /* layer_set.c's names are the entries' */
	}
	assert_int_equal(wrappers, 1);
	/* "identity" is no layer: a --require name only, outside the layers' mask */
	unsigned mask = 0;
	char err[256];
	assert_int_equal(sbx_layer_list_parse("bwrap,identity", &mask, err, sizeof err), 0);
	assert_int_equal(mask, (1u << SBX_L_BWRAP) | SBX_REQ_IDENTITY);
	assert_int_equal(mask & SBX_L_ALL, 1u << SBX_L_BWRAP);
	assert_int_equal(sbx_layer_list_parse("all", &mask, err, sizeof err), 0);
	assert_int_equal(mask, SBX_L_ALL);
}

static bool flags_are(const struct sbx_layers *L, const char *const *want)
{
	struct strv f = {0};
	assert_int_equal(layers_stage_flags(L, &f), 0);
	size_t n = 0;
	while (want[n])
		n++;
	bool same = f.n == n;
	for (size_t i = 0; same && i < n; i++)
		same = !strcmp(f.v[i], want[i]);
	strv_free(&f);
	return same;
}

/* layers_detect: what is not wanted is off "not selected"; limits are always wanted.
 * layers_disable: every layer off with the reason, nothing wanted, the sensor off. */
static void t_detect_disable(void **state)
{
	(void)state;
	struct sbx_layers L;
	memset(&L, 0, sizeof L);
	struct detect d;
	memset(&d, 0, sizeof d);
	layers_detect(&L, &d);
	for (int l = 0; l < SBX_L__N; l++) {
		if (l == SBX_L_LIMITS) {
			assert_true(L.want & (1u << l));
			continue;
		}
		assert_false(sbx_layer_on(&L, l));
		assert_string_equal(L.why[l], "not selected (--layers)");
	}
	layers_disable(&L, "disabled via SBXSUP_SANDBOX");
	assert_int_equal(L.want, 0);
	assert_int_equal(L.active, 0);
	assert_true(L.sensor_off);
	for (int l = 0; l < SBX_L__N; l++)
		assert_string_equal(L.why[l], "disabled via SBXSUP_SANDBOX");
}

/* layers_admit: the preload stays on for a dynamic glibc command and is turned off, with a reason,
 * for a static one. */
static void t_admit(void **state)
{
	(void)state;
	struct sbx_layers L;
	memset(&L, 0, sizeof L);
	L.want = 1u << SBX_L_PRELOAD;
	sbx_layer_set_on(&L, SBX_L_PRELOAD, "LD_PRELOAD");
	char *sh[] = {"/bin/sh", NULL};
	struct detect d;
	memset(&d, 0, sizeof d);
	struct layer_ctx c = {.d = &d, .L = &L, .cmd = sh, .att = &no_att};
	layers_admit(&c);
	assert_true(sbx_layer_on(&L, SBX_L_PRELOAD));
	const char *progs = getenv("SBX_PROGS");
	char st[4096];
	snprintf(st, sizeof st, "%s/nb_meta_static", progs ? progs : "build/tests/progs");
	if (access(st, X_OK) == 0) {
		char *cmd[] = {st, NULL};
		c.cmd = cmd;
		layers_admit(&c);
		assert_false(sbx_layer_on(&L, SBX_L_PRELOAD));
		assert_true(L.why[SBX_L_PRELOAD][0]);
	}
}

/* layers_stage_flags in table order, then the kernel's (seccomp_layer.h); layers_wrapper is the
 * one wrap entry that is on; layers_need_cgroup asks the layers that are on. */
static void t_stage_flags_wrapper_cgroup(void **state)
{
	(void)state;
	struct sbx_layers L;
	memset(&L, 0, sizeof L);
	L.sensor_off = true;
	static const char *const none[] = {NULL};
	assert_true(flags_are(&L, none));
	assert_null(layers_wrapper(&L));
	assert_false(layers_need_cgroup(&L));
	sbx_layer_set_on(&L, SBX_L_LANDLOCK, "abi 7");
	sbx_layer_set_on(&L, SBX_L_SECCOMP, "notify");
	static const char *const ks[] = {"--seccomp", "--landlock", "--report-files", NULL};
	assert_true(flags_are(&L, ks));
	sbx_layer_set_on(&L, SBX_L_PRELOAD, "LD_PRELOAD");
	/* the preload does not replace the reporter: it does not see raw calls nor static children */
	static const char *const pks[] = {"--preload", "--seccomp", "--landlock", "--report-files", NULL};
	assert_true(flags_are(&L, pks));
	sbx_layer_set_on(&L, SBX_L_PROBES, "tp_btf");
	static const char *const pbs[] = {"--preload", "--seccomp", "--landlock", NULL};
	assert_true(flags_are(&L, pbs));
	sbx_layer_set_off(&L, SBX_L_PROBES, "x");
	/* neither seccomp nor the probes: the report-only sensor, unless turned off */
	sbx_layer_set_off(&L, SBX_L_SECCOMP, "x");
	L.sensor_off = false;
	static const char *const sensor[] = {"--preload", "--landlock", "--sensor", NULL};
	assert_true(flags_are(&L, sensor));
	sbx_layer_set_on(&L, SBX_L_BWRAP, "/usr/bin/bwrap");
	assert_ptr_equal(layers_wrapper(&L), &layer_bwrap);
	assert_false(layers_need_cgroup(&L));
	sbx_layer_set_on(&L, SBX_L_LIMITS, "rlimit");
	assert_true(layers_need_cgroup(&L));
}

/* layers_want_report: the report socket only for a layer that reports over it (the preload);
 * layers_event: each entry's audit event type; layers_sensor_plan: the sensor mode or its level. */
static void t_report_event_sensor(void **state)
{
	(void)state;
	struct sbx_layers L;
	memset(&L, 0, sizeof L);
	assert_false(layers_want_report(&L));
	for (int l = 0; l < SBX_L__N; l++)
		if (l != SBX_L_PRELOAD)
			sbx_layer_set_on(&L, (enum sbx_layer)l, "x");
	assert_false(layers_want_report(&L));
	sbx_layer_set_on(&L, SBX_L_PRELOAD, "LD_PRELOAD");
	assert_true(layers_want_report(&L));
	assert_string_equal(layers_event("preload"), "preload.deny");
	assert_string_equal(layers_event("seccomp"), "seccomp.deny");
	assert_string_equal(layers_event("netfilter"), "netfilter.deny");
	assert_string_equal(layers_event("probes"), "kernel.violation");
	assert_string_equal(layers_event("limits"), "limit.hit");
	assert_null(layers_event("bwrap"));
	assert_null(layers_event("landlock"));
	assert_null(layers_event("kernel")); /* an alias audit --layer adds, not an entry */
	char s[200];
	memset(&L, 0, sizeof L);
	layers_sensor_plan(&L, s, sizeof s);
	assert_string_equal(s, "seccomp-notify (report-only; installed by the exec stage)");
	L.sensor_off = true;
	layers_sensor_plan(&L, s, sizeof s);
	assert_null(strstr(s, "installed by the exec stage"));
}

/* The default manifest compiled for a scratch workspace. */
struct pol_fixture {
	char ws[64];
	struct manifest *m;
	struct mf_errors e;
	void *blob;
	const struct policy *p;
};

static void pol_setup(struct pol_fixture *f)
{
	memset(f, 0, sizeof *f);
	snprintf(f->ws, sizeof f->ws, "/tmp/test_layers.XXXXXX");
	assert_non_null(mkdtemp(f->ws));
	struct mf_ctx ctx;
	char err[512];
	assert_int_equal(mf_ctx_init(&ctx, f->ws, err, sizeof err), 0);
	assert_int_equal(manifest_load_default(&ctx, &f->m, &f->e), 0);
	size_t len = 0;
	struct pol_build_opts bo = {.uid = getuid()};
	assert_int_equal(pol_build(f->m, &bo, &f->blob, &len, err, sizeof err), 0);
	const char *why;
	f->p = pol_open(f->blob, len, &why);
	assert_non_null(f->p);
}

static void pol_teardown(struct pol_fixture *f)
{
	free(f->blob);
	manifest_free(f->m);
	mf_errors_free(&f->e);
	rmdir(f->ws);
}

/* The first s at or after `from`. */
static ssize_t at(const struct strv *a, size_t from, const char *s)
{
	for (size_t i = from; i < a->n; i++)
		if (!strcmp(a->v[i], s))
			return (ssize_t)i;
	return -1;
}

/* layers_wrap and layers_plan: the wrapper's argv carries the stage flags (between the stage's own
 * options and "--"), in the run and in the plan alike; layers_env: each layer's variables. */
static void t_wrap_plan_env(void **state)
{
	(void)state;
	struct pol_fixture f;
	pol_setup(&f);
	struct sbx_layers L;
	memset(&L, 0, sizeof L);
	L.sensor_off = true;
	sbx_layer_set_on(&L, SBX_L_BWRAP, "/usr/bin/bwrap");
	sbx_layer_set_on(&L, SBX_L_LANDLOCK, "abi 7");
	sbx_layer_set_on(&L, SBX_L_PRELOAD, "LD_PRELOAD");
	struct detect d;
	memset(&d, 0, sizeof d);
	snprintf(d.bwrap, sizeof d.bwrap, "/usr/bin/bwrap");
	snprintf(d.self, sizeof d.self, "/x/sbxsup");
	snprintf(d.preload, sizeof d.preload, "/x/libsbxpreload.so");
	struct strv env = {0}, argv = {0};
	strv_add(&env, "PATH=/usr/bin");
	char *cmd[] = {"/bin/true", NULL};
	struct run_limits lim = {.wall_s = 300, .nofile = 1024, .cpu_s = -1, .memory_mb = -1, .pids = -1,
				 .fsize_mb = -1, .wall_ms = 300000};
	static const bool wrapped = true;
	struct layer_ctx c = {.pol = f.p, .d = &d, .L = &L, .lim = &lim, .plan_wrapped = &wrapped, .workspace = f.m->workspace,
			      .cmd = cmd, .att = &(const struct layer_attempt){
				      .env = &env, .report_sock = "/tmp/r/report",
				      .fds = {.ctl = -1, .stderr_copy = -1, .ldso = -1, .policy = -1, .userns = -1,
					      .passwd = -1, .group = -1, .resolv = -1}}};
	c.cg.v2_fd = -1;
	char err[256];
	assert_int_equal(layers_wrap(&c, &argv, err, sizeof err), 0);
	ssize_t st = at(&argv, 0, "__stage");
	assert_true(st > 0);
	ssize_t ll = at(&argv, (size_t)st, "--landlock"), pl = at(&argv, (size_t)st, "--preload"),
		dd = at(&argv, (size_t)st, "--");
	assert_true(st > 0 && pl > st && ll > pl && dd > ll);
	assert_string_equal(argv.v[dd + 1], "/bin/true");
	strv_free(&argv);
	cJSON *o = cJSON_CreateObject();
	layers_plan(&c, o);
	const cJSON *bw = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "bwrap"), "argv");
	assert_true(cJSON_IsArray(bw));
	bool planned = false;
	const cJSON *w;
	cJSON_ArrayForEach(w, bw)
		planned = planned || (cJSON_IsString(w) && !strcmp(w->valuestring, "--landlock"));
	assert_true(planned);
	assert_non_null(cJSON_GetObjectItemCaseSensitive(o, "limits"));
	cJSON_Delete(o);
	struct strv e = {0};
	assert_int_equal(layers_env(&c, &e), 0);
	assert_non_null(strv_getenv(&e, "LD_PRELOAD"));
	strv_free(&e);
	sbx_layer_set_off(&L, SBX_L_BWRAP, "x");
	assert_int_equal(layers_wrap(&c, &argv, err, sizeof err), -1); /* no wrapper on */
	strv_free(&argv);
	strv_free(&env);
	pol_teardown(&f);
}

/* layers_start / replan / child / pollfds / drain / lost_events / reap / stop on the limits alone: started
 * with its level, applied in a child, no descriptor, nothing lost, stopped. */
static void t_start_child_stop(void **state)
{
	(void)state;
	struct sbx_layers L;
	memset(&L, 0, sizeof L);
	sbx_layer_set_on(&L, SBX_L_LIMITS, "rlimit");
	struct run_limits lim = {.wall_s = 300, .nofile = 200, .cpu_s = -1, .memory_mb = -1, .pids = -1,
				 .fsize_mb = -1, .wall_ms = 300000};
	struct layer_ctx c = {.L = &L, .lim = &lim, .att = &no_att};
	c.cg.v2_fd = -1;
	struct layer_rt rt;
	memset(&rt, 0, sizeof rt);
	layers_start(&c, &rt);
	assert_non_null(rt.st[SBX_L_LIMITS]);
	assert_true(sbx_layer_on(&L, SBX_L_LIMITS));
	assert_non_null(strstr(L.level[SBX_L_LIMITS], "nofile=200"));
	for (int l = 0; l < SBX_L__N; l++)
		if (l != SBX_L_LIMITS)
			assert_null(rt.st[l]);
	layers_replan(&c, &rt);
	assert_non_null(rt.st[SBX_L_LIMITS]);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit r;
		_exit(layers_child(&c, &rt) == 0 && getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur == 200 ? 0 : 1);
	}
	int ws;
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	struct pollfd p[SBX_L__N];
	int idx[SBX_L__N];
	assert_int_equal(layers_pollfds(&rt, p, SBX_L__N, idx), 0);
	for (int l = 0; l < SBX_L__N; l++)
		assert_int_equal(idx[l], -1);
	assert_int_equal(layers_drain(&rt, NULL, idx, NULL, true), 0);
	assert_int_equal(layers_lost_events(&rt), 0);
	assert_int_equal(layers_reap(&rt, NULL, 0, 0), 0);    /* no layer traces a process */
	assert_int_equal(layers_reap(&rt, NULL, 4242, 0), 0); /* a status of no layer's */
	layers_stop(&rt, true); /* limits are not per attempt: kept */
	assert_non_null(rt.st[SBX_L_LIMITS]);
	layers_stop(&rt, false);
	assert_null(rt.st[SBX_L_LIMITS]);
}

/* layers_on_ready: a stage layer is confirmed with the stage's level or turned off with its why;
 * one the stage did not report is off; the sensor and the privilege guard as the stage said. */
static void t_on_ready(void **state)
{
	(void)state;
	struct sbx_layers L;
	memset(&L, 0, sizeof L);
	sbx_layer_set_on(&L, SBX_L_LANDLOCK, "abi 7");
	sbx_layer_set_on(&L, SBX_L_SECCOMP, "notify");
	sbx_layer_set_on(&L, SBX_L_PRELOAD, "LD_PRELOAD");
	struct detect d;
	memset(&d, 0, sizeof d);
	struct layer_ctx c = {.d = &d, .L = &L, .att = &no_att};
	struct layer_rt rt;
	memset(&rt, 0, sizeof rt);
	const char *status = "landlock=on\nlandlock_level=abi 6\nseccomp=off\nseccomp_why=no notify\n"
			     "sensor=on\nprivguard=notify\n";
	layers_on_ready(&c, &rt, status, ctl_status_get, 0, -1);
	assert_true(sbx_layer_on(&L, SBX_L_LANDLOCK));
	assert_true(!strncmp(L.level[SBX_L_LANDLOCK], "abi 6", 5));
	assert_false(sbx_layer_on(&L, SBX_L_SECCOMP));
	assert_string_equal(L.why[SBX_L_SECCOMP], "no notify");
	assert_false(sbx_layer_on(&L, SBX_L_PRELOAD));
	assert_string_equal(L.why[SBX_L_PRELOAD], "the stage did not report it");
	assert_string_equal(L.sensor, "on");
	assert_string_equal(L.privguard, "notify");
	for (int l = 0; l < SBX_L__N; l++)
		assert_null(rt.st[l]); /* no listener: nothing started */
}

/* The stage side: a `__stage` flag is its entry's bit; the policy is read when a stage op needs it
 * (Landlock, seccomp, the sensor mode); layers_stage runs each op of its phase and the status says
 * what it found (here without installing anything: keep_caps, no layer but the preload's check). */
static void t_stage(void **state)
{
	(void)state;
	assert_int_equal(layers_stage_flag("--landlock"), 1u << SBX_L_LANDLOCK);
	assert_int_equal(layers_stage_flag("--seccomp"), 1u << SBX_L_SECCOMP);
	assert_int_equal(layers_stage_flag("--preload"), 1u << SBX_L_PRELOAD);
	assert_int_equal(layers_stage_flag("--sensor"), 0); /* an option of the seccomp entry */
	assert_int_equal(layers_stage_flag("--bwrap"), 0);
	/* the kernel layers' options, read back by the entry that emits them */
	assert_int_equal(layers_stage_option("--netfilter"), LAYER_STAGE_OPT_NETFILTER);
	assert_int_equal(layers_stage_option("--report-files"), LAYER_STAGE_OPT_REPORT_FILES);
	assert_int_equal(layers_stage_option("--sensor"), LAYER_STAGE_OPT_SENSOR);
	assert_int_equal(layers_stage_option("--etc-view"), LAYER_STAGE_OPT_ETC_VIEW);
	assert_int_equal(layers_stage_option("--seccomp"), 0);
	for (unsigned b = 1; b <= LAYER_STAGE_OPT_ETC_VIEW; b <<= 1) /* the flag an entry emits reads back */
		assert_int_equal(layers_stage_option(layers_stage_option_flag(b)), b);
	assert_null(layers_stage_option_flag(3));
	struct layer_stage w = {.on = 1u << SBX_L_PRELOAD, .keep_caps = true};
	assert_false(layers_stage_wants_policy(&w)); /* SBXSUP_SANDBOX=0: nothing at the stage needs it */
	w.sensor = true;
	assert_true(layers_stage_wants_policy(&w));
	w = (struct layer_stage){.on = 1u << SBX_L_LANDLOCK, .keep_caps = true};
	assert_true(layers_stage_wants_policy(&w));
	/* every sandboxing stage: the privilege guard's own filter decides abstract names and a manifest
	 * deny with it */
	w = (struct layer_stage){.on = 1u << SBX_L_PRELOAD};
	assert_true(layers_stage_wants_policy(&w));
	char st[512] = "";
	char lib[300];
	snprintf(lib, sizeof lib, "LD_PRELOAD=%s", access("/lib/x86_64-linux-gnu/libc.so.6", R_OK) == 0
							 ? "/lib/x86_64-linux-gnu/libc.so.6" : "/bin/sh");
	char *envp[] = {lib, NULL};
	struct layer_stage ls = {.on = 1u << SBX_L_PRELOAD, .keep_caps = true, .envp = envp, .status = st,
				 .status_len = sizeof st, .listener = -1};
	assert_int_equal(layers_stage(&ls, LAYER_STAGE_BEFORE_CAPS), 0);
	assert_string_equal(st, "");
	assert_int_equal(layers_stage(&ls, LAYER_STAGE_AFTER_CAPS), 0);
	assert_string_equal(st, "preload=on\n");
	assert_int_equal(ls.listener, -1);
	char *bad[] = {"LD_PRELOAD=/nonexistent/lib.so", NULL};
	st[0] = 0;
	ls.envp = bad;
	assert_int_equal(layers_stage(&ls, LAYER_STAGE_AFTER_CAPS), 0);
	assert_non_null(strstr(st, "preload=off\npreload_why=/nonexistent/lib.so: "));
}

/* What the run asks the table instead of an entry by name: the cgroup limits, the network walls in
 * their order, what is lost with a layer off, the loader's library, the layers the stage must not
 * turn off (and the refusal's reason code), and which entries expire, reclaim and hold shared
 * sets (not called here: they act on the host's pinned sets). */
static void t_run_questions(void **state)
{
	(void)state;
	struct sbx_layers L;
	memset(&L, 0, sizeof L);
	struct detect d;
	memset(&d, 0, sizeof d);
	snprintf(d.preload, sizeof d.preload, "/x/libsbxpreload.so");
	struct pol_fixture f;
	pol_setup(&f);
	struct layer_ctx c = {.d = &d, .L = &L, .pol = f.p, .att = &no_att};
	assert_false(layers_cgroup_limits(&L));
	sbx_layer_set_on(&L, SBX_L_LIMITS, "x");
	assert_true(layers_cgroup_limits(&L));
	/* the walls: netfilter, preload, landlock (off in the run's own namespace) */
	char w[200];
	layers_net_walls(&c, w, sizeof w);
	const char *ll = pol_own_netns(f.p) ? "off (own namespace)" : "off";
	char want[200];
	snprintf(want, sizeof want, "netfilter BPF: off; preload checks: off; landlock ports: %s", ll);
	assert_string_equal(w, want);
	sbx_layer_set_on(&L, SBX_L_NETFILTER, "x");
	sbx_layer_set_on(&L, SBX_L_LANDLOCK, "x");
	layers_net_walls(&c, w, sizeof w);
	snprintf(want, sizeof want, "netfilter BPF: on; preload checks: off; landlock ports: %s",
		 pol_own_netns(f.p) ? "off (own namespace)" : "on");
	assert_string_equal(w, want);
	layers_net_walls(&c, w, 10); /* cut, never overrun */
	assert_int_equal(strlen(w), 9);
	/* what is lost: the entry's line unless it says otherwise for this run */
	for (int l = 0; l < SBX_L__N; l++)
		if (!pol_gateway(f.p))
			assert_string_equal(layers_lost(&c, l), sbx_layer_ops[l]->lost);
	/* the loader's library: the preload's, only while it is on */
	assert_null(layers_ld_library(&c));
	sbx_layer_set_on(&L, SBX_L_PRELOAD, "LD_PRELOAD");
	assert_string_equal(layers_ld_library(&c), d.preload);
	/* the /etc view is bound only for the loader's library (its ld.so.preload), and only if made */
	assert_null(layers_etc_view(&c));
	struct layer_ctx cv = c;
	cv.etc_view = "/run/x/etcview";
	assert_string_equal(layers_etc_view(&cv), "/run/x/etcview");
	sbx_layer_set_off(&L, SBX_L_PRELOAD, "off");
	assert_null(layers_etc_view(&cv));
	sbx_layer_set_on(&L, SBX_L_PRELOAD, "LD_PRELOAD");
	/* the preload is refused if the stage turns it off; nothing lost: no refusal */
	unsigned keep = layers_refuse_mask(&L);
	assert_int_equal(keep, 1u << SBX_L_PRELOAD);
	const char *code = NULL;
	char remedy[200] = "";
	assert_int_equal(layers_refuse_lost(&c, keep, "uid 1 gid 1", &code, remedy, sizeof remedy), -1);
	sbx_layer_set_off(&L, SBX_L_PRELOAD, "cannot open it");
	assert_int_equal(layers_refuse_lost(&c, keep, "uid 1 gid 1", &code, remedy, sizeof remedy),
			 SBX_L_PRELOAD);
	assert_string_equal(code, "preload_unavailable");
	assert_non_null(strstr(remedy, "--layers auto,-preload"));
	assert_string_equal(L.why[SBX_L_PRELOAD], "the executor's identity (uid 1 gid 1) cannot load "
			    "/x/libsbxpreload.so: cannot open it");
	assert_int_equal(layers_refuse_lost(&c, 0, "uid 1 gid 1", &code, remedy, sizeof remedy), -1);
	/* the shared sets: netfilter's and the probes' */
	for (int l = 0; l < SBX_L__N; l++) {
		bool shared = l == SBX_L_NETFILTER || l == SBX_L_PROBES;
		assert_true(!sbx_layer_ops[l]->expire_idle == !shared);
		assert_true(!sbx_layer_ops[l]->reclaim == !shared);
		assert_true(!sbx_layer_ops[l]->hold == (l != SBX_L_PROBES));
	}
	pol_teardown(&f);
}

/* serve's walker over the shared sets it keeps loaded: an entry that already holds its state is
 * left as it is and not asked again (nothing is loaded here: every entry is marked as holding). */
static int hold_said;
static void hold_said_cb(void *arg, const char *name, bool held, const char *text)
{
	(void)arg, (void)name, (void)held, (void)text;
	hold_said++;
}

static void t_hold_walk(void **state)
{
	(void)state;
	struct layer_rt rt;
	memset(&rt, 0, sizeof rt);
	for (int l = 0; l < SBX_L__N; l++)
		rt.st[l] = &rt;
	hold_said = 0;
	layers_hold(&rt, hold_said_cb, NULL);
	assert_int_equal(hold_said, 0);
	for (int l = 0; l < SBX_L__N; l++)
		assert_ptr_equal(rt.st[l], &rt);
}

/* `status`: every entry's functional probe, each saying either how it works here or why not. */
static void t_probe_all(void **state)
{
	(void)state;
	struct detect d;
	memset(&d, 0, sizeof d);
	struct layer_probe st[SBX_L__N];
	layers_probe_all(&d, st);
	for (int l = 0; l < SBX_L__N; l++) {
		if (st[l].available)
			assert_true(st[l].level[0] != 0);
		else
			assert_true(st[l].why[0] != 0);
	}
	assert_true(d.self[0] == '/'); /* the probes ran from this binary, found by its real path */
}

/* The set-up made right after the spawn (probes, netfilter): an entry with no started state, or
 * off, is not asked; nothing fails and no layer is turned off. */
static void t_spawned_walk(void **state)
{
	(void)state;
	struct sbx_layers L;
	memset(&L, 0, sizeof L);
	for (int l = 0; l < SBX_L__N; l++)
		sbx_layer_set_on(&L, l, "x");
	struct detect d;
	memset(&d, 0, sizeof d);
	struct layer_ctx c = {.d = &d, .L = &L, .att = &no_att};
	struct layer_rt rt;
	memset(&rt, 0, sizeof rt); /* nothing started */
	assert_int_equal(layers_spawned(&c, &rt), 0);
	for (int l = 0; l < SBX_L__N; l++)
		assert_true(sbx_layer_on(&L, l));
	for (int l = 0; l < SBX_L__N; l++) /* started, but off */
		rt.st[l] = &rt, sbx_layer_set_off(&L, l, "off here");
	assert_int_equal(layers_spawned(&c, &rt), 0);
	for (int l = 0; l < SBX_L__N; l++)
		assert_string_equal(L.why[l], "off here");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_layer_table),    cmocka_unit_test(t_detect_disable),
		cmocka_unit_test(t_admit),          cmocka_unit_test(t_stage_flags_wrapper_cgroup),
		cmocka_unit_test(t_wrap_plan_env),  cmocka_unit_test(t_start_child_stop),
		cmocka_unit_test(t_on_ready),       cmocka_unit_test(t_stage),
		cmocka_unit_test(t_report_event_sensor), cmocka_unit_test(t_run_questions),
		cmocka_unit_test(t_hold_walk),      cmocka_unit_test(t_spawned_walk),
		cmocka_unit_test(t_probe_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
