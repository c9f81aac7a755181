/* preload.c — libsbxpreload.so: the one process-wide state and its initialisation.
 *
 * Promise: all process-wide state of the library is the struct `sbx_pl` below. It is set up once,
 * by the constructor (which gets argc/argv from glibc) or, if some other library's constructor
 * calls an interposed function first, lazily by that call. Set-up:
 *   - passive in the stage: argv[1] is "__stage" and /proc/self/exe is the very file (st_dev,
 *     st_ino) the supervisor recorded in the sealed policy (pol_stage_exe) -> no enforcement and
 *     no ack; a copy or a program merely named "sbxsup" enforces;
 *   - saves LD_PRELOAD (or, if it is absent, the library's own path) and the SBXSUP_* variables,
 *     for the exec interposers to put back;
 *   - maps SBXSUP_POLICY_FD (a memfd that must carry F_SEAL_WRITE) PROT_READ/MAP_PRIVATE and
 *     validates it with pol_open(); when the policy is absent or invalid it prints one
 *     "sbxsup-preload: " line and fails CLOSED: every decision denies (and is still reported);
 *   - the constructor sends one SBX_REC_ACK record; the destructor sends what reporting could not
 *     send earlier (report.c).
 * The state is only ever appended to after set-up (address table, directory cache), lock-free, so
 * a fork child or a signal handler never waits for a lock.
 */
#include "pl.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Zero-initialised (.bss, not .data): untouched pages of the tables cost no memory. The fds are
 * set to -1 by the initialising thread before any other thread may look at them. */
struct sbx_pl sbx_pl;

static atomic_int init_owner; /* tid of the thread initialising, 0 when none */

const char *const sbx_pl_env_names[SBX_PL_ENV_N] = {
	"LD_PRELOAD", SBX_ENV_POLICY_FD, SBX_ENV_REPORT_FD, SBX_ENV_RUN, SBX_ENV_REPORT_ADDR,
};
#define env_names sbx_pl_env_names

static void say(const char *msg)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "sbxsup-preload: %s\n", msg);
	if (n > 0)
		(void)!write(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* getenv without libc's: the set-up runs in every process of the run, and each libc function it
 * calls can fault in another 64 KiB of libc's code the program itself may never use (issue 16).
 * The same reason for the raw fstat/fcntl/mmap/getsockopt below. */
static const char *env_get(const char *name)
{
	extern char **environ;
	size_t n = strlen(name);
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

/* Strict decimal fd number. */
static int parse_fd(const char *s)
{
	long v = 0;
	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 1000000)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return (int)v;
}

/* out = "name=value" when it fits (else left empty). */
static void set_pair(char out[SBX_PL_ENV_MAX], const char *name, const char *value)
{
	if (!value)
		return;
	size_t n = strlen(name), v = strlen(value);
	if (n + 1 + v >= SBX_PL_ENV_MAX)
		return;
	memcpy(out, name, n);
	out[n] = '=';
	memcpy(out + n + 1, value, v + 1);
}

static void save_env(void)
{
	for (int i = 0; i < SBX_PL_ENV_N; i++) {
		sbx_pl.env[i][0] = 0;
		set_pair(sbx_pl.env[i], env_names[i], env_get(env_names[i]));
	}
	/* Loaded through /etc/ld.so.preload after the environment was stripped: name ourselves. */
	if (!sbx_pl.env[0][0]) {
		Dl_info di;
		if (dladdr((void *)&sbx_pl_init, &di) && di.dli_fname && di.dli_fname[0] == '/')
			set_pair(sbx_pl.env[0], env_names[0], di.dli_fname);
	}
}

/* True when SBX_PL_REPORT_FIXED is a socket (raw stat: nothing of ours is interposed). */
static bool fixed_report_sock(void)
{
	struct stat st;
	return sbx_sys(SYS_newfstatat, AT_FDCWD, (long)SBX_PL_REPORT_FIXED, (long)&st, 0, 0, 0) == 0 &&
	       S_ISSOCK(st.st_mode);
}

/* Reads argv[1] from /proc/self/cmdline (lazy initialisation has no argv). */
static bool argv1_from_proc(char *out, size_t len)
{
	char buf[256];
	int fd = (int)sbx_sys(SYS_openat, AT_FDCWD, (long)"/proc/self/cmdline", O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return false;
	long n = sbx_sys(SYS_read, fd, (long)buf, sizeof buf - 1, 0, 0, 0);
	sbx_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	if (n <= 0)
		return false;
	buf[n] = 0;
	size_t a0 = strlen(buf);
	if ((long)a0 + 1 >= n)
		return false;
	snprintf(out, len, "%s", buf + a0 + 1);
	return true;
}

static bool argv1_is_stage(int argc, char **argv)
{
	char a1[64] = "";
	if (argv && argc > 1 && argv[1])
		snprintf(a1, sizeof a1, "%s", argv[1]);
	else if (!argv && !argv1_from_proc(a1, sizeof a1))
		return false;
	return strcmp(a1, "__stage") == 0;
}

/* The stage is sbxsup's own binary — the very file (st_dev, st_ino) the supervisor recorded in
 * the sealed policy — started with "__stage". A copy or a program merely named "sbxsup" is not
 * (issue 15): its name proves nothing. */
static bool is_stage(const struct policy *p)
{
	uint64_t dev, ino;
	struct stat st;
	if (p == NULL || !pol_stage_exe(p, &dev, &ino))
		return false;
	if (sbx_sys(SYS_newfstatat, AT_FDCWD, (long)"/proc/self/exe", (long)&st, 0, 0, 0) != 0)
		return false;
	return (uint64_t)st.st_dev == dev && (uint64_t)st.st_ino == ino;
}

/* Maps and validates a policy blob of `size` bytes from fd. NULL with *why on any problem. */
static const struct policy *map_blob(int fd, off_t size, const char **why)
{
	if (size <= 0 || (uint64_t)size > POL_MAX_BLOB) {
		*why = "the policy has an invalid size";
		return NULL;
	}
	long mr = sbx_sys(SYS_mmap, 0, (long)size, PROT_READ, MAP_PRIVATE, fd, 0);
	void *blob = (void *)mr;
	if (mr == -1) {
		*why = "cannot map the policy";
		return NULL;
	}
	const struct policy *p = pol_open(blob, (size_t)size, why);
	if (!p)
		sbx_sys(SYS_munmap, (long)blob, (long)size, 0, 0, 0, 0);
	return p;
}

/* The policy of SBXSUP_POLICY_FD (a memfd that must carry F_SEAL_WRITE), or NULL with *why. The
 * descriptor is kept (children of a run whose channel is the environment inherit it). */
static const struct policy *map_policy_env(const char **why)
{
	struct stat st;
	int fd = parse_fd(env_get(SBX_ENV_POLICY_FD));
	if (fd < 0) {
		*why = "SBXSUP_POLICY_FD is not set";
		return NULL;
	}
	if (sbx_sys(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) != 0 || !S_ISREG(st.st_mode)) {
		*why = "SBXSUP_POLICY_FD is not an open memfd";
		return NULL;
	}
	int seals = (int)sbx_sys(SYS_fcntl, fd, F_GET_SEALS, 0, 0, 0, 0);
	if (seals < 0 || !(seals & F_SEAL_WRITE) || !(seals & F_SEAL_SHRINK)) {
		*why = "the policy memfd is not sealed against writing";
		return NULL;
	}
	const struct policy *p = map_blob(fd, st.st_size, why);
	if (p) {
		sbx_pl.policy_fd = fd;
		sbx_pl.policy_dev = st.st_dev;
		sbx_pl.policy_ino = st.st_ino;
	}
	return p;
}

/* The policy at SBX_PL_POLICY_FIXED, trusted only as a regular file on a read-only mount (the
 * sandbox's; the executor can make no mount). The descriptor is closed at once: nothing of ours
 * stays open. NULL when absent or not trustworthy (*why says which, "" when simply absent). */
static const struct policy *map_policy_fixed(const char **why)
{
	*why = "";
	int fd = (int)sbx_sys(SYS_openat, AT_FDCWD, (long)SBX_PL_POLICY_FIXED,
			      O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0, 0, 0);
	if (fd < 0)
		return NULL;
	struct stat st;
	struct statfs sf;
	const struct policy *p = NULL;
	if (sbx_sys(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) != 0 || !S_ISREG(st.st_mode) ||
	    sbx_sys(SYS_fstatfs, fd, (long)&sf, 0, 0, 0, 0) != 0 || !(sf.f_flags & ST_RDONLY))
		*why = SBX_PL_POLICY_FIXED " is not a file on a read-only mount";
	else if (!(p = map_blob(fd, st.st_size, why)) && !*why)
		*why = SBX_PL_POLICY_FIXED " is not a valid policy";
	sbx_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	if (p || !*why)
		*why = "";
	return p;
}

static int do_init(int argc, char **argv)
{
	int saved = errno;
	const char *why = NULL, *fwhy = "";
	/* The fixed path first: when it is there it is the sandbox's and is always enforced. */
	const struct policy *fixed = map_policy_fixed(&fwhy);
	const struct policy *envp = env_get(SBX_ENV_POLICY_FD) ? map_policy_env(&why) : NULL;
	if (argv1_is_stage(argc, argv) && is_stage(fixed ? fixed : envp)) {
		errno = saved;
		return SBX_PL_PASSIVE;
	}
	if (fwhy && fwhy[0])
		say(fwhy);
	sbx_pl.fixed = fixed && !env_get(SBX_ENV_POLICY_FD) && !env_get(SBX_ENV_REPORT_FD) &&
		       !env_get(SBX_ENV_REPORT_ADDR);
	if (!sbx_pl.fixed)
		save_env();
	int rfd = parse_fd(env_get(SBX_ENV_REPORT_FD));
	const char *ra = env_get(SBX_ENV_REPORT_ADDR);
	if (!ra && fixed_report_sock()) {
		/* no address in the environment: the sandbox's fixed socket */
		ra = SBX_PL_REPORT_FIXED;
		if (!sbx_pl.fixed)
			set_pair(sbx_pl.env[SBX_PL_ENV_REPORT_ADDR], env_names[SBX_PL_ENV_REPORT_ADDR], ra);
	}
	if (ra && strlen(ra) < sizeof sbx_pl.report_addr)
		memcpy(sbx_pl.report_addr, ra, strlen(ra) + 1);
	struct stat st;
	int dom = 0, type = 0;
	socklen_t sl = sizeof dom, tl = sizeof type;
	if (rfd >= 0 && sbx_sys(SYS_fstat, rfd, (long)&st, 0, 0, 0, 0) == 0 && S_ISSOCK(st.st_mode) &&
	    sbx_sys(SYS_getsockopt, rfd, SOL_SOCKET, SO_DOMAIN, (long)&dom, (long)&sl, 0) == 0 &&
	    dom == AF_UNIX &&
	    sbx_sys(SYS_getsockopt, rfd, SOL_SOCKET, SO_TYPE, (long)&type, (long)&tl, 0) == 0 &&
	    type == SOCK_DGRAM) {
		sbx_pl.report_fd = rfd;
		sbx_pl.report_dev = st.st_dev;
		sbx_pl.report_ino = st.st_ino;
	} else if (!sbx_pl.report_addr[0]) {
		say("SBXSUP_REPORT_FD is not an AF_UNIX datagram socket: denials will not be reported");
	}

	const struct policy *p = envp ? envp : fixed;
	if (!p && fwhy && fwhy[0])
		why = fwhy;
	int mode;
	if (p) {
		sbx_pl.pol = p;
		sbx_pl.pol2 = envp && fixed ? fixed : NULL;
		sbx_pl.code_exec = pol_code_exec(p) && (!sbx_pl.pol2 || pol_code_exec(sbx_pl.pol2));
		sbx_pl.net_mode = pol_net_mode(p);
		if (sbx_pl.pol2 && pol_net_mode(sbx_pl.pol2) < sbx_pl.net_mode)
			sbx_pl.net_mode = pol_net_mode(sbx_pl.pol2);
		mode = SBX_PL_ENFORCE;
	} else {
		char msg[300];
		snprintf(msg, sizeof msg, "policy unavailable (%s): failing closed, every access that "
			 "needs a decision is denied", why ? why : "unknown");
		say(msg);
		sbx_pl.code_exec = false;
		sbx_pl.net_mode = POL_NET_NONE;
		mode = SBX_PL_CLOSED;
	}
	errno = saved;
	return mode;
}

int sbx_pl_init(int argc, char **argv)
{
	int m = atomic_load_explicit(&sbx_pl.mode, memory_order_acquire);
	if (m != SBX_PL_UNINIT)
		return m;
	int self = (int)sbx_sys(SYS_gettid, 0, 0, 0, 0, 0, 0);
	int none = 0;
	if (!atomic_compare_exchange_strong(&init_owner, &none, self)) {
		if (none == self)  /* re-entered from our own set-up (dlsym, getenv): nothing to decide yet */
			return SBX_PL_PASSIVE;
		while ((m = atomic_load_explicit(&sbx_pl.mode, memory_order_acquire)) == SBX_PL_UNINIT)
			sched_yield();
		return m;
	}
	sbx_pl.policy_fd = -1;
	sbx_pl.report_fd = -1;
	m = do_init(argc, argv);
	atomic_store_explicit(&sbx_pl.mode, m, memory_order_release);
	return m;
}

__attribute__((constructor)) static void sbx_pl_ctor(int argc, char **argv, char **envp)
{
	(void)envp;
	if (sbx_pl_init(argc, argv) != SBX_PL_PASSIVE) {
		pthread_atfork(NULL, NULL, sbx_report_forked);
		sbx_pl_fds_relocate();
		sbx_report_ack();
	}
}

__attribute__((destructor)) static void sbx_pl_dtor(void)
{
	int m = atomic_load(&sbx_pl.mode);
	if (m == SBX_PL_ENFORCE || m == SBX_PL_CLOSED)
		sbx_report_flush();
}

/* ---- resolved-address table -------------------------------------------------------------------- */

void sbx_pl_addr_add(const char *name, int family, const void *addr)
{
	unsigned i = atomic_fetch_add(&sbx_pl.addr_next, 1u) % SBX_PL_ADDRS;
	struct sbx_pl_addr *e = &sbx_pl.addrs[i];
	unsigned s = atomic_load(&e->seq);
	if (s & 1u)                       /* someone else is writing this slot: skip, not block */
		return;
	if (!atomic_compare_exchange_strong(&e->seq, &s, s + 1u))
		return;
	e->family = family;
	memset(e->addr, 0, sizeof e->addr);
	memcpy(e->addr, addr, family == AF_INET6 ? 16 : 4);
	snprintf(e->name, sizeof e->name, "%s", name);
	atomic_store(&e->seq, s + 2u);
}

bool sbx_pl_addr_find(int family, const void *addr, char *namebuf, size_t len)
{
	size_t alen = family == AF_INET6 ? 16 : 4;
	for (unsigned i = 0; i < SBX_PL_ADDRS; i++) {
		struct sbx_pl_addr *e = &sbx_pl.addrs[i];
		unsigned s1 = atomic_load(&e->seq);
		if (s1 == 0 || (s1 & 1u))
			continue;
		bool hit = e->family == family && memcmp(e->addr, addr, alen) == 0;
		if (hit)
			snprintf(namebuf, len, "%s", e->name);
		if (atomic_load(&e->seq) != s1)
			continue;                 /* torn: ignore this slot */
		if (hit)
			return true;
	}
	return false;
}

/* ---- path cache -------------------------------------------------------------------------------- */

#define PROBES 8

static uint32_t fnv(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* The slot table holds entry numbers (+1; 0 = empty); entries are taken from the pool in order,
 * filled, then published in a slot with a release store: a reader sees a complete entry or none.
 * Sequential entries keep the memory touched proportional to the entries used (16 per page),
 * not scattered over the whole table. */
bool sbx_pl_dir_known(const char *path, size_t len)
{
	if (len >= SBX_PL_DIRPATH)
		return false;
	uint32_t h = fnv(path, len);
	for (unsigned k = 0; k < PROBES; k++) {
		unsigned e = atomic_load_explicit(&sbx_pl.dir_slot[(h + k) % SBX_PL_DIRSLOTS],
						  memory_order_acquire);
		if (e == 0)
			return false;
		const struct sbx_pl_dir *d = &sbx_pl.dirs[e - 1];
		if (d->hash == h && d->len == len && memcmp(d->path, path, len) == 0)
			return true;
	}
	return false;
}

void sbx_pl_dir_add(const char *path, size_t len)
{
	if (len >= SBX_PL_DIRPATH || sbx_pl_dir_known(path, len))
		return;
	unsigned i = atomic_fetch_add(&sbx_pl.dir_next, 1u);
	if (i >= SBX_PL_DIRCACHE)
		return; /* full: later paths are simply not cached */
	struct sbx_pl_dir *d = &sbx_pl.dirs[i];
	uint32_t h = fnv(path, len);
	memcpy(d->path, path, len);
	d->path[len] = 0;
	d->len = (uint16_t)len;
	d->hash = h;
	for (unsigned k = 0; k < PROBES; k++) {
		unsigned zero = 0;
		if (atomic_compare_exchange_strong_explicit(&sbx_pl.dir_slot[(h + k) % SBX_PL_DIRSLOTS],
							    &zero, i + 1, memory_order_release,
							    memory_order_relaxed))
			return;
	}
}
