/* probes_layer.c — the probes layer for one run (see probes_layer.h).
 *
 * Per run: a run slot (0..PR_SLOTS-1, claimed atomically in the `owners` map), the slot's ring
 * buffer (`rings[slot]`: reused from an earlier run of the slot in a pinned set, its leftovers
 * discarded; else created and installed), the lost counters of the slot reset, the run's cgroup v2 id
 * in `cgroups` (else the pid-mode counter raised so the programs look up every tgid), and the
 * stage pid in `armed` once sbx_probes_arm() is called, and the run's policy compiled into the
 * slot's in-kernel decision entries (probes_kdec.h). The program set is the pinned one (`sbxsup
 * probes load`) when present, else the automatic shared set (probes_share.h: opened when another
 * run has it, else loaded in a child and pinned), else (SBXSUP_PROBES_SHARE=0, or sharing failed) a
 * private load for this run — recorded in the level text. Everything the run put into shared maps
 * is removed by sbx_probes_stop(), which also drops its reference on the shared set; a supervisor
 * killed before that leaves a claimed slot whose owner is dead, which a later run reclaims.
 */
#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/openat2.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "probes_layer.h"
#include "layer.h"
#include "exec_kills.h"
#include "probes_bpf.h"
#include "probes_decode.h"
#include "probes_kdec.h"
#include "probes_share.h"
#include "fdpath.h"
#include "pidname.h"

/* One drain call handles at most this many records: more than the ring buffer can hold (records are
 * at least offsetof(path) bytes), so a single call after the run's processes are gone empties it,
 * while under a flood each call is still bounded (the producers refill the ring while we read). */
#define PR_DRAIN_BATCH (PR_RB_SIZE / offsetof(struct pr_event, path) + 1)

/* tgid -> full exe path, from the kernel's exec/fork records (direct-mapped, bounded: ~1 MiB). */
#define PR_EXE_CACHE 1024
struct pr_exe { uint32_t tgid; char path[1024]; };

struct sbx_probes {
	struct pr_loaded L;
	const struct policy *pol;
	uint32_t slot;
	bool slot_claimed;
	int rbfd;
	struct ring_buffer *rb;
	uint64_t cgid;
	bool pidmode;
	struct pr_config *cfg;       /* mmap of the config map */
	int ncpus;
	/* drain state */
	struct audit *a;
	unsigned batch;
	bool audit_failed;
	bool discard;                /* leftovers of a previous run of the slot: drop */
	struct pr_event *evbuf;      /* one record, zero-padded (allocated once) */
	struct kv_view *view;
	struct pr_exe *exes;         /* PR_EXE_CACHE entries */
	struct pr_ovf *ovf;          /* one overflow value (allocated once) */
	struct exec_kills *kills;    /* the run's processes killed at their exec stop (exec_kills.h) */
	uint64_t events, violations, malformed;
	struct sbx_probes_counts cnt;
	bool shared;                 /* the automatic shared set (PR_AUTO_DIR, probes_share.h) */
	struct pr_share sh;
	int rootfd, nsfd;            /* the run's root and mount namespace (from the armed pid), -1 */
	bool loaded_here;            /* ... which this run loaded and pinned */
	bool kdec_off;               /* SBXSUP_PROBES_KDEC=0: every record to user space */
	struct pr_kdec_stats kd;     /* what the in-kernel decision holds for this run */
	bool prepared;               /* sbx_probes_prepare() done: consumer mapped, decision filled */
	bool reused;                 /* the slot's ring buffer is a previous run's */
	char level[240];             /* the level without the in-kernel decision's part */
};

static struct pr_kdec_fds kdec_fds(const struct sbx_probes *pr)
{
	struct pr_kdec_fds f = { pr->L.m.safe, pr->L.m.leaves, pr->L.m.kdec };
	return f;
}

/* Compile the run's policy into its slot's in-kernel decision maps (off: cleared). */
static void kdec_load(struct sbx_probes *pr)
{
	struct pr_kdec_fds f = kdec_fds(pr);
	if (pr->kdec_off || !pr->pol || pr_kdec_fill(&f, pr->slot, pr->pol, &pr->kd) != 0) {
		pr_kdec_clear(&f, pr->slot);
		memset(&pr->kd, 0, sizeof pr->kd);
	}
}

static void set(char *buf, size_t len, const char *text)
{
	if (buf && len)
		snprintf(buf, len, "%s", text);
}

int sbx_probes_probe(char *level, size_t levellen, char *why, size_t whylen)
{
	struct pr_loaded L;
	char w[256] = "";
	int rc = pr_bpf_open_pinned(PR_PIN_DIR, &L, w, sizeof(w));
	if (rc == 0) {
		set(level, levellen, L.level);
		pr_bpf_close(&L);
		return 1;
	}
	if (!pr_bpf_precheck(w, sizeof(w))) {
		set(why, whylen, w);
		return 0;
	}
	const char *sh = getenv("SBXSUP_PROBES_SHARE");
	bool share = !(sh && !strcmp(sh, "0"));
	set(level, levellen, rc < 0 ? "per-run load (pinned set unusable)"
		  : !share ? "per-run load (SBXSUP_PROBES_SHARE=0)"
		  : pr_share_holders() > 0 ? "shared set (live)"
		  : pr_share_holders() == 0 ? "shared set (idle, loaded)"
		  : "shared set (loaded by the first run)");
	return 1;
}

int sbx_probes_probe_full(char *level, size_t levellen, char *why, size_t whylen)
{
	struct pr_loaded L;
	char w[256] = "";
	int rc = pr_bpf_open_pinned(PR_PIN_DIR, &L, w, sizeof(w));
	if (rc == 0) {
		set(level, levellen, L.level);
		pr_bpf_close(&L);
		return 1;
	}
	if (pr_bpf_load(&L, w, sizeof(w)) != 0) {
		set(why, whylen, w);
		return 0;
	}
	char lv[300];
	snprintf(lv, sizeof(lv), "%s (shared set, loaded by the first run)%s%s", L.level,
		 L.uring_why[0] ? "; " : "", L.uring_why);
	set(level, levellen, lv);
	pr_bpf_close(&L);
	return 1;
}

static int percpu_zero(int fd, uint32_t key, int ncpus)
{
	uint64_t *z = calloc((size_t)ncpus, sizeof(uint64_t));
	if (!z)
		return -1;
	int rc = bpf_map_update_elem(fd, &key, z, BPF_ANY);
	free(z);
	return rc;
}

static uint64_t percpu_sum(int fd, uint32_t key, int ncpus)
{
	uint64_t *v = calloc((size_t)ncpus, sizeof(uint64_t)), s = 0;
	if (!v)
		return 0;
	if (bpf_map_lookup_elem(fd, &key, v) == 0)
		for (int i = 0; i < ncpus; i++)
			s += v[i];
	free(v);
	return s;
}

/* Delete every key of a hash map (u32 or u64 keys, u32 values) whose value is `slot`. `guard` bounds
 * the walk (the maps are small; a deletion restarts it from the beginning). */
static void purge_slot_keys(int fd, uint32_t slot, size_t key_size, int guard_max)
{
	uint8_t key[8], next[8];
	uint32_t val;
	bool have = false;
	if (key_size > sizeof key)
		return;
	for (int guard = 0; guard < guard_max; guard++) {
		if (bpf_map_get_next_key(fd, have ? key : NULL, next) != 0)
			break;
		if (bpf_map_lookup_elem(fd, next, &val) == 0 && val == slot) {
			bpf_map_delete_elem(fd, next);
			/* the key is gone: restart from the beginning (the map is small) */
			have = false;
			continue;
		}
		memcpy(key, next, key_size);
		have = true;
	}
}

/* u32 -> slot maps (tracked, armed). */
static void purge_slot(int fd, uint32_t slot)
{
	purge_slot_keys(fd, slot, sizeof(uint32_t), 1 << 20);
}

/* The u64-keyed cgroups map. */
static void purge_slot64(int fd, uint32_t slot)
{
	purge_slot_keys(fd, slot, sizeof(uint64_t), 1 << 16);
}

/* The overflow keys of `slot` (at most PR_OVF_MAX): into keys[], returns how many. */
static size_t overflow_keys(int fd, uint32_t slot, struct pr_ovf_key *keys)
{
	struct pr_ovf_key k, next;
	bool have = false;
	size_t n = 0;
	for (int guard = 0; guard < 4 * PR_OVF_MAX && n < PR_OVF_MAX; guard++) {
		if (bpf_map_get_next_key(fd, have ? &k : NULL, &next) != 0)
			break;
		if (next.slot == slot)
			keys[n++] = next;
		k = next;
		have = true;
	}
	return n;
}

static void purge_overflow(int fd, uint32_t slot)
{
	struct pr_ovf_key *keys = calloc(PR_OVF_MAX, sizeof(*keys));
	if (!keys)
		return;
	size_t n = overflow_keys(fd, slot, keys);
	for (size_t i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &keys[i]);
	free(keys);
}

static int claim_slot(struct sbx_probes *pr, char *why, size_t whylen)
{
	uint32_t me = (uint32_t)getpid();
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t s = 0; s < PR_SLOTS; s++) {
			if (bpf_map_update_elem(pr->L.m.owners, &s, &me, BPF_NOEXIST) == 0) {
				pr->slot = s;
				pr->slot_claimed = true;
				/* whatever a dead earlier owner of the slot left behind */
				purge_slot(pr->L.m.tracked, s);
				purge_slot(pr->L.m.armed, s);
				purge_slot64(pr->L.m.cgroups, s);
				purge_overflow(pr->L.m.overflow, s);
				struct pr_kdec_fds kf = kdec_fds(pr);
				pr_kdec_clear(&kf, s);
				struct pr_live z = { 0, 0 };
				bpf_map_update_elem(pr->L.m.live, &s, &z, BPF_ANY);
				return 0;
			}
			if (pass == 1) {
				uint32_t owner;
				if (bpf_map_lookup_elem(pr->L.m.owners, &s, &owner) == 0 && owner != me &&
				    sbx_pid_gone(owner))
					bpf_map_delete_elem(pr->L.m.owners, &s); /* dead owner: reclaim */
			}
		}
	}
	snprintf(why, whylen, "all %d probe run slots are in use", PR_SLOTS);
	return -1;
}

static struct pr_exe *exe_ent(struct sbx_probes *pr, uint32_t tgid)
{
	return &pr->exes[(tgid * 2654435761u) % PR_EXE_CACHE];
}

static const char *exe_get(struct sbx_probes *pr, uint32_t tgid)
{
	struct pr_exe *e = exe_ent(pr, tgid);
	return e->tgid == tgid && e->path[0] ? e->path : NULL;
}

static void exe_put(struct sbx_probes *pr, uint32_t tgid, const char *path)
{
	struct pr_exe *e = exe_ent(pr, tgid);
	size_t n = path ? strlen(path) : 0;
	e->tgid = tgid;
	if (n >= sizeof(e->path))
		n = 0;                       /* too long: the kernel's exe name is used instead */
	memcpy(e->path, path ? path : "", n);
	e->path[n] = 0;
}

/* Process records: remember the exe of each process of the run. */
static void hold_root(struct sbx_probes *pr, uint32_t tgid);

static void on_proc(struct sbx_probes *pr, const struct pr_event *ev)
{
	if (ev->sc == PR_SC_PROC_EXEC) {
		hold_root(pr, ev->tgid);
		char path[4096];
		if (ev->path_kind == PR_PK_FULL && pr_event_path(ev, path, sizeof(path)) == 0)
			exe_put(pr, ev->tgid, path);
		else
			exe_put(pr, ev->tgid, NULL);
	} else {
		char path[1024];
		const char *p = exe_get(pr, (uint32_t)ev->nr);
		snprintf(path, sizeof(path), "%s", p ? p : "");
		exe_put(pr, ev->tgid, path);
	}
}

/* Hold the root and mount namespace of process `tgid` of the run, for second_look(): the namespace
 * fd keeps its mounts attached after the run's processes are gone. Taken at the arm and again at
 * each exec of the run (the stage may enter its own mount namespace after the arm). */
static void hold_root(struct sbx_probes *pr, uint32_t tgid)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%u/ns/mnt", tgid);
	int ns = open(p, O_RDONLY | O_CLOEXEC);
	snprintf(p, sizeof(p), "/proc/%u/root", tgid);
	int root = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ns < 0 || root < 0) {                /* gone already: keep what we hold */
		if (ns >= 0)
			close(ns);
		if (root >= 0)
			close(root);
		return;
	}
	if (pr->rootfd >= 0)
		close(pr->rootfd);
	if (pr->nsfd >= 0)
		close(pr->nsfd);
	pr->rootfd = root;
	pr->nsfd = ns;
}

/* The path `abs` (absolute in the run's root) as the kernel reaches it: every directory symlink
 * followed, the final one too when `follow`; resolved in the run's root and mount namespace (held
 * since the arm: valid after the run's processes exit). 0 (out), -1 when it cannot be resolved
 * (a missing directory, a magic link: the path as given is kept). */
static int resolve_in_run(const struct sbx_probes *pr, const char *abs, bool follow, char *out, size_t outlen)
{
	if (pr->rootfd < 0 || abs[0] != '/' || !abs[1])
		return -1;
	const char *slash = strrchr(abs, '/');
	char dir[PATH_MAX];
	size_t dl = (size_t)(slash - abs);
	if (dl >= sizeof(dir))
		return -1;
	memcpy(dir, abs, dl);
	dir[dl] = 0;
	const char *base = slash + 1;
	struct open_how h = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	int fd = -1;
	char target[PATH_MAX] = "";
	if (follow) {
		int dfd = (int)syscall(SYS_openat2, pr->rootfd, dl ? dir + 1 : ".", &h, sizeof(h));
		ssize_t tl = dfd >= 0 ? readlinkat(dfd, base, target, sizeof(target) - 1) : -1;
		if (dfd >= 0)
			close(dfd);
		target[tl > 0 ? tl : 0] = 0;
		if (tl > 0)
			fd = (int)syscall(SYS_openat2, pr->rootfd, abs + 1, &h, sizeof(h));
		if (tl > 0 && fd < 0) {
			/* a dangling link (the call failed with ENOENT): its target, one level, lexically */
			char joined[PATH_MAX];
			if (pol_normalize(dl ? dir : "/", target, joined, sizeof(joined)) != 0 ||
			    (size_t)snprintf(out, outlen, "%s", joined) >= outlen)
				return -1;
			return 0;
		}
	}
	bool whole = fd >= 0;
	if (!whole) {
		h.flags |= O_DIRECTORY;
		fd = (int)syscall(SYS_openat2, pr->rootfd, dl ? dir + 1 : ".", &h, sizeof(h));
	}
	if (fd < 0)
		return -1;
	char got[PATH_MAX];
	int r = fd_path(fd, got, sizeof got);
	close(fd);
	if (r < 0 || got[0] != '/')
		return -1;
	int w = whole ? snprintf(out, outlen, "%s", got)
		      : snprintf(out, outlen, "%s%s%s", got, strcmp(got, "/") ? "/" : "", base);
	return w > 0 && (size_t)w < outlen ? 0 : -1;
}

/* Whether the final name of `abs` (absolute in the run's root) no longer exists there. */
static bool name_gone(const struct sbx_probes *pr, const char *abs)
{
	const char *slash = strrchr(abs, '/');
	char dir[PATH_MAX];
	size_t dl = (size_t)(slash - abs);
	if (pr->rootfd < 0 || dl >= sizeof(dir) || !slash[1])
		return false;
	memcpy(dir, abs, dl);
	dir[dl] = 0;
	struct open_how h = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			      .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	int dfd = (int)syscall(SYS_openat2, pr->rootfd, dl ? dir + 1 : ".", &h, sizeof(h));
	if (dfd < 0)
		return errno == ENOENT;
	struct stat st;
	bool gone = fstatat(dfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT;
	close(dfd);
	return gone;
}

/* A path record allowed on the path as given: decided again on the object the kernel reaches
 * through symlinks (a failed open through a workspace link to ~/.ssh, a chmod through one...).
 * The record comes after the call: when the call was refused for a permission (EACCES, EPERM)
 * — which the kernel never answers for a name that does not exist — and the name is gone by the
 * time it is decoded (a link made, used and removed at once), the object the kernel refused cannot
 * be known any more: reported as undecidable, never silently allowed. */
static int second_look(struct sbx_probes *pr, const struct pr_event *ev, struct kv_view *v)
{
	if (ev->path_kind == PR_PK_FULL || !v->access || !v->path[0] || v->path[0] != '/' ||
	    (ev->flags & PR_EVF_ABSTRACT))
		return 0;
	char res[PATH_MAX];
	if (resolve_in_run(pr, v->path, pr_follows_final(ev), res, sizeof(res)) == 0 &&
	    pr_decide_resolved(pr->pol, ev, res, v) == 1)
		return 1;
	if (v->failed && (v->err == EACCES || v->err == EPERM) && pr_follows_final(ev) &&
	    name_gone(pr, v->path)) {
		v->undecidable = true;
		v->violation = true;
		v->rule = PR_RULE_GONE;
		return 1;
	}
	return 0;
}

static void count_outcome(struct sbx_probes *pr, const struct kv_view *v, uint64_t n)
{
	const char *o = kv_outcome(v);
	if (!strcmp(o, "breach"))
		pr->cnt.breach += n;
	else if (!strcmp(o, "contained"))
		pr->cnt.contained += n;
	else
		pr->cnt.undecidable += n;
}

/* An exec the kernel finished on a process the exec pins killed at its stop, before its first
 * instruction (exec_kills.h): their event says so; this record's "succeeded" is not a breach. */
static bool killed_at_exec(struct sbx_probes *pr, const struct kv_view *v)
{
	return !v->contained && v->syscall && !strncmp(v->syscall, "execve", 6) &&
	       exec_kills_take(pr->kills, (pid_t)v->pid);
}

static int on_event(void *ctx, void *data, size_t len)
{
	struct sbx_probes *pr = ctx;
	if (pr->discard)
		return 0;
	pr->events++;
	pr->batch++;
	const size_t head = offsetof(struct pr_event, path);
	if (len < head || len > sizeof(struct pr_event)) {
		pr->malformed++;
	} else {
		struct pr_event *ev = pr->evbuf;
		memset(ev, 0, sizeof(*ev));
		memcpy(ev, data, len);
		struct kv_view *v = pr->view;
		int d;
		if (ev->path_len > len - head)
			d = -1;                          /* claims more path than it carries */
		else if (ev->sc == PR_SC_PROC_EXEC || ev->sc == PR_SC_PROC_FORK) {
			on_proc(pr, ev);
			d = 0;
		} else {
			pr->cnt.records++;
			d = pr_decide(pr->pol, ev, v);
			if (d == 0)
				d = second_look(pr, ev, v);
		}
		if (d == 1 && killed_at_exec(pr, v))
			d = 0;
		if (d < 0)
			pr->malformed++;
		else if (d == 1) {
			pr->violations++;
			count_outcome(pr, v, 1);
			v->exe_path = exe_get(pr, ev->tgid);
			if (kv_emit(pr->a, v) != 0) {
				pr->audit_failed = true;
				return -EIO;
			}
		}
	}
	return pr->batch >= PR_DRAIN_BATCH ? -ECANCELED : 0;
}

/* Nothing more can be recorded (no process of the run left): decide each overflow sample and write
 * one summary per key, then one for the records lost for good whose call did not fail (those not
 * summarised yet). Cheap when there is nothing: one walk of the overflow map's keys (<= PR_OVF_MAX). */
static int finish(struct sbx_probes *pr, struct audit *a)
{
	pr->cnt.final = true;
	struct pr_ovf_key *keys = calloc(PR_OVF_MAX, sizeof(*keys));
	if (!keys)
		return -1;
	size_t n = overflow_keys(pr->L.m.overflow, pr->slot, keys);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		memset(pr->ovf, 0, sizeof(*pr->ovf));
		if (bpf_map_lookup_elem(pr->L.m.overflow, &keys[i], pr->ovf) != 0)
			continue;
		bpf_map_delete_elem(pr->L.m.overflow, &keys[i]);
		uint64_t c = pr->ovf->count;
		pr->cnt.summarized += c;
		struct pr_event *ev = &pr->ovf->ev;
		if (ev->path_len > PR_PATH_BUF || ev->sc >= PR_SC__MAX) {
			pr->malformed++;
			continue;
		}
		struct kv_view *v = pr->view;
		int d = pr_decide(pr->pol, ev, v);
		if (d == 0)
			d = second_look(pr, ev, v);
		if (d < 0)
			pr->malformed++;
		if (d != 1)
			continue;
		pr->violations++;
		count_outcome(pr, v, c);
		v->count = c;
		v->exe_path = exe_get(pr, ev->tgid);
		if (kv_emit(a, v) != 0)
			rc = -1;
	}
	free(keys);
	uint64_t all = pr->ncpus > 0 ? percpu_sum(pr->L.m.lost_ok, pr->slot, pr->ncpus) : 0;
	uint64_t unk = all - pr->cnt.lost_unknown;       /* not summarised yet */
	pr->cnt.lost_unknown = all;
	if (rc == 0 && unk > 0) {
		struct kv_view *v = pr->view;
		memset(v, 0, sizeof(*v));
		v->violation = v->undecidable = true;
		v->syscall = "*";
		v->sensor = "probes";
		v->access = "?";
		v->rule = PR_RULE_LOST;
		v->io_op = -1;
		v->count = unk;
		pr->cnt.undecidable += unk;
		if (kv_emit(a, v) != 0)
			rc = -1;
	}
	return rc;
}

int sbx_probes_begin(const struct policy *p, uint64_t cgroup_v2_id, struct sbx_probes **out,
		     char *level, size_t levellen, char *why, size_t whylen)
{
	*out = NULL;
	struct sbx_probes *pr = calloc(1, sizeof(*pr));
	if (!pr) {
		set(why, whylen, "out of memory");
		return -1;
	}
	pr->pol = p;
	pr->rbfd = -1;
	pr->rootfd = pr->nsfd = -1;
	pr->sh.dirfd = -1;
	pr->evbuf = malloc(sizeof(*pr->evbuf));
	pr->view = malloc(sizeof(*pr->view));
	pr->exes = calloc(PR_EXE_CACHE, sizeof(*pr->exes));
	pr->ovf = malloc(sizeof(*pr->ovf));
	if (!pr->evbuf || !pr->view || !pr->exes || !pr->ovf) {
		free(pr->evbuf);
		free(pr->view);
		free(pr->exes);
		free(pr->ovf);
		free(pr);
		set(why, whylen, "out of memory");
		return -1;
	}
	pr->cfg = MAP_FAILED;
	char w[256] = "", note[300] = "";
	/* SBXSUP_PROBES_NOPIN=1: ignore a pinned set and do not share (isolated tests, diagnosis) */
	const char *nopin = getenv("SBXSUP_PROBES_NOPIN");
	bool isolated = nopin && !strcmp(nopin, "1");
	int rc = isolated ? 1 : pr_bpf_open_pinned(PR_PIN_DIR, &pr->L, w, sizeof(w));
	if (rc < 0)
		snprintf(note, sizeof(note), " (pinned set unusable: %s)", w);
	/* The automatic shared set (probes_share.h) unless SBXSUP_PROBES_SHARE=0 */
	const char *sh = getenv("SBXSUP_PROBES_SHARE");
	if (rc != 0 && !isolated && !(sh && !strcmp(sh, "0"))) {
		char w2[256] = "";
		if (pr_share_acquire(&pr->sh, &pr->L, w2, sizeof(w2)) == 0) {
			rc = 0;
			pr->shared = true;
			pr->loaded_here = pr->sh.loaded_here;
		} else if (!note[0]) {
			snprintf(note, sizeof(note), " (shared set: %s)", w2);
		}
	}
	if (rc != 0) {
		if (pr_bpf_load(&pr->L, w, sizeof(w)) != 0) {
			char both[600];
			snprintf(both, sizeof(both), "%s%s", w, note);
			set(why, whylen, both);
			free(pr->evbuf);
			free(pr->view);
			free(pr->exes);
			free(pr->ovf);
			free(pr);
			return -1;
		}
	}
	pr->ncpus = libbpf_num_possible_cpus();
	if (pr->ncpus <= 0) {
		snprintf(w, sizeof(w), "cannot count possible CPUs");
		goto fail;
	}
	if (claim_slot(pr, w, sizeof(w)) != 0)
		goto fail;
	/* A pinned set keeps each slot's ring buffer between runs: replacing an entry of the outer
	 * map costs an RCU grace period (~10 ms here) per update and per delete. */
	uint32_t inner_id = 0;
	if (pr->L.pinned && bpf_map_lookup_elem(pr->L.m.rings, &pr->slot, &inner_id) == 0 && inner_id)
		pr->rbfd = bpf_map_get_fd_by_id(inner_id);
	bool reused = pr->reused = pr->rbfd >= 0;
	if (!reused) {
		pr->rbfd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "pr_run_rb", 0, 0, PR_RB_SIZE, NULL);
		if (pr->rbfd < 0) {
			snprintf(w, sizeof(w), "create ring buffer: %s", strerror(errno));
			goto fail;
		}
	}
	if (percpu_zero(pr->L.m.lost, pr->slot, pr->ncpus) != 0 ||
	    percpu_zero(pr->L.m.lost_ok, pr->slot, pr->ncpus) != 0 ||
	    percpu_zero(pr->L.m.kallow, pr->slot, pr->ncpus) != 0 ||
	    percpu_zero(pr->L.m.untracked, pr->slot, pr->ncpus) != 0) {
		snprintf(w, sizeof(w), "reset loss counters: %s", strerror(errno));
		goto fail;
	}
	if (!reused && bpf_map_update_elem(pr->L.m.rings, &pr->slot, &pr->rbfd, BPF_ANY) != 0) {
		snprintf(w, sizeof(w), "install ring buffer: %s", strerror(errno));
		goto fail;
	}
	pr->cfg = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE, MAP_SHARED,
		       pr->L.m.config, 0);
	if (pr->cfg == MAP_FAILED) {
		snprintf(w, sizeof(w), "map config: %s", strerror(errno));
		goto fail;
	}
	if (cgroup_v2_id) {
		pr->cgid = cgroup_v2_id;
		if (bpf_map_update_elem(pr->L.m.cgroups, &pr->cgid, &pr->slot, BPF_ANY) != 0) {
			snprintf(w, sizeof(w), "install cgroup filter: %s", strerror(errno));
			pr->cgid = 0;
			goto fail;
		}
	} else {
		__atomic_add_fetch(&pr->cfg->pidmode_runs, 1, __ATOMIC_SEQ_CST);
		pr->pidmode = true;
	}
	/* SBXSUP_PROBES_KDEC=0: no in-kernel decision (diagnosis; the equivalence test) */
	const char *kd = getenv("SBXSUP_PROBES_KDEC");
	pr->kdec_off = kd && !strcmp(kd, "0");
	snprintf(pr->level, sizeof pr->level, "%s; %s; %s scope%s", pr->L.level,
		 pr->shared ? (pr->loaded_here ? "shared, loaded here" : "shared")
		 : pr->L.pinned ? "pinned" : note[0] ? "per-run load (no shared set)" : "per-run load",
		 pr->cgid ? "pid-tree+cgroup" : "pid-tree", pr->L.uring_why[0] ? "; no io_uring tp" : "");
	set(level, levellen, pr->level);
	*out = pr;
	return 0;
fail:
	set(why, whylen, w);
	sbx_probes_stop(pr);
	return -1;
}

int sbx_probes_prepare(struct sbx_probes *pr, char *level, size_t levellen, char *why, size_t whylen)
{
	if (!pr) {
		set(why, whylen, "not started");
		return -1;
	}
	if (pr->prepared)
		return 0;
	pr->rb = ring_buffer__new(pr->rbfd, on_event, pr, NULL);
	if (!pr->rb) {
		char w[128];
		snprintf(w, sizeof w, "ring buffer consumer: %s", strerror(errno));
		set(why, whylen, w);
		return -1;
	}
	if (pr->reused) {            /* records a previous run of this slot left behind (none of this
				      * run's: its processes are tracked only from the armed exec) */
		pr->discard = true;
		ring_buffer__consume(pr->rb);
		pr->discard = false;
	}
	kdec_load(pr);
	pr->prepared = true;
	if (level && levellen && pr->kd.on)
		snprintf(level, levellen, "%s; kernel-allow %u", pr->level, pr->kd.subtrees);
	else if (level && levellen)
		snprintf(level, levellen, "%s; kernel-allow off", pr->level);
	return 0;
}

int sbx_probes_start(const struct policy *p, uint64_t cgroup_v2_id, struct sbx_probes **out,
		     char *level, size_t levellen, char *why, size_t whylen)
{
	if (sbx_probes_begin(p, cgroup_v2_id, out, level, levellen, why, whylen) < 0)
		return -1;
	if (sbx_probes_prepare(*out, level, levellen, why, whylen) < 0) {
		sbx_probes_stop(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int sbx_probes_arm(struct sbx_probes *pr, pid_t pid)
{
	if (!pr || pid <= 0 || sbx_probes_prepare(pr, NULL, 0, NULL, 0) < 0)
		return -1;
	hold_root(pr, (uint32_t)pid);
	uint32_t k = (uint32_t)pid;
	return bpf_map_update_elem(pr->L.m.armed, &k, &pr->slot, BPF_ANY) == 0 ? 0 : -1;
}

int sbx_probes_fd(const struct sbx_probes *pr)
{
	return pr && pr->rb ? ring_buffer__epoll_fd(pr->rb) : -1;
}

int sbx_probes_drain(struct sbx_probes *pr, struct audit *a)
{
	if (!pr || !pr->rb)
		return 0;
	pr->a = a;
	pr->batch = 0;
	int rc = ring_buffer__consume(pr->rb);
	unsigned n = pr->batch;
	pr->a = NULL;
	if (pr->audit_failed || (rc < 0 && rc != -ECANCELED))
		return -1;
	if (n < PR_DRAIN_BATCH) {
		/* the ring is empty: once no process of the run is left, the overflow counts are final
		 * (again after a later arm: a retry, or several commands in one harness) */
		struct pr_live l = { 1, 0 };
		if (bpf_map_lookup_elem(pr->L.m.live, &pr->slot, &l) == 0 && l.started && l.live <= 0 &&
		    finish(pr, a) != 0) {
			pr->audit_failed = true;
			return -1;
		}
	}
	return (int)n;
}

uint64_t sbx_probes_lost(const struct sbx_probes *pr)
{
	if (!pr || pr->ncpus <= 0)
		return 0;
	return percpu_sum(pr->L.m.lost, pr->slot, pr->ncpus);
}

uint64_t sbx_probes_untracked(const struct sbx_probes *pr)
{
	if (!pr || pr->ncpus <= 0)
		return 0;
	return percpu_sum(pr->L.m.untracked, pr->slot, pr->ncpus);
}

void sbx_probes_stats(const struct sbx_probes *pr, uint64_t *events, uint64_t *violations,
		      uint64_t *malformed)
{
	*events = pr ? pr->events : 0;
	*violations = pr ? pr->violations : 0;
	*malformed = pr ? pr->malformed : 0;
}

int sbx_probes_flush(struct sbx_probes *pr, struct audit *a)
{
	if (!pr || !pr->rb)
		return 0;
	int n;
	for (int i = 0; i < 64 && (n = sbx_probes_drain(pr, a)) > 0; i++)
		;
	if (pr->audit_failed)
		return -1;
	return finish(pr, a);
}

void sbx_probes_counts(const struct sbx_probes *pr, struct sbx_probes_counts *c)
{
	memset(c, 0, sizeof(*c));
	if (!pr)
		return;
	*c = pr->cnt;
	c->lost = sbx_probes_lost(pr);
	if (pr->ncpus > 0) {
		c->lost_unknown = percpu_sum(pr->L.m.lost_ok, pr->slot, pr->ncpus);
		c->kallowed = percpu_sum(pr->L.m.kallow, pr->slot, pr->ncpus);
	}
}

void sbx_probes_stop(struct sbx_probes *pr)
{
	if (!pr)
		return;
	if (pr->slot_claimed) {
		struct pr_kdec_fds kf = kdec_fds(pr);
		pr_kdec_clear(&kf, pr->slot);
		purge_overflow(pr->L.m.overflow, pr->slot);
		if (pr->cgid)
			bpf_map_delete_elem(pr->L.m.cgroups, &pr->cgid);
		purge_slot(pr->L.m.armed, pr->slot);
		purge_slot(pr->L.m.tracked, pr->slot);
		/* the slot's ring buffer stays in `rings` for the next run (see sbx_probes_start) */
		bpf_map_delete_elem(pr->L.m.owners, &pr->slot);
	}
	if (pr->shared)
		pr_share_release(&pr->sh, &pr->L); /* the last holder detaches (idle) or unpins */
	if (pr->pidmode && pr->cfg != MAP_FAILED)
		__atomic_sub_fetch(&pr->cfg->pidmode_runs, 1, __ATOMIC_SEQ_CST);
	if (pr->cfg != MAP_FAILED)
		munmap(pr->cfg, (size_t)sysconf(_SC_PAGESIZE));
	if (pr->rb)
		ring_buffer__free(pr->rb);
	if (pr->rbfd >= 0)
		close(pr->rbfd);
	pr_bpf_close(&pr->L);
	if (pr->rootfd >= 0)
		close(pr->rootfd);
	if (pr->nsfd >= 0)
		close(pr->nsfd);
	free(pr->evbuf);
	free(pr->view);
	free(pr->exes);
	free(pr->ovf);
	free(pr);
}

void sbx_probes_set_policy(struct sbx_probes *pr, const struct policy *p)
{
	if (!pr)
		return;
	pr->pol = p;
	if (pr->slot_claimed && pr->prepared)   /* else sbx_probes_prepare() fills it */
		kdec_load(pr);
}

/* ---- the layer entry (layer.h) ----------------------------------------------------------------- */

/* The kernel's tracepoints give pids as the host's pid namespace numbers them; the probes arm the
 * run by the pid sbxsup sees. In a pid namespace of its own (a container) the two differ and the
 * probes would watch nothing while reporting themselves on: not available there. The initial pid
 * namespace has the fixed inode number PROC_PID_INIT_INO. */
static bool host_pidns(void)
{
	struct stat st;
	return stat("/proc/self/ns/pid", &st) == 0 && st.st_ino == 0xEFFFFFFCu;
}

static void pr_probe(enum layer_depth depth, struct detect *d, struct layer_probe *out)
{
	if (!host_pidns()) {
		snprintf(out->why, sizeof out->why, "sbxsup runs in a pid namespace of its own (a container): "
			 "the probes see the host's pids and would not see the run");
		snprintf(out->remedy, sizeof out->remedy, "run the container in the host's pid namespace "
			 "(--pid=host; Kubernetes hostPID: true), with CAP_BPF and CAP_PERFMON");
		return;
	}
	int rc = depth == LAYER_FUNCTIONAL
		? sbx_probes_probe_full(out->level, sizeof out->level, out->why, sizeof out->why)
		: sbx_probes_probe(out->level, sizeof out->level, out->why, sizeof out->why);
	out->available = rc == 1;
	if (!out->available)
		snprintf(out->remedy, sizeof out->remedy,
			 "run as root (CAP_BPF + CAP_PERFMON) on a kernel with BTF (/sys/kernel/btf/vmlinux)");
}

static int pr_start(const struct layer_ctx *c, void **st, char *level, size_t levellen, char *why,
		    size_t whylen)
{
	struct sbx_probes *pr = NULL;
	if (sbx_probes_begin(c->pol, c->cg.v2_id, &pr, level, levellen, why, whylen) < 0)
		return -1;
	pr->kills = c->exec_kills;
	*st = pr;
	return 0;
}

static int pr_spawned(const struct layer_ctx *c, void *st, char *why, size_t whylen)
{
	char level[300];
	if (sbx_probes_prepare(st, level, sizeof level, why, whylen) < 0)
		return -1;
	sbx_layer_set_on(c->L, layer_probes.id, "%s", level);
	return 0;
}

static int pr_replan(const struct layer_ctx *c, void *st)
{
	sbx_probes_set_policy(st, c->pol);
	return 0;
}

static void pr_on_ready(const struct layer_ctx *c, void **st, const char *status, pid_t pid, int listener)
{
	if (*st && sbx_layer_on(c->L, layer_probes.id) && sbx_probes_arm(*st, pid) < 0)
		sbx_layer_set_off(c->L, layer_probes.id, "arming the probes on pid %d failed", (int)pid);
}

static int pr_fd(const void *st)
{
	return sbx_probes_fd(st);
}

static int pr_drain(void *st, struct audit *a, bool final)
{
	if (sbx_probes_drain(st, a) < 0 && a->failed)
		return -1;
	/* the tree is dead: whatever the live count says, the overflow counts are final */
	return final && st && sbx_probes_flush(st, a) != 0 ? -1 : 0;
}

static uint64_t pr_lost(const void *st)
{
	return sbx_probes_lost(st);
}

static void pr_stop(void *st)
{
	sbx_probes_stop(st);
}

/* `serve`: a slot of the shared set held while the server lives (each run then opens the pinned
 * set: no program load, no BTF parse). */
static int pr_hold(void **st, char *level, size_t levellen, char *why, size_t whylen)
{
	struct sbx_probes *pr = NULL;
	char w[300] = "";
	if (geteuid() != 0) {
		snprintf(why, whylen, "not root (each run loads them itself, or runs without)");
		return -1;
	}
	const char *was = getenv("SBXSUP_PROBES_SHARE");
	char *saved = was ? strdup(was) : NULL;
	setenv("SBXSUP_PROBES_SHARE", "1", 1);
	int rc = sbx_probes_start(NULL, 0, &pr, level, levellen, w, sizeof w);
	if (saved)
		setenv("SBXSUP_PROBES_SHARE", saved, 1);
	else
		unsetenv("SBXSUP_PROBES_SHARE");
	free(saved);
	if (rc < 0) {
		snprintf(why, whylen, "%s (each run loads them itself)", w);
		return -1;
	}
	*st = pr;
	return 0;
}

/* A run without the probes unloads an idle shared set past its deadline (never waits for the gate). */
static void pr_expire_idle(bool on)
{
	if (!on)
		(void)pr_share_expire(false);
}

/* The dead supervisor's reference on the automatic shared set: when no other run holds the set,
 * stamp its idle deadline or unpin it (probes_share.h). */
static void pr_reclaim(void)
{
	(void)pr_share_reclaim();
}

const struct layer_ops layer_probes = {
	.id = SBX_L_PROBES,
	.name = "probes",
	.event = "kernel.violation",
	.lost = "syscalls that bypass the preload are not observed by BPF: bypasses are reported only by "
		"seccomp (notify) or the report-only sensor, which see the attempt, not its result",
	.needs_cgroup = true,
	.expire_idle = pr_expire_idle,
	.reclaim = pr_reclaim,
	.hold = pr_hold,
	.probe = pr_probe,
	.start = pr_start,
	.spawned = pr_spawned,
	.replan = pr_replan,
	.on_ready = pr_on_ready,
	.fd = pr_fd,
	.drain = pr_drain,
	.lost_events = pr_lost,
	.stop = pr_stop,
};
