/* run_shadow.c — the shadow workspace in a run (docs/shadow.md): planned (pure), its store
 * made at set-up once the run id exists, the overlay mounted by the attempt's child (bwrap mode:
 * shadow_mount_at before bwrap, wrap_bwrap.c; direct mode: sd_child.c), and the change set listed when
 * every process of the run is gone, before run.end. run_int.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "changeset.h"
#include "msg.h"
#include "quote.h"
#include "run_int.h"
#include "shadow_copy.h"
#include "shadow_store.h"
#include "smallfile.h"

int run_shadow_plan(struct run *r)
{
	struct shadow_plan *sp = &r->shadow.sp;
	sp->on = r->o.shadow || (r->m && r->m->shadow);
	if (!sp->on)
		return 0;
	/* OverlayFS where the kernel has it (SBXSUP_SHADOW_MECH=copy|overlay forces one: tests), else
	 * the copy fallback; reading /proc/filesystems changes nothing */
	const char *force = getenv("SBXSUP_SHADOW_MECH");
	char fs[4096] = "";
	(void)sbx_read_small("/proc/filesystems", fs, sizeof fs);
	sp->copy = force && *force ? !strcmp(force, "copy") : !strstr(fs, "\toverlay\n");
	sp->mech = sp->copy ? "copy" : "overlay";
	snprintf(sp->workspace, sizeof sp->workspace, "%s", r->m->workspace);
	const char *why = NULL;
	if (r->o.disabled)
		why = "SBXSUP_SANDBOX=0 runs without namespaces";
	else if (!r->sd.mnt)
		why = "no mount namespace can be made here (preload-only mode: the executor's writes would reach "
		      "the real workspace)";
	if (why) {
		sbx_msg("--shadow: %s: refusing to run (no shadow workspace possible)", why);
		run_reason(r, SBX_REASON_SHADOW_UNAVAILABLE, "--shadow: %s", why);
		return -1;
	}
	return 0;
}

cJSON *run_shadow_plan_json(const struct run *r)
{
	const struct shadow_plan *sp = &r->shadow.sp;
	if (!sp->on)
		return NULL;
	char root[4096] = "";
	char err[256];
	if (shadow_store_root(root, sizeof root, err, sizeof err) < 0)
		snprintf(root, sizeof root, "(%s)", err);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "mechanism", sp->mech);
	cJSON_AddStringToObject(o, "lower", sp->workspace);
	char b[4200];
	snprintf(b, sizeof b, "%s/" LAYER_RUN_PLACEHOLDER, root);
	cJSON_AddStringToObject(o, "store", b);
	cJSON_AddStringToObject(o, "mounted", r->plan.wrapped ? "in a mount namespace of the child, before bwrap"
							      : "in the run's mount namespace");
	return o;
}

static int64_t now_ns(clockid_t clk)
{
	struct timespec t;
	clock_gettime(clk, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The run's start for commit's conflict check: a change made before it has a ctime <= it, one made
 * after it a ctime > it. File systems stamp ctime with the coarse clock, or (multigrain timestamps,
 * Linux >= 6.13) with the fine one, and the coarse clock lags the fine one by up to a tick: so take
 * the fine time, then wait (at most a tick, bounded) until the coarse clock has passed it. */
static int64_t shadow_start_ns(void)
{
	int64_t t0 = now_ns(CLOCK_REALTIME);
	for (int i = 0; i < 100 && now_ns(CLOCK_REALTIME_COARSE) <= t0; i++)
		nanosleep(&(struct timespec){.tv_nsec = 500000}, NULL);
	return t0;
}

int run_shadow_setup(struct run *r)
{
	struct shadow_plan *sp = &r->shadow.sp;
	if (!sp->on)
		return 0;
	char err[512];
	r->shadow.t0 = shadow_start_ns();
	int fd = shadow_store_create(r->a.run, sp->store, sizeof sp->store, err, sizeof err);
	if (fd < 0) {
		sbx_msg("--shadow: %s", err);
		run_reason(r, SBX_REASON_SHADOW_UNAVAILABLE, "--shadow: %s", err);
		return -1;
	}
	snprintf(sp->upper, sizeof sp->upper, "%s/upper", sp->store);
	snprintf(sp->work, sizeof sp->work, "%s/work", sp->store);
	snprintf(sp->tree, sizeof sp->tree, "%s/tree", sp->store);
	const char *root = sp->copy ? "tree" : "upper";
	if (sp->copy && mkdirat(fd, "tree", 0700) < 0) {
		snprintf(err, sizeof err, "%.300s: %s", sp->tree, strerror(errno));
		goto refuse;
	}
	/* the executor's root of the workspace looks like the real one (its mode; as root, its owner) */
	struct stat st;
	if (stat(sp->workspace, &st) == 0) {
		(void)!fchmodat(fd, root, st.st_mode & 07777, 0);
		if (geteuid() == 0)
			(void)!fchownat(fd, root, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW);
	}
	if (sp->copy) {
		const char *mb = getenv("SBXSUP_SHADOW_COPY_MB");
		uint64_t limit = (uint64_t)(mb && *mb ? strtoull(mb, NULL, 10) : SHADOW_COPY_DEFAULT_MB) << 20;
		int src = open(sp->workspace, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int dst = openat(fd, "tree", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		bool reflinked = false;
		int crc = src >= 0 && dst >= 0 ? shadow_copy_tree(src, dst, limit, &reflinked, err, sizeof err) : -1;
		if (src < 0 || dst < 0)
			snprintf(err, sizeof err, "%.300s: %s", sp->workspace, strerror(errno));
		if (src >= 0)
			close(src);
		if (dst >= 0)
			close(dst);
		if (crc < 0)
			goto refuse;
		sp->mech = reflinked ? "reflink" : "copy";
	}
	cJSON *meta = cJSON_CreateObject();
	cJSON_AddStringToObject(meta, "run", r->a.run);
	cJSON_AddStringToObject(meta, "layer", root);
	cJSON_AddStringToObject(meta, "state", "running");
	cJSON_AddStringToObject(meta, "workspace", sp->workspace);
	cJSON_AddStringToObject(meta, "mechanism", sp->mech);
	char t0[32];
	snprintf(t0, sizeof t0, "%lld", (long long)r->shadow.t0);
	cJSON_AddStringToObject(meta, "t0_ns", t0);
	cJSON_AddNumberToObject(meta, "uid", getuid());
	if (r->o.audit && r->a.path)
		cJSON_AddStringToObject(meta, "audit", r->a.path);
	cJSON *man = cJSON_AddObjectToObject(meta, "manifest");
	cJSON_AddStringToObject(man, "path", r->m->source ? r->m->source : "");
	cJSON_AddStringToObject(man, "sha256", r->m->sha256_hex);
	cJSON_AddStringToObject(meta, "executor", r->m->name ? r->m->name : "");
	cJSON_AddStringToObject(meta, "autonomy", r->m->autonomy == MF_AUTONOMY_READONLY ? "readonly"
					   : r->m->autonomy == MF_AUTONOMY_FULL ? "full" : "supervised");
	int rc = shadow_write_json(fd, SHADOW_META, meta);
	cJSON_Delete(meta);
	close(fd);
	if (rc < 0) {
		snprintf(err, sizeof err, "%.300s/%s: %s", sp->store, SHADOW_META, strerror(errno));
		fd = -1;
		goto refuse;
	}
	return 0;
refuse:
	if (fd >= 0)
		close(fd);
	sbx_msg("--shadow: %s", err);
	run_reason(r, SBX_REASON_SHADOW_UNAVAILABLE, "--shadow: %s", err);
	char e2[128];
	(void)shadow_store_remove(r->a.run, e2, sizeof e2);
	sp->store[0] = 0;
	return -1;
}

void run_shadow_level(const struct run *r, cJSON *level)
{
	/* only once the stage is ready: the overlay is then in place (a refusal's run.start has none) */
	if (r->shadow.sp.on && r->shadow.sp.store[0] && r->att.ready)
		cJSON_AddStringToObject(level, "shadow", r->shadow.sp.mech);
}

void run_shadow_drop_unused(struct run *r)
{
	char err[256];
	if (r->shadow.sp.on && r->shadow.sp.store[0] && !r->att.ready && !r->shadow.sum &&
	    shadow_store_remove(r->a.run, err, sizeof err) < 0)
		sbx_msg("warning: --shadow: %s", err);
}

int run_shadow_end(struct run *r)
{
	struct shadow_plan *sp = &r->shadow.sp;
	if (!sp->on || !sp->store[0] || r->shadow.sum)
		return 0;
	if (!r->att.ready) /* the command never started: nothing to keep */
		return 0;
	char err[512] = "";
	cJSON *meta;
	int dfd = shadow_store_load(r->a.run, NULL, 0, &meta, err, sizeof err);
	int ufd = dfd >= 0 ? openat(dfd, sp->copy ? "tree" : "upper", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	int lfd = open(sp->workspace, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct changeset cs;
	int rc = -1;
	if (dfd < 0 || ufd < 0 || lfd < 0) {
		if (dfd >= 0) /* else err says why the store did not open */
			snprintf(err, sizeof err, "%.200s: %s", sp->store, strerror(errno));
	} else if ((sp->copy ? cs_from_copy(ufd, lfd, &cs, err, sizeof err)
			     : cs_from_overlay(ufd, lfd, &cs, err, sizeof err)) == 0) {
		cJSON *all = cs_to_json(&cs);
		r->shadow.sum = cs_summary_json(&cs);
		if (r->shadow.sum) {
			cJSON_AddStringToObject(r->shadow.sum, "run", r->a.run);
			cJSON_AddStringToObject(r->shadow.sum, "mechanism", sp->mech);
			cJSON_AddStringToObject(r->shadow.sum, "store", sp->store);
		}
		if (meta) {
			cJSON_ReplaceItemInObjectCaseSensitive(meta, "state", cJSON_CreateString("ended"));
			cJSON_AddItemToObject(meta, "changes", cs_summary_json(&cs));
		}
		if (all && meta && shadow_write_json(dfd, SHADOW_CHANGES, all) == 0 &&
		    shadow_write_json(dfd, SHADOW_META, meta) == 0)
			rc = 0;
		else if (meta) /* without it, err already says why */
			snprintf(err, sizeof err, "cannot write the change set: %s", strerror(errno));
		cJSON_Delete(all);
		cs_free(&cs);
	}
	cJSON_Delete(meta);
	if (ufd >= 0)
		close(ufd);
	if (lfd >= 0)
		close(lfd);
	if (dfd >= 0)
		close(dfd);
	char q[SBX_Q_MAX];
	if (rc < 0)
		sbx_msg("warning: --shadow: the change set of run %s could not be listed: %s (the changes stay in %s)",
			r->a.run, err, sbx_q(sp->store, q, sizeof q));
	return rc;
}
