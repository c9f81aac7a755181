/* landlock_layer.c — the Landlock layer (see landlock_layer.h for the promise).
 *
 * Raw syscalls. The system's linux/landlock.h may predate the ABI we use (Debian 12 ships ABI 2
 * headers), so the structures and constants of ABI 1..7 are defined here under our own names.
 */
#include "landlock_layer.h"
#include "layer.h"

#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "elfcheck.h"
#include "grant_link.h"
#include "landlock_deny.h"
#include "seccomp_layer.h" /* sbx_seccomp_listener_possible: who holds a deny */

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <dirent.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

/* --- ABI definitions (include/uapi/linux/landlock.h, ABI 7) ---------------------------------- */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;   /* ABI 4 */
	uint64_t scoped;               /* ABI 6 */
};
struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));
struct ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};
#define LL_CREATE_RULESET_VERSION (1u << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2

#define LL_FS_EXECUTE     (1ull << 0)
#define LL_FS_WRITE_FILE  (1ull << 1)
#define LL_FS_READ_FILE   (1ull << 2)
#define LL_FS_READ_DIR    (1ull << 3)
#define LL_FS_REMOVE_DIR  (1ull << 4)
#define LL_FS_REMOVE_FILE (1ull << 5)
#define LL_FS_MAKE_CHAR   (1ull << 6)
#define LL_FS_MAKE_DIR    (1ull << 7)
#define LL_FS_MAKE_REG    (1ull << 8)
#define LL_FS_MAKE_SOCK   (1ull << 9)
#define LL_FS_MAKE_FIFO   (1ull << 10)
#define LL_FS_MAKE_BLOCK  (1ull << 11)
#define LL_FS_MAKE_SYM    (1ull << 12)
#define LL_FS_REFER       (1ull << 13) /* ABI 2 */
#define LL_FS_TRUNCATE    (1ull << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV   (1ull << 15) /* ABI 5 */

#define LL_NET_BIND_TCP    (1ull << 0)  /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ull << 1)

#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ull << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL               (1ull << 1)

#define LL_RESTRICT_SELF_LOG_SAME_EXEC_OFF (1u << 0) /* ABI 7 */
#define LL_RESTRICT_SELF_LOG_NEW_EXEC_ON   (1u << 1)

#define LL_FS_ABI1 ((1ull << 13) - 1)
#define LL_FS_FILE (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)
#define LL_FS_READ_SET (LL_FS_READ_FILE | LL_FS_READ_DIR)
#define LL_FS_WRITE_SET (LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_DIR | \
			 LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | LL_FS_MAKE_SYM | LL_FS_REFER | \
			 LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

static const struct { uint64_t bit; const char *name; } fs_names[] = {
	{LL_FS_EXECUTE, "execute"}, {LL_FS_WRITE_FILE, "write_file"}, {LL_FS_READ_FILE, "read_file"},
	{LL_FS_READ_DIR, "read_dir"}, {LL_FS_REMOVE_DIR, "remove_dir"}, {LL_FS_REMOVE_FILE, "remove_file"},
	{LL_FS_MAKE_CHAR, "make_char"}, {LL_FS_MAKE_DIR, "make_dir"}, {LL_FS_MAKE_REG, "make_reg"},
	{LL_FS_MAKE_SOCK, "make_sock"}, {LL_FS_MAKE_FIFO, "make_fifo"}, {LL_FS_MAKE_BLOCK, "make_block"},
	{LL_FS_MAKE_SYM, "make_sym"}, {LL_FS_REFER, "refer"}, {LL_FS_TRUNCATE, "truncate"},
	{LL_FS_IOCTL_DEV, "ioctl_dev"},
};

static int ll_abi(void)
{
	long r = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	return r < 0 ? -errno : (int)r;
}

static uint64_t fs_handled(int abi)
{
	uint64_t h = LL_FS_ABI1;
	if (abi >= 2)
		h |= LL_FS_REFER;
	if (abi >= 3)
		h |= LL_FS_TRUNCATE;
	if (abi >= 5)
		h |= LL_FS_IOCTL_DEV;
	return h;
}

static void appendf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	if (n + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* What an ABI lacks, right by right. */
static void degraded_text(int abi, char *out, size_t len)
{
	out[0] = 0;
	if (abi < 2)
		appendf(out, len, "abi %d: no REFER right (cross-directory rename/link always refused); ", abi);
	if (abi < 3)
		appendf(out, len, "abi %d: no TRUNCATE right (truncate(2) of granted files not restricted); ", abi);
	if (abi < 4)
		appendf(out, len, "abi %d: no TCP port rules; ", abi);
	if (abi < 5)
		appendf(out, len, "abi %d: no IOCTL_DEV right (device ioctls not restricted); ", abi);
	if (abi < 6)
		appendf(out, len, "abi %d: no signal / abstract unix socket scoping; ", abi);
	if (abi < 7)
		appendf(out, len, "abi %d: no Landlock audit flags; ", abi);
	size_t n = strlen(out);
	if (n >= 2)
		out[n - 2] = 0;
}

static const char *abi_err(int e)
{
	switch (e) {
	case ENOSYS: return "kernel without Landlock (CONFIG_SECURITY_LANDLOCK, needs Linux >= 5.13)";
	case EOPNOTSUPP: return "Landlock is disabled at boot (add landlock to the lsm= kernel parameter)";
	default: return strerror(e);
	}
}

int sbx_landlock_probe(char *why, size_t whylen)
{
	int abi = ll_abi();
	if (abi <= 0) {
		snprintf(why, whylen, "%s", abi_err(-abi));
		return 0;
	}
	return abi;
}

/* Allowed rights for one table entry. */
static uint64_t entry_rights(unsigned access, bool is_dir, uint64_t handled)
{
	uint64_t a = 0;
	if (access & (POL_READ | POL_WRITE))
		a |= LL_FS_READ_SET;
	if (access & POL_EXEC)
		a |= LL_FS_EXECUTE;
	if (access & POL_WRITE)
		a |= LL_FS_WRITE_SET;
	if (access & POL_LIST) /* policy.h: names only (/etc entered entry by entry) */
		a |= LL_FS_READ_DIR;
	if (access & LL_POL_NAMES) /* landlock_deny.h: a write grant entered around a deny's match */
		a |= LL_FS_WRITE_SET & ~(LL_FS_WRITE_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV);
	if (!is_dir)
		a &= LL_FS_FILE;
	return a & handled;
}

/* The net decision (shared by apply and plan). Returns true when TCP is handled. */
static bool net_handled(enum pol_net_mode mode, bool portless, bool netfilter, bool own_netns, int abi,
			char *why, size_t whylen)
{
	why[0] = 0;
	if (own_netns) {
		/* Landlock has ports, not addresses: a rule could not let the run's own loopback through
		 * on every port while refusing the same port elsewhere. The namespace has no way out but
		 * the gateway (docs/network.md). */
		snprintf(why, whylen, "the run's own network namespace (loopback is the run's; out only through the gateway)");
		return false;
	}
	if (netfilter) {
		/* issue 15: a silent layer must not pre-empt the reporting one. netfilter enforces the
		 * hosts (address and port) and writes netfilter.deny; a Landlock port rule would refuse
		 * first with EACCES and nothing in the stream. Landlock is the backstop where it is off. */
		snprintf(why, whylen, "netfilter's");
		return false;
	}
	if (abi < 4) {
		snprintf(why, whylen, "abi %d < 4: no TCP port rules", abi);
		return false;
	}
	if (mode == POL_NET_ANY) {
		snprintf(why, whylen, "network unrestricted (autonomy full or a network capability without hosts)");
		return false;
	}
	if (mode == POL_NET_LIST && portless) {
		snprintf(why, whylen, "a granted host has no port: Landlock rules are ports only, so TCP is "
			 "left to netfilter and the preload");
		return false;
	}
	return true;
}

static int add_net_port(int rfd, uint64_t access, uint16_t port)
{
	struct ll_net_port_attr na = {.allowed_access = access, .port = port};
	return (int)syscall(__NR_landlock_add_rule, rfd, LL_RULE_NET_PORT, &na, 0);
}

/* Add a rule for an O_PATH fd (consumed). */
static int add_fd_rule(int rfd, int fd, const char *path, unsigned access, uint64_t handled,
		       struct sbx_landlock_result *r, char *why, size_t whylen)
{
	struct stat st;
	if (fstat(fd, &st) < 0) {
		snprintf(why, whylen, "fstat %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	uint64_t a = entry_rights(access, S_ISDIR(st.st_mode), handled);
	if (!a) {
		close(fd);
		return 0;
	}
	struct ll_path_beneath_attr pb = {.allowed_access = a, .parent_fd = fd};
	long rc = syscall(__NR_landlock_add_rule, rfd, LL_RULE_PATH_BENEATH, &pb, 0);
	int e = errno;
	close(fd);
	if (rc < 0 && e == EBADFD) {
		/* not a filesystem Landlock can tag (e.g. /dev/stdout -> a pipe or socket): nothing to
		 * grant there — fds already open are not affected by Landlock anyway */
		r->skipped++;
		return 0;
	}
	if (rc < 0) {
		snprintf(why, whylen, "landlock_add_rule %s: %s", path, strerror(e));
		return -1;
	}
	r->rules++;
	return 0;
}

#define PROC_SUPER_MAGIC_ 0x9fa0
#define PROC_ROOT_INO 1

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* The root of a procfs: Landlock rules are "beneath", so granting the directory would grant every
 * process's /proc/<pid> tree (environ, cmdline...), wider than the policy's top-level /proc files.
 * Grant the top-level regular files one by one instead (no pid directories, no subdirectories);
 * /proc/self and /proc/thread-self come as their own table entries. */
static int add_proc_top(int rfd, int procfd, unsigned access, uint64_t handled, struct sbx_landlock_result *r,
			char *why, size_t whylen)
{
	int dfd = openat(procfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(procfd);
	if (dfd < 0) {
		r->skipped++;
		return 0;
	}
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		r->skipped++;
		return 0;
	}
	int rc = 0;
	struct dirent *de;
	while (rc == 0 && (de = readdir(d))) {
		const char *n = de->d_name;
		if (n[0] == '.' || all_digits(n) || !strcmp(n, "self") || !strcmp(n, "thread-self"))
			continue;
		int fd = openat(dirfd(d), n, O_PATH | O_CLOEXEC);
		if (fd < 0)
			continue;
		struct stat st;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd); /* subdirectories (sys, net, ...) are not top-level files */
			continue;
		}
		char path[64];
		snprintf(path, sizeof path, "/proc/%.50s", n);
		rc = add_fd_rule(rfd, fd, path, access & ~(unsigned)POL_WRITE, handled, r, why, whylen);
	}
	closedir(d);
	if (rc == 0)
		snprintf(r->notes, sizeof r->notes, "/proc: top-level files and the command's own /proc/<pid> "
			 "only (a child process cannot read its /proc/self; Landlock rules are per inode)");
	return rc;
}

/* A procfs that shows only this sandbox: it belongs to our own pid namespace (/proc/self is our
 * pid), that namespace is not the initial one, and its pid 1 is us or our parent (bwrap's init).
 * Then every /proc/<pid> in it is the sandbox's own and the tree can be granted as it is. */
#define PROC_PID_INIT_INO 0xEFFFFFFCu
static bool proc_is_private(int procfd)
{
	char buf[32], mine[32];
	ssize_t n = readlinkat(procfd, "self", buf, sizeof buf - 1);
	if (n <= 0)
		return false;
	buf[n] = 0;
	snprintf(mine, sizeof mine, "%d", (int)getpid());
	if (strcmp(buf, mine))
		return false;
	struct stat st;
	if (fstatat(procfd, "self/ns/pid", &st, 0) < 0 || st.st_ino == PROC_PID_INIT_INO)
		return false;
	return getpid() == 1 || getppid() == 1;
}

static int add_path(int rfd, const char *path, unsigned access, uint64_t handled, const struct policy *links,
		    struct sbx_landlock_result *r, char *why, size_t whylen)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == EACCES || errno == ELOOP) {
			r->skipped++; /* a grant we cannot open only narrows access */
			return 0;
		}
		snprintf(why, whylen, "open %s: %s", path, strerror(errno));
		return -1;
	}
	if (links && !sbx_grant_fd_followed(links, path, access, fd)) {
		close(fd); /* a link to what the policy does not grant: no rule (grant_link.h) */
		r->skipped++;
		return 0;
	}
	struct statfs sf;
	struct stat st;
	if (fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC_ && fstat(fd, &st) == 0 &&
	    S_ISDIR(st.st_mode) && st.st_ino == PROC_ROOT_INO) {
		if (!proc_is_private(fd))
			return add_proc_top(rfd, fd, access, handled, r, why, whylen);
		snprintf(r->notes, sizeof r->notes, "/proc: private to the sandbox's pid namespace, granted as a tree");
	}
	return add_fd_rule(rfd, fd, path, access, handled, r, why, whylen);
}


/* --- exec without code:exec: EXECUTE on the command's own exec chain only ------------------- */

/* The first word of a "#!" line (the interpreter the kernel opens), or "" when not a script. */
static void shebang_first(const char *path, char *out, size_t outlen)
{
	out[0] = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char line[256];
	ssize_t n = read(fd, line, sizeof line - 1);
	close(fd);
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return;
	line[n] = 0;
	char *s = line + 2;
	s += strspn(s, " \t");
	size_t len = strcspn(s, " \t\n");
	if (len && len < outlen)
		snprintf(out, outlen, "%.*s", (int)len, s);
}

/* One file of the chain: READ_FILE|EXECUTE as a file rule (never a directory). A file that cannot
 * be opened gets nothing: its exec then fails (closed), the caller learns it from `exec`. */
static int add_exec_file(int rfd, const char *path, uint64_t handled, struct sbx_landlock_result *r,
			 char *why, size_t whylen)
{
	if (!path || path[0] != '/')
		return 0;
	int fd = open(path, O_PATH | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		r->skipped++;
		return 0;
	}
	appendf(r->exec, sizeof r->exec, "%s%s", r->exec[0] ? " " : "", path);
	return add_fd_rule(rfd, fd, path, POL_READ | POL_EXEC, handled, r, why, whylen);
}

/* The command, its PT_INTERP; for a script its "#!" interpreter (and, through env, the program
 * env will exec) with their PT_INTERP. Files are resolved by the kernel at exec exactly as here
 * (absolute paths, symlinks followed: the rule lands on the inode). */
static int add_exec_chain(int rfd, const char *cmd, uint64_t handled, struct sbx_landlock_result *r,
			  char *why, size_t whylen)
{
	struct sbx_elf_info *ei = malloc(sizeof *ei);
	char *first = malloc(PATH_MAX);
	int rc = -1;
	if (!ei || !first) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	if (add_exec_file(rfd, cmd, handled, r, why, whylen) < 0)
		goto out;
	if (sbx_elf_inspect_env(cmd, NULL, ei) == 0) {
		if (ei->is_script) {
			char *target = strdup(ei->script_interp);
			char *interp = strdup(ei->interp);
			if (!target || !interp) {
				free(target);
				free(interp);
				snprintf(why, whylen, "out of memory");
				goto out;
			}
			shebang_first(cmd, first, PATH_MAX);
			int e = add_exec_file(rfd, first, handled, r, why, whylen);
			if (e == 0 && first[0] && strcmp(first, target) && sbx_elf_inspect_env(first, NULL, ei) == 0 &&
			    !ei->is_script)
				e = add_exec_file(rfd, ei->interp, handled, r, why, whylen); /* env's own loader */
			if (e == 0 && strcmp(first, target))
				e = add_exec_file(rfd, target, handled, r, why, whylen);
			if (e == 0)
				e = add_exec_file(rfd, interp, handled, r, why, whylen);
			free(target);
			free(interp);
			if (e < 0)
				goto out;
		} else if (add_exec_file(rfd, ei->interp, handled, r, why, whylen) < 0) {
			goto out;
		}
	}
	rc = 0;
out:
	free(ei);
	free(first);
	return rc;
}

int sbx_landlock_apply_spec(const struct sbx_landlock_spec *s, struct sbx_landlock_result *r,
			    char *why, size_t whylen)
{
	memset(r, 0, sizeof *r);
	int abi = ll_abi();
	if (abi <= 0) {
		snprintf(why, whylen, "%s", abi_err(-abi));
		return -1;
	}
	if (s->abi_cap > 0 && abi > s->abi_cap)
		abi = s->abi_cap;
	r->abi = abi;
	degraded_text(abi, r->degraded, sizeof r->degraded);

	struct ll_ruleset_attr attr = {.handled_access_fs = fs_handled(abi)};
	size_t attr_size = sizeof(uint64_t);
	bool net = net_handled(s->net_mode, s->portless, s->netfilter, s->own_netns, abi, r->net_why,
			       sizeof r->net_why);
	if (abi >= 4) {
		attr_size = 2 * sizeof(uint64_t);
		if (net)
			attr.handled_access_net = LL_NET_CONNECT_TCP | LL_NET_BIND_TCP;
	}
	if (abi >= 6) {
		attr_size = sizeof attr;
		attr.scoped = LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX_SOCKET;
	}
	int rfd = (int)syscall(__NR_landlock_create_ruleset, &attr, attr_size, 0);
	if (rfd < 0) {
		snprintf(why, whylen, "landlock_create_ruleset: %s", strerror(errno));
		return -1;
	}
	unsigned keep = s->exec_cmd_only ? ~(unsigned)POL_EXEC : ~0u;
	for (size_t i = 0; i < s->ndirs; i++)
		if (s->dirs[i].path && add_path(rfd, s->dirs[i].path, s->dirs[i].access & keep,
						attr.handled_access_fs, s->links, r, why, whylen) < 0)
			goto fail;
	r->exec_cmd_only = s->exec_cmd_only;
	if (s->exec_cmd_only) {
		if (s->cmd && add_exec_chain(rfd, s->cmd, attr.handled_access_fs, r, why, whylen) < 0)
			goto fail;
	} else if (s->cmd && s->cmd[0] == '/' &&
		   add_path(rfd, s->cmd, POL_READ | POL_EXEC, attr.handled_access_fs, NULL, r, why, whylen) < 0) {
		goto fail;
	}
	if (net && s->net_mode == POL_NET_LIST) {
		for (size_t i = 0; i < s->nports; i++)
			if (s->ports[i] && add_net_port(rfd, LL_NET_CONNECT_TCP, s->ports[i]) < 0) {
				snprintf(why, whylen, "landlock_add_rule port %u: %s", s->ports[i], strerror(errno));
				goto fail;
			}
		/* servers on granted loopback ports (issue 17). Landlock has no addresses: any local
		 * address on those ports may be bound; seccomp's bind decision (notify) narrows it to
		 * the granted loopback addresses and reports the rest. */
		for (size_t i = 0; i < s->nbind_ports; i++)
			if (s->bind_ports[i] && add_net_port(rfd, LL_NET_BIND_TCP, s->bind_ports[i]) < 0) {
				snprintf(why, whylen, "landlock_add_rule bind port %u: %s", s->bind_ports[i],
					 strerror(errno));
				goto fail;
			}
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		snprintf(why, whylen, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
		goto fail;
	}
	unsigned flags = 0;
	snprintf(r->flags, sizeof r->flags, "none");
	if (abi >= 7) {
		flags = LL_RESTRICT_SELF_LOG_SAME_EXEC_OFF | LL_RESTRICT_SELF_LOG_NEW_EXEC_ON;
		snprintf(r->flags, sizeof r->flags, "log_same_exec_off|log_new_exec_on");
	}
	if (syscall(__NR_landlock_restrict_self, rfd, flags) < 0) {
		if (!flags || errno != EINVAL) {
			snprintf(why, whylen, "landlock_restrict_self: %s", strerror(errno));
			goto fail;
		}
		/* audit flags refused: enforce without them, and say so */
		if (syscall(__NR_landlock_restrict_self, rfd, 0) < 0) {
			snprintf(why, whylen, "landlock_restrict_self: %s", strerror(errno));
			goto fail;
		}
		snprintf(r->flags, sizeof r->flags, "none (audit flags refused: EINVAL)");
	}
	close(rfd);
	r->fs = true;
	r->net = net;
	r->scope = abi >= 6;
	return 0;
fail:
	close(rfd);
	return -1;
}

/* The run's /etc is bwrap's /etc view (etc_view.h): the secrets below /etc are whiteouts there,
 * absent from the sandbox. The policy's /etc tree (its POL_TREE root and the entries below it with
 * the same rule, policy.h) then becomes one rule on /etc with the entries' rights: opening each
 * entry for its rule costs a cold lookup through the overlay, ~200 of them, and subtracts nothing
 * the view has not removed already. Entries below /etc of another rule (a write grant, a deny's
 * carve) stay as they are. Rewrites dirs[0..*n) in place. */
static void etc_tree_whole(struct pol_dir *dirs, size_t *n)
{
	size_t root = *n;
	for (size_t i = 0; i < *n && root == *n; i++)
		if ((dirs[i].access & POL_TREE) && dirs[i].path && !strcmp(dirs[i].path, "/etc"))
			root = i;
	if (root == *n)
		return;
	unsigned acc = 0;
	size_t k = 0;
	for (size_t i = 0; i < *n; i++) {
		bool below = i != root && dirs[i].rule == dirs[root].rule && dirs[i].path &&
			     !strncmp(dirs[i].path, "/etc/", 5);
		if (below)
			acc |= dirs[i].access & (POL_READ | POL_WRITE | POL_EXEC);
		else
			dirs[k++] = dirs[i];
		if (i == root)
			root = k - 1;
	}
	dirs[root].access |= acc;
	*n = k;
}

/* Collect the policy's table into a spec. Returns 0, or -1 (why). Free with spec_free. */
static int spec_from_policy(const struct policy *p, const char *cmd, bool carve_writes, bool etc_view,
			    struct ll_carve *cv, struct sbx_landlock_spec *s, char *why, size_t whylen)
{
	memset(s, 0, sizeof *s);
	memset(cv, 0, sizeof *cv);
	size_t nd = pol_dir_count(p), nn = pol_net_count(p);
	struct pol_dir *dirs = calloc(nd ? nd : 1, sizeof *dirs);
	uint16_t *ports = calloc(nn ? nn : 1, sizeof *ports);
	uint16_t *bports = calloc(nn ? nn : 1, sizeof *bports);
	if (!dirs || !ports || !bports) {
		free(dirs);
		free(ports);
		free(bports);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	size_t k = 0;
	for (size_t i = 0; i < nd; i++)
		if (pol_dir_get(p, i, &dirs[k]) == 0)
			k++;
	/* an entry through a link to what the policy does not grant (a grant, or one of a deny's
	 * carve): no rule, decided on the descriptor the rule would be made from (grant_link.h) */
	s->links = p;
	if (etc_view)
		etc_tree_whole(dirs, &k);
	/* the manifest's denies: grants holding a match entered entry by entry (landlock_deny.h) */
	if (ll_deny_carve(p, dirs, k, carve_writes, cv) < 0) {
		free(dirs);
		free(ports);
		free(bports);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	free(dirs);
	s->dirs = cv->dirs;
	s->ndirs = cv->ndirs;
	s->net_mode = pol_net_mode(p);
	s->own_netns = pol_own_netns(p);
	k = 0;
	size_t kb = 0;
	static const uint8_t v6lo[16] = {[15] = 1};
	for (size_t i = 0; i < nn; i++) {
		struct pol_net n;
		if (pol_net_get(p, i, &n) != 0)
			continue;
		if (!n.port) {
			s->portless = true;
			continue;
		}
		if ((n.family == AF_INET && n.addr[0] == 127) ||
		    (n.family == AF_INET6 && n.prefix == 128 && !memcmp(n.addr, v6lo, 16))) {
			size_t j;
			for (j = 0; j < kb && bports[j] != n.port; j++)
				;
			if (j == kb)
				bports[kb++] = n.port;
		}
		size_t j;
		for (j = 0; j < k && ports[j] != n.port; j++)
			;
		if (j == k)
			ports[k++] = n.port;
	}
	s->ports = ports;
	s->nports = k;
	s->bind_ports = bports;
	s->nbind_ports = kb;
	s->cmd = cmd;
	s->exec_cmd_only = cmd && !pol_code_exec(p); /* no command: the table as it is */
	return 0;
}

static void spec_free(struct sbx_landlock_spec *s, struct ll_carve *cv)
{
	ll_deny_carve_free(cv);
	free((void *)s->ports);
	free((void *)s->bind_ports);
}

int sbx_landlock_apply_cmd(const struct policy *p, const char *cmd, struct sbx_landlock_result *r,
			   char *why, size_t whylen)
{
	return sbx_landlock_apply_net(p, cmd, false, r, why, whylen);
}

int sbx_landlock_apply_net(const struct policy *p, const char *cmd, bool netfilter,
			   struct sbx_landlock_result *r, char *why, size_t whylen)
{
	return sbx_landlock_apply_stage(p, cmd, netfilter, true, false, r, why, whylen);
}

int sbx_landlock_apply_stage(const struct policy *p, const char *cmd, bool netfilter, bool carve_writes,
			     bool etc_view, struct sbx_landlock_result *r, char *why, size_t whylen)
{
	struct sbx_landlock_spec s;
	struct ll_carve cv;
	memset(r, 0, sizeof *r);
	if (spec_from_policy(p, cmd, carve_writes, etc_view, &cv, &s, why, whylen) < 0)
		return -1;
	s.netfilter = netfilter;
	int rc = sbx_landlock_apply_spec(&s, r, why, whylen);
	if (rc == 0 && (cv.carved || cv.note[0])) { /* the notes survive apply_spec's reset */
		size_t l = strlen(r->notes);
		if (cv.carved && l + 2 < sizeof r->notes)
			l += (size_t)snprintf(r->notes + l, sizeof r->notes - l, "%sdeny: %u grant(s) entered entry by entry",
					      l ? "; " : "", cv.carved);
		if (cv.note[0] && l + 2 < sizeof r->notes)
			snprintf(r->notes + l, sizeof r->notes - l, "%s%.*s", l ? "; " : "",
				 (int)(sizeof r->notes - l - 3), cv.note);
	}
	spec_free(&s, &cv);
	return rc;
}

int sbx_landlock_apply(const struct policy *p, struct sbx_landlock_result *r, char *why, size_t whylen)
{
	return sbx_landlock_apply_cmd(p, NULL, r, why, whylen);
}

static cJSON *rights_json(uint64_t a)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; arr && i < sizeof fs_names / sizeof fs_names[0]; i++)
		if (a & fs_names[i].bit)
			cJSON_AddItemToArray(arr, cJSON_CreateString(fs_names[i].name));
	return arr;
}

cJSON *sbx_landlock_plan(const struct policy *p, int abi, bool etc_view)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "abi", abi);
	if (abi <= 0) {
		cJSON_AddStringToObject(o, "status", "unavailable");
		return o;
	}
	char deg[512], why[256];
	degraded_text(abi, deg, sizeof deg);
	cJSON_AddStringToObject(o, "degraded", deg);
	uint64_t handled = fs_handled(abi);
	cJSON_AddItemToObject(o, "handled_fs", rights_json(handled));
	struct sbx_landlock_spec s;
	struct ll_carve cv;
	/* as with the seccomp layer on (the default): write grants are not entered around a deny */
	if (spec_from_policy(p, NULL, false, etc_view, &cv, &s, why, sizeof why) < 0) {
		cJSON_AddStringToObject(o, "error", why);
		return o;
	}
	if (cv.note[0])
		cJSON_AddStringToObject(o, "deny", cv.note);
	bool cmd_only = !pol_code_exec(p); /* what sbx_landlock_apply_cmd does with a command */
	cJSON *rules = cJSON_AddArrayToObject(o, "fs_rules");
	for (size_t i = 0; rules && i < s.ndirs; i++) {
		cJSON *r = cJSON_CreateObject();
		if (!r)
			break;
		cJSON_AddStringToObject(r, "path", s.dirs[i].path);
		struct stat st;
		if (stat(s.dirs[i].path, &st) < 0) {
			cJSON_AddStringToObject(r, "skipped", "missing");
		} else {
			unsigned acc = s.dirs[i].access & (cmd_only ? ~(unsigned)POL_EXEC : ~0u);
			cJSON_AddItemToObject(r, "access", rights_json(entry_rights(acc, S_ISDIR(st.st_mode), handled)));
			struct statfs sf;
			if (statfs(s.dirs[i].path, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC_ &&
			    S_ISDIR(st.st_mode) && st.st_ino == PROC_ROOT_INO)
				cJSON_AddStringToObject(r, "narrowed", "host /proc: its top-level regular files only, "
							"never /proc/<pid> trees (a private /proc in bwrap's pid namespace "
							"is granted whole)");
		}
		cJSON_AddStringToObject(r, "rule", pol_rule_text(p, s.dirs[i].rule));
		cJSON_AddItemToArray(rules, r);
	}
	cJSON_AddStringToObject(o, "exec_cmd", cmd_only ?
				"no code:exec: execute on no directory; only the command, its ELF interpreter and "
				"its #! interpreter (one level, through env) as file rules: read_file+execute" :
				"the command itself: read_file+execute (code:exec: executable directories above)");
	char nwhy[160];
	bool net = net_handled(s.net_mode, s.portless, false, s.own_netns, abi, nwhy, sizeof nwhy);
	cJSON *n = cJSON_AddObjectToObject(o, "net");
	if (n) {
		cJSON_AddBoolToObject(n, "handled", net);
		if (net) {
			cJSON *ports = cJSON_AddArrayToObject(n, "connect_tcp_ports");
			for (size_t i = 0; ports && s.net_mode == POL_NET_LIST && i < s.nports; i++)
				cJSON_AddItemToArray(ports, cJSON_CreateNumber(s.ports[i]));
			cJSON *bp = cJSON_AddArrayToObject(n, "bind_tcp_ports");
			for (size_t i = 0; bp && i < s.nbind_ports; i++)
				cJSON_AddItemToArray(bp, cJSON_CreateNumber(s.bind_ports[i]));
			cJSON_AddStringToObject(n, "when", "only when netfilter is off (with netfilter, TCP is left to it)");
		} else {
			cJSON_AddStringToObject(n, "why", nwhy);
		}
	}
	cJSON *sc = cJSON_AddArrayToObject(o, "scope");
	if (sc && abi >= 6) {
		cJSON_AddItemToArray(sc, cJSON_CreateString("signal"));
		cJSON_AddItemToArray(sc, cJSON_CreateString("abstract_unix_socket"));
	}
	cJSON_AddStringToObject(o, "restrict_flags", abi >= 7 ? "log_same_exec_off|log_new_exec_on" : "none");
	spec_free(&s, &cv);
	return o;
}

/* AUDIT_GET on NETLINK_AUDIT: 1 auditing enabled, 0 disabled, -1 cannot ask (no privilege, no
 * audit in the kernel, a user namespace). */
static int kernel_audit_enabled(void)
{
	/* AUDIT_GET needs CAP_AUDIT_CONTROL: without it do not even open the socket (inside another
	 * sbxsup run, seccomp refuses and reports NETLINK_AUDIT sockets) */
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) < 0 || !(d[CAP_AUDIT_CONTROL / 32].effective & (1u << (CAP_AUDIT_CONTROL % 32))))
		return -1;
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (s < 0)
		return -1;
	struct { struct nlmsghdr h; } req = {.h = {.nlmsg_len = sizeof req, .nlmsg_type = AUDIT_GET,
						   .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 1}};
	struct sockaddr_nl k = {.nl_family = AF_NETLINK};
	int rc = -1;
	struct timeval tv = {.tv_sec = 0, .tv_usec = 200000};
	if (setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0 &&
	    sendto(s, &req, sizeof req, 0, (struct sockaddr *)&k, sizeof k) == (ssize_t)sizeof req) {
		union { struct nlmsghdr h; char b[512]; } r;
		for (int i = 0; i < 4; i++) {
			ssize_t n = recv(s, &r, sizeof r, 0);
			if (n < (ssize_t)sizeof r.h)
				break;
			if (r.h.nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(&r.h);
				if ((size_t)n >= NLMSG_LENGTH(sizeof *e) && e->error)
					break;
				continue;
			}
			if (r.h.nlmsg_type == AUDIT_GET &&
			    (size_t)n >= NLMSG_LENGTH(sizeof(struct audit_status))) {
				const struct audit_status *st = NLMSG_DATA(&r.h);
				rc = st->enabled ? 1 : 0;
				break;
			}
		}
	}
	close(s);
	return rc;
}

const char *sbx_landlock_denials(int abi, bool probes, bool reporter, bool preload, char *buf, size_t len)
{
	const char *k;
	if (abi < 7) {
		k = "kernel audit: no (abi < 7)";
	} else {
		int en = kernel_audit_enabled();
		k = en == 1 ? "kernel audit log (not read into the stream)"
		  : en == 0 ? "kernel audit: off" : "kernel audit: not readable";
	}
	if (probes || reporter)
		snprintf(buf, len, "%s", probes ? "probes (kernel.violation)" : "seccomp reporter");
	else
		snprintf(buf, len, "%s%s", preload ? "preload first; " : "", k);
	return buf;
}
/* ---- the layer entry (layer.h) ----------------------------------------------------------------- */

static void ll_probe(enum layer_depth depth, struct detect *d, struct layer_probe *out)
{
	d->landlock_abi = sbx_landlock_probe(out->why, sizeof out->why);
	out->available = d->landlock_abi > 0;
	if (out->available)
		snprintf(out->level, sizeof out->level, "abi %d", d->landlock_abi);
	else
		snprintf(out->remedy, sizeof out->remedy,
			 "kernel >= 5.13 with CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= boot parameter");
}

static cJSON *ll_plan(const struct layer_ctx *c)
{
	/* as the wrapper's stage flags say (bw_wrap: "--etc-view" when it binds the view) */
	bool view = layer_wrapped(c) && layers_etc_view(c);
	return c->pol ? sbx_landlock_plan(c->pol, c->d->landlock_abi, view) : NULL;
}

/* The stage confirmed Landlock (layers_on_ready's first pass): say where its refusals are reported. */
static void ll_on_ready(const struct layer_ctx *c, void **st, const char *status, pid_t pid, int listener)
{
	(void)st, (void)status, (void)pid, (void)listener;
	if (!sbx_layer_on(c->L, layer_landlock.id))
		return;
	char lv[sizeof c->L->level[0]], d[64];
	snprintf(lv, sizeof lv, "%s", c->L->level[layer_landlock.id]);
	bool rep = sbx_layer_on(c->L, SBX_L_SECCOMP) && strstr(c->L->level[SBX_L_SECCOMP], "reporter");
	sbx_layer_set_on(c->L, layer_landlock.id, "%s; denials: %s", lv,
			 sbx_landlock_denials(atoi(lv + 4), sbx_layer_on(c->L, SBX_L_PROBES), rep,
					      sbx_layer_on(c->L, layer_preload.id), d, sizeof d));
}

/* the Landlock entry's stage op (layer.h `stage`): inside the sandbox, before the
 * capability drop, the ruleset of the compiled policy is applied to the stage and so to the command
 * (landlock_layer.h sbx_landlock_apply_stage); the status says on with its ABI level, or off and why.
 */
int sbx_landlock_stage(struct layer_stage *s, bool on)
{
	if (!on)
		return 0;
	struct sbx_landlock_result r;
	char why[512] = "", buf[900];
	memset(&r, 0, sizeof r);
	if (!s->pol) {
		layer_stage_add(s, "landlock", "off");
		layer_stage_add(s, "landlock_why", "no compiled policy in the stage");
	} else if (sbx_landlock_apply_stage(s->pol, s->cmd_path, s->netfilter,
					    /* write grants carved around a deny's match only when no
					     * seccomp deny decision stands behind Landlock: neither the
					     * layer's nor, with a listener, the sensor's or the guard's
					     * (each decides and performs every open of the deny's class; a
					     * carved workspace would not let a program made there run) */
					    !((s->on >> SBX_L_SECCOMP) & 1u) && !sbx_seccomp_listener_possible(),
					    s->etc_view, &r, why, sizeof why) < 0) {
		layer_stage_add(s, "landlock", "off");
		layer_stage_add(s, "landlock_why", why[0] ? why : "apply failed");
	} else {
		layer_stage_add(s, "landlock", "on");
		snprintf(buf, sizeof buf, "abi %d%s%s%s%s", r.abi, r.degraded[0] ? "; " : "", r.degraded,
			 !r.net && r.net_why[0] ? "; tcp: " : "", !r.net ? r.net_why : "");
		layer_stage_add(s, "landlock_level", buf);
	}
	return 0;
}

/* its part in the exec stage (layer.h; walked by layer_stage.c) */
const struct layer_stage_ops stage_landlock = {
	.flag = "--landlock",
	.apply = sbx_landlock_stage,
	.when = LAYER_STAGE_BEFORE_CAPS,
	.policy = true,
};

/* Its port rules are for the host's network namespace; in the run's own, the namespace is the wall. */
static const char *ll_net_wall_state(const struct layer_ctx *c)
{
	return c->pol && pol_own_netns(c->pol) ? "off (own namespace)" : NULL;
}

const struct layer_ops layer_landlock = {
	.id = SBX_L_LANDLOCK,
	.name = "landlock",
	.lost = "no kernel fs allowlist: reads and writes outside the grants are stopped only by the "
		"preload and bwrap",
	.net_wall = "landlock ports",
	.net_wall_rank = 3,
	.net_wall_state = ll_net_wall_state,
	.probe = ll_probe,
	.plan = ll_plan,
	.on_ready = ll_on_ready,
};
