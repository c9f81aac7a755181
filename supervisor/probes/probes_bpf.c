/* probes_bpf.c — see probes_bpf.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "probes_bpf.h"
#include "bpf_share.h"
#include "probes.skel.h"
#include "bpf/probes.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif
#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

static int quiet_print(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	if (getenv("SBXSUP_DEBUG_BPF"))
		return vfprintf(stderr, fmt, ap);
	(void)lvl;
	return 0;
}

static int has_cap(int cap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) != 0)
		return 0;
	return (d[cap / 32].effective >> (cap % 32)) & 1u;
}

int pr_bpf_precheck(char *why, size_t whylen)
{
	bool sys_admin = has_cap(CAP_SYS_ADMIN);
	if (!sys_admin && !(has_cap(CAP_BPF) && has_cap(CAP_PERFMON))) {
		snprintf(why, whylen, "needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN); run sbxsup as root "
			 "or grant them with setcap cap_bpf,cap_perfmon+ep");
		return 0;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		snprintf(why, whylen, "kernel has no BTF (/sys/kernel/btf/vmlinux: %s); CONFIG_DEBUG_INFO_BTF=y "
			 "is needed", strerror(errno));
		return 0;
	}
	return 1;
}

static const char *const MAP_NAMES[PR_NMAPS] = { "rings", "lost", "untracked", "armed", "tracked", "cgroups",
						  "owners", "config", "overflow", "lost_ok", "live",
						  "safe", "leaves", "kdec", "kallow" };

static int *map_slot(struct pr_maps *m, size_t i)
{
	int *f[PR_NMAPS] = { &m->rings, &m->lost, &m->untracked, &m->armed, &m->tracked, &m->cgroups,
			     &m->owners, &m->config, &m->overflow, &m->lost_ok, &m->live,
			     &m->safe, &m->leaves, &m->kdec, &m->kallow };
	return f[i];
}

static void reset(struct pr_loaded *L)
{
	memset(L, 0, sizeof(*L));
	for (size_t i = 0; i < PR_NMAPS; i++)
		*map_slot(&L->m, i) = -1;
	for (size_t i = 0; i < PR_NLINKS; i++)
		L->links[i] = -1;
}

/* Keep the fds user space needs (dups, CLOEXEC) and let the skeleton go: the links stay attached
 * through their dup'd fds (disconnected: destroying the skeleton does not detach them). */
static int keep_from_skel(struct pr_loaded *L, struct probes_bpf *s, struct bpf_link *const *links,
			  char *why, size_t whylen)
{
	struct bpf_map *maps[PR_NMAPS] = { s->maps.pr_rings, s->maps.pr_lost, s->maps.pr_untracked,
					   s->maps.pr_armed, s->maps.pr_tracked, s->maps.pr_cgroups,
					   s->maps.pr_owners, s->maps.pr_config, s->maps.pr_overflow,
					   s->maps.pr_lost_ok, s->maps.pr_live, s->maps.pr_safe,
					   s->maps.pr_leaves, s->maps.pr_kdec, s->maps.pr_kallow };
	for (size_t i = 0; i < PR_NMAPS; i++) {
		int fd = fcntl(bpf_map__fd(maps[i]), F_DUPFD_CLOEXEC, 3);
		if (fd < 0) {
			snprintf(why, whylen, "dup map fd: %s", strerror(errno));
			return -1;
		}
		*map_slot(&L->m, i) = fd;
	}
	for (size_t i = 0; i < PR_NLINKS; i++) {
		if (!links[i])
			continue;
		int fd = fcntl(bpf_link__fd(links[i]), F_DUPFD_CLOEXEC, 3);
		if (fd < 0) {
			snprintf(why, whylen, "dup link fd: %s", strerror(errno));
			return -1;
		}
		L->links[i] = fd;
	}
	for (size_t i = 0; i < PR_NLINKS; i++)
		if (links[i])
			bpf_link__disconnect(links[i]);
	return 0;
}

/* Does the kernel's BTF hold the name (a type's or a function's: btf_trace_NAME for a tracepoint,
 * a kfunc's own name)? The name is looked for, NUL to NUL, in the raw BTF, read in 64 KiB pieces:
 * the kernel BTF is not parsed a second time (libbpf parses it for the load; a parse costs ~10-30
 * ms here). A wrong yes only makes a tier fail to load (the next tier is tried); a no for
 * io_uring_submit_req is reported (uring_why) as before. */
static bool btf_has_name(const char *prefix, const char *name)
{
	char want[128];
	int wl = snprintf(want, sizeof(want), "%c%s%s%c", 0, prefix, name, 0);
	if (wl <= 0 || (size_t)wl >= sizeof(want))
		return false;
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	enum { CHUNK = 65536 };
	char *buf = malloc(CHUNK + sizeof(want));
	bool found = false;
	size_t keep = 0;
	while (buf && !found) {
		ssize_t n = read(fd, buf + keep, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		size_t have = keep + (size_t)n;
		found = memmem(buf, have, want, (size_t)wl) != NULL;
		keep = have < (size_t)wl - 1 ? have : (size_t)wl - 1;   /* a match across two pieces */
		memmove(buf, buf + have - keep, keep);
	}
	free(buf);
	close(fd);
	return found;
}

struct tier {
	const char *name;          /* "tp_btf" / "raw_tp" */
	bool btf;
	bool uring;
	bool fast;                 /* kernel fields by direct loads (bpf/probes/kread.bpf.h) */
};

/* Try one tier: open, select programs, load, attach, keep the fds. 0 ok, -1 (why). */
static int try_tier(struct pr_loaded *L, const struct tier *t, char *why, size_t whylen)
{
	struct probes_bpf *s = probes_bpf__open();
	if (!s) {
		snprintf(why, whylen, "open BPF object: %s", strerror(errno));
		return -1;
	}
	/* PR_NLINKS programs per tier; the last one (io_uring) is optional */
	struct bpf_program *btfp[PR_NLINKS] = { s->progs.btf_sys_enter, s->progs.btf_sys_exit, s->progs.btf_exec,
						s->progs.btf_fork, s->progs.btf_exit, s->progs.btf_free,
						s->progs.btf_kfree, s->progs.btf_uring };
	struct bpf_program *rawp[PR_NLINKS] = { s->progs.raw_sys_enter, s->progs.raw_sys_exit, s->progs.raw_exec,
						s->progs.raw_fork, s->progs.raw_exit, s->progs.raw_free,
						s->progs.raw_kfree, s->progs.raw_uring };
	for (size_t i = 0; i < PR_NLINKS - 1; i++) {
		bpf_program__set_autoload(btfp[i], t->btf);
		bpf_program__set_autoload(rawp[i], !t->btf);
	}
	s->rodata->pr_tstash_on = t->btf;   /* tp_btf: the syscall stash in task storage */
	s->rodata->pr_fast_reads = t->fast;
	bpf_program__set_autoload(s->progs.btf_uring, t->btf && t->uring);
	bpf_program__set_autoload(s->progs.raw_uring, !t->btf && t->uring);
	int err = probes_bpf__load(s);
	if (err) {
		snprintf(why, whylen, "%s: load/verify failed: %s", t->name, strerror(-err));
		probes_bpf__destroy(s);
		return -1;
	}
	struct bpf_program **use = t->btf ? btfp : rawp;
	struct bpf_link *links[PR_NLINKS] = { NULL };
	int rc = -1;
	for (size_t i = 0; i < PR_NLINKS - 1; i++) {
		links[i] = bpf_program__attach(use[i]);
		if (!links[i]) {
			snprintf(why, whylen, "%s: attach %s failed: %s", t->name, bpf_program__name(use[i]),
				 strerror(errno));
			goto out;
		}
	}
	L->uring_why[0] = 0;
	if (t->uring) {
		links[PR_NLINKS - 1] = bpf_program__attach(use[PR_NLINKS - 1]);
		if (!links[PR_NLINKS - 1])
			snprintf(L->uring_why, sizeof(L->uring_why), "%s:io_uring_submit_req attach failed: %s",
				 t->name, strerror(errno));
	}
	for (size_t i = 0; i < PR_NLINKS; i++)
		snprintf(L->link_names[i], sizeof(L->link_names[i]), "%s", bpf_program__name(use[i]));
	if (keep_from_skel(L, s, links, why, whylen) != 0) {
		pr_bpf_close(L);
		goto out;
	}
	snprintf(L->level, sizeof(L->level), "%s: syscalls, sched%s", t->name,
		 L->uring_why[0] || !t->uring ? "" : ", io_uring");
	snprintf(L->tier, sizeof(L->tier), "%s", t->name);
	rc = 0;
out:
	for (size_t i = 0; i < PR_NLINKS; i++)
		if (links[i])
			bpf_link__destroy(links[i]);   /* detaches unless kept (disconnected) above */
	probes_bpf__destroy(s);
	return rc;
}

int pr_bpf_load(struct pr_loaded *L, char *why, size_t whylen)
{
	reset(L);
	if (!pr_bpf_precheck(why, whylen))
		return -1;
	bool uring = btf_has_name("btf_trace_", "io_uring_submit_req");
	/* the kernel fields read by direct loads where the kernel has the bpf_rdonly_cast kfunc (6.2+);
	 * a tp_btf tier that fails with them is tried again without */
	bool cast = btf_has_name("", "bpf_rdonly_cast");
	const struct tier tiers[] = {
		{ "tp_btf", true, true, true }, { "tp_btf", true, false, true },
		{ "tp_btf", true, true, false }, { "tp_btf", true, false, false },
		{ "raw_tp", false, true, false }, { "raw_tp", false, false, false },
	};
	libbpf_print_fn_t old = libbpf_set_print(quiet_print);
	char first[256] = "", cur[256];
	int rc = -1;
	/* SBXSUP_PROBES_TIER=raw_tp skips the tp_btf tier (tests of the fallback; diagnosis) */
	const char *force = getenv("SBXSUP_PROBES_TIER");
	for (size_t i = 0; i < sizeof(tiers) / sizeof(tiers[0]); i++) {
		if ((tiers[i].uring && !uring) || (tiers[i].fast && !cast))
			continue;
		if (force && strcmp(force, tiers[i].name) != 0)
			continue;
		if (try_tier(L, &tiers[i], cur, sizeof(cur)) == 0) {
			rc = 0;
			break;
		}
		if (!first[0])
			snprintf(first, sizeof(first), "%s", cur);
	}
	libbpf_set_print(old);
	if (rc != 0) {
		snprintf(why, whylen, "no tracepoint tier could be loaded and attached (first error: %s)", first);
		return -1;
	}
	if (!uring)
		snprintf(L->uring_why, sizeof(L->uring_why),
			 "kernel BTF has no io_uring_submit_req tracepoint (io_uring ops unseen; io_uring_setup still reported)");
	return 0;
}

static int mkdir_p(const char *dir, char *why, size_t whylen)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", dir);
	for (char *p = buf + 1; ; p++) {
		if (*p == '/' || *p == 0) {
			char c = *p;
			*p = 0;
			if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
				snprintf(why, whylen, "mkdir %s: %s", buf, strerror(errno));
				return -1;
			}
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

int pr_bpf_pin(struct pr_loaded *L, const char *dir, char *why, size_t whylen)
{
	if (L->pinned || L->links[0] < 0) {
		snprintf(why, whylen, "nothing loaded");
		return -1;
	}
	if (bs_ensure_fs(why, whylen) != 0 || mkdir_p(dir, why, whylen) != 0)
		return -1;
	uint32_t k0 = 0;
	struct pr_config cfg = { .pidmode_runs = 0, .abi = PR_ABI };
	if (bpf_map_update_elem(L->m.config, &k0, &cfg, BPF_ANY) != 0) {
		snprintf(why, whylen, "write config: %s", strerror(errno));
		return -1;
	}
	char p[512];
	for (size_t i = 0; i < PR_NMAPS; i++) {
		snprintf(p, sizeof(p), "%s/map_%s", dir, MAP_NAMES[i]);
		if (bpf_obj_pin(*map_slot(&L->m, i), p) != 0) {
			snprintf(why, whylen, "pin %s: %s", p, strerror(errno));
			goto fail;
		}
	}
	for (size_t i = 0; i < PR_NLINKS; i++) {
		if (L->links[i] < 0)
			continue;
		snprintf(p, sizeof(p), "%s/link_%s", dir, L->link_names[i]);
		if (bpf_obj_pin(L->links[i], p) != 0) {
			snprintf(why, whylen, "pin %s: %s", p, strerror(errno));
			goto fail;
		}
	}
	L->pinned = true;
	return 0;
fail:;
	char w2[64];
	pr_bpf_unpin(dir, w2, sizeof(w2));
	return -1;
}

int pr_bpf_open_pinned(const char *dir, struct pr_loaded *L, char *why, size_t whylen)
{
	reset(L);
	char p[512];
	snprintf(p, sizeof(p), "%s/map_rings", dir);
	if (access(p, F_OK) != 0)
		return 1;
	/* the layout version first: a set pinned by another sbxsup may lack some maps */
	snprintf(p, sizeof(p), "%s/map_config", dir);
	int cfd = bpf_obj_get(p);
	uint32_t k0 = 0;
	struct pr_config cfg = { 0, 0 };
	if (cfd < 0 || bpf_map_lookup_elem(cfd, &k0, &cfg) != 0 || cfg.abi != PR_ABI) {
		if (cfd >= 0)
			close(cfd);
		snprintf(why, whylen, "pinned set under %s is from another sbxsup version (abi %#x, want %#x); "
			 "run sbxsup probes unload && sbxsup probes load", dir, cfg.abi, PR_ABI);
		return -1;
	}
	close(cfd);
	for (size_t i = 0; i < PR_NMAPS; i++) {
		snprintf(p, sizeof(p), "%s/map_%s", dir, MAP_NAMES[i]);
		int fd = bpf_obj_get(p);
		if (fd < 0) {
			snprintf(why, whylen, "open pinned %s: %s", p, strerror(errno));
			pr_bpf_close(L);
			return -1;
		}
		*map_slot(&L->m, i) = fd;
	}
	/* the tier: by its sys_exit link, or its pinned program (an idle shared set: detached) */
	const char *tier = NULL;
	static const char *const kinds[] = { "link", "prog" };
	for (size_t k = 0; k < 2 && !tier; k++) {
		snprintf(p, sizeof(p), "%s/%s_btf_sys_exit", dir, kinds[k]);
		if (access(p, F_OK) == 0)
			tier = "tp_btf";
		snprintf(p, sizeof(p), "%s/%s_raw_sys_exit", dir, kinds[k]);
		if (!tier && access(p, F_OK) == 0)
			tier = "raw_tp";
	}
	if (!tier) {
		snprintf(why, whylen, "pinned set under %s has no sys_exit link (damaged; run sbxsup probes unload)", dir);
		pr_bpf_close(L);
		return -1;
	}
	snprintf(p, sizeof(p), "%s/link_%s_uring", dir, tier[0] == 't' ? "btf" : "raw");
	bool uring = access(p, F_OK) == 0;
	snprintf(p, sizeof(p), "%s/prog_%s_uring", dir, tier[0] == 't' ? "btf" : "raw");
	uring = uring || access(p, F_OK) == 0;
	if (!uring)
		snprintf(L->uring_why, sizeof(L->uring_why), "io_uring_submit_req not attached in the pinned set");
	L->pinned = true;
	snprintf(L->level, sizeof(L->level), "%s: syscalls, sched%s", tier, uring ? ", io_uring" : "");
	snprintf(L->tier, sizeof(L->tier), "%s", tier);
	return 0;
}

int pr_bpf_unpin(const char *dir, char *why, size_t whylen)
{
	static const char *const links[] = { "btf_sys_enter", "btf_sys_exit", "btf_exec", "btf_fork", "btf_exit",
					     "btf_free", "btf_kfree", "btf_uring", "raw_sys_enter", "raw_sys_exit",
					     "raw_exec", "raw_fork", "raw_exit", "raw_free", "raw_kfree", "raw_uring" };
	/* maps of older layouts too ("map_*" listed by readdir would also do; these are all there were) */
	char p[512];
	int rc = 0;
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		for (int k = 0; k < 2; k++) {      /* links, and the programs of an automatic set */
			snprintf(p, sizeof(p), "%s/%s_%s", dir, k ? "prog" : "link", links[i]);
			if (unlink(p) != 0 && errno != ENOENT) {
				snprintf(why, whylen, "unlink %s: %s", p, strerror(errno));
				rc = -1;
			}
		}
	}
	for (size_t i = 0; i < PR_NMAPS; i++) {
		snprintf(p, sizeof(p), "%s/map_%s", dir, MAP_NAMES[i]);
		if (unlink(p) != 0 && errno != ENOENT) {
			snprintf(why, whylen, "unlink %s: %s", p, strerror(errno));
			rc = -1;
		}
	}
	if (rmdir(dir) != 0 && errno != ENOENT) {
		snprintf(why, whylen, "rmdir %s: %s", dir, strerror(errno));
		rc = -1;
	}
	return rc;
}

void pr_bpf_close(struct pr_loaded *L)
{
	for (size_t i = 0; i < PR_NLINKS; i++)
		if (L->links[i] >= 0)
			close(L->links[i]);         /* a private load detaches here */
	for (size_t i = 0; i < PR_NMAPS; i++) {
		int *fd = map_slot(&L->m, i);
		if (*fd >= 0)
			close(*fd);
	}
	bool pinned = L->pinned;
	reset(L);
	L->pinned = pinned;
}

static const char *const BTF_NAMES[PR_NLINKS] = { "btf_sys_enter", "btf_sys_exit", "btf_exec", "btf_fork",
						   "btf_exit", "btf_free", "btf_kfree", "btf_uring" };
static const char *const RAW_NAMES[PR_NLINKS] = { "raw_sys_enter", "raw_sys_exit", "raw_exec", "raw_fork",
						   "raw_exit", "raw_free", "raw_kfree", "raw_uring" };
/* the raw_tp programs' tracepoints, in the same order (their SEC names in bpf/probes.bpf.c) */
static const char *const TP_NAMES[PR_NLINKS] = { "sys_enter", "sys_exit", "sched_process_exec",
						  "sched_process_fork", "sched_process_exit", "sched_process_free",
						  "kmem_cache_free", "io_uring_submit_req" };

int pr_bpf_pin_progs(const struct pr_loaded *L, const char *dir, char *why, size_t whylen)
{
	char p[512];
	for (size_t i = 0; i < PR_NLINKS; i++) {
		if (L->links[i] < 0)
			continue;
		struct bpf_link_info info;
		uint32_t len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(L->links[i], &info, &len) != 0) {
			snprintf(why, whylen, "link info of %s: %s", L->link_names[i], strerror(errno));
			return -1;
		}
		int fd = bpf_prog_get_fd_by_id(info.prog_id);
		if (fd < 0) {
			snprintf(why, whylen, "program of %s: %s", L->link_names[i], strerror(errno));
			return -1;
		}
		snprintf(p, sizeof(p), "%s/prog_%s", dir, L->link_names[i]);
		int rc = bpf_obj_pin(fd, p);
		int e = errno;
		close(fd);
		if (rc != 0) {
			snprintf(why, whylen, "pin %s: %s", p, strerror(e));
			return -1;
		}
	}
	return 0;
}

/* The hooks an idle set detaches: the ones every process of the host pays on hot paths (every
 * system call, every slab free). The process-tree hooks (exec, fork, exit, free) and io_uring's
 * submit stay attached while idle: they run on calls that cost far more than their lookup (a fork,
 * an exec), find no run's entry and return; each attach or detach patches kernel text and waits for
 * every CPU (~0.15-0.3 ms each here), so keeping them saves a warm run most of that cost twice. */
static bool detach_when_idle(size_t i)
{
	return i == 0 || i == 1 || i == 6;          /* sys_enter, sys_exit, kmem_cache_free */
}

int pr_bpf_detach_pinned(const char *dir)
{
	char p[512];
	int rc = 0;
	for (size_t i = 0; i < PR_NLINKS; i++) {
		if (!detach_when_idle(i))
			continue;
		snprintf(p, sizeof(p), "%s/prog_%s", dir, BTF_NAMES[i]);
		bool btf = access(p, F_OK) == 0;
		snprintf(p, sizeof(p), "%s/prog_%s", dir, RAW_NAMES[i]);
		bool raw = access(p, F_OK) == 0;
		if (!btf && !raw)
			continue;                  /* no program pinned: keep its link (nothing to re-attach) */
		snprintf(p, sizeof(p), "%s/link_%s", dir, btf ? BTF_NAMES[i] : RAW_NAMES[i]);
		if (unlink(p) != 0 && errno != ENOENT)
			rc = -1;
	}
	return rc;
}

int pr_bpf_attach_pinned(const char *dir, const char *tier, char *why, size_t whylen)
{
	bool raw = strcmp(tier, "raw_tp") == 0;
	const char *const *names = raw ? RAW_NAMES : BTF_NAMES;
	char p[512], l[512];
	for (size_t i = 0; i < PR_NLINKS; i++) {
		snprintf(l, sizeof(l), "%s/link_%s", dir, names[i]);
		if (access(l, F_OK) == 0)
			continue;                  /* attached */
		snprintf(p, sizeof(p), "%s/prog_%s", dir, names[i]);
		int pfd = bpf_obj_get(p);
		if (pfd < 0) {
			if (errno == ENOENT && i == PR_NLINKS - 1)
				break;             /* io_uring is optional */
			snprintf(why, whylen, "open pinned %s: %s", p, strerror(errno));
			return -1;
		}
		/* tp_btf: the tracepoint is the program's own (its BTF id, set at load) */
		int lfd = bpf_raw_tracepoint_open(raw ? TP_NAMES[i] : NULL, pfd);
		int e = errno;
		close(pfd);
		if (lfd < 0) {
			snprintf(why, whylen, "attach %s: %s", names[i], strerror(e));
			return -1;
		}
		int rc = bpf_obj_pin(lfd, l);
		e = errno;
		close(lfd);
		if (rc != 0) {
			snprintf(why, whylen, "pin %s: %s", l, strerror(e));
			return -1;
		}
	}
	return 0;
}

int pr_bpf_hold_links(const char *dir, struct pr_loaded *L, char *why, size_t whylen)
{
	const char *const *names = strcmp(L->tier, "raw_tp") == 0 ? RAW_NAMES : BTF_NAMES;
	char p[512];
	for (size_t i = 0; i < PR_NLINKS; i++) {
		snprintf(p, sizeof(p), "%s/link_%s", dir, names[i]);
		int fd = bpf_obj_get(p);
		if (fd < 0) {
			if (i == PR_NLINKS - 1 && errno == ENOENT)
				break;              /* io_uring is optional */
			snprintf(why, whylen, "open pinned %s: %s", p, strerror(errno));
			return -1;
		}
		L->links[i] = fd;
	}
	return 0;
}
