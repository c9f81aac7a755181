/* probes_decode.c — see probes_decode.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "probes_decode.h"

_Static_assert(PR_REQ_MAX <= KV_REQ_MAX && PR_EXE_MAX <= KV_EXE_MAX, "a record's strings fit the event's view");

static const char *const SC_NAMES[PR_SC__MAX] = {
	[PR_SC_NONE] = "?", [PR_SC_OPEN] = "open", [PR_SC_OPENAT] = "openat", [PR_SC_OPENAT2] = "openat2",
	[PR_SC_CREAT] = "creat", [PR_SC_TRUNCATE] = "truncate", [PR_SC_RENAME] = "rename",
	[PR_SC_RENAMEAT] = "renameat", [PR_SC_RENAMEAT2] = "renameat2", [PR_SC_UNLINK] = "unlink",
	[PR_SC_UNLINKAT] = "unlinkat", [PR_SC_MKDIR] = "mkdir", [PR_SC_MKDIRAT] = "mkdirat",
	[PR_SC_RMDIR] = "rmdir", [PR_SC_LINK] = "link", [PR_SC_LINKAT] = "linkat",
	[PR_SC_SYMLINK] = "symlink", [PR_SC_SYMLINKAT] = "symlinkat", [PR_SC_CHMOD] = "chmod",
	[PR_SC_FCHMODAT] = "fchmodat", [PR_SC_FCHMODAT2] = "fchmodat2", [PR_SC_CHOWN] = "chown",
	[PR_SC_LCHOWN] = "lchown", [PR_SC_FCHOWNAT] = "fchownat", [PR_SC_EXECVE] = "execve",
	[PR_SC_EXECVEAT] = "execveat", [PR_SC_CONNECT] = "connect", [PR_SC_SENDTO] = "sendto",
	[PR_SC_SENDMSG] = "sendmsg", [PR_SC_BIND] = "bind", [PR_SC_IO_URING_SETUP] = "io_uring_setup",
	[PR_SC_IO_URING_ENTER] = "io_uring_enter", [PR_SC_PTRACE] = "ptrace", [PR_SC_MOUNT] = "mount",
	[PR_SC_UMOUNT2] = "umount2", [PR_SC_OPEN_TREE] = "open_tree", [PR_SC_MOVE_MOUNT] = "move_mount",
	[PR_SC_FSOPEN] = "fsopen", [PR_SC_FSCONFIG] = "fsconfig", [PR_SC_FSMOUNT] = "fsmount",
	[PR_SC_FSPICK] = "fspick", [PR_SC_MOUNT_SETATTR] = "mount_setattr",
	[PR_SC_PIVOT_ROOT] = "pivot_root", [PR_SC_UNSHARE] = "unshare", [PR_SC_SETNS] = "setns",
	[PR_SC_BPF] = "bpf", [PR_SC_IO_URING_OP] = "io_uring_submit_req",
	[PR_SC_KILL] = "kill", [PR_SC_TKILL] = "tkill", [PR_SC_TGKILL] = "tgkill",
	[PR_SC_RT_SIGQUEUEINFO] = "rt_sigqueueinfo", [PR_SC_RT_TGSIGQUEUEINFO] = "rt_tgsigqueueinfo",
	[PR_SC_PIDFD_SEND_SIGNAL] = "pidfd_send_signal", [PR_SC_PIDFD_OPEN] = "pidfd_open",
	[PR_SC_KEYCTL] = "keyctl", [PR_SC_ADD_KEY] = "add_key", [PR_SC_REQUEST_KEY] = "request_key",
	[PR_SC_PERF_EVENT_OPEN] = "perf_event_open", [PR_SC_USERFAULTFD] = "userfaultfd",
	[PR_SC_CHROOT] = "chroot", [PR_SC_CLONE] = "clone", [PR_SC_CLONE3] = "clone3",
	[PR_SC_PROCESS_VM_READV] = "process_vm_readv", [PR_SC_PROCESS_VM_WRITEV] = "process_vm_writev",
	[PR_SC_KEXEC_LOAD] = "kexec_load", [PR_SC_KEXEC_FILE_LOAD] = "kexec_file_load",
	[PR_SC_INIT_MODULE] = "init_module", [PR_SC_FINIT_MODULE] = "finit_module",
	[PR_SC_DELETE_MODULE] = "delete_module", [PR_SC_SWAPON] = "swapon", [PR_SC_SWAPOFF] = "swapoff",
	[PR_SC_REBOOT] = "reboot", [PR_SC_ACCT] = "acct", [PR_SC_QUOTACTL] = "quotactl",
	[PR_SC_QUOTACTL_FD] = "quotactl_fd", [PR_SC_IOPL] = "iopl", [PR_SC_IOPERM] = "ioperm",
	[PR_SC_NAME_TO_HANDLE_AT] = "name_to_handle_at", [PR_SC_OPEN_BY_HANDLE_AT] = "open_by_handle_at",
	[PR_SC_IO_URING_REGISTER] = "io_uring_register", [PR_SC_IOCTL] = "ioctl",
	[PR_SC_PERSONALITY] = "personality", [PR_SC_SOCKET] = "socket", [PR_SC_SETRLIMIT] = "setrlimit",
	[PR_SC_PRLIMIT64] = "prlimit64", [PR_SC_UTIME] = "utime", [PR_SC_UTIMES] = "utimes",
	[PR_SC_UTIMENSAT] = "utimensat", [PR_SC_FUTIMESAT] = "futimesat",
	[PR_SC_MKNOD] = "mknod", [PR_SC_MKNODAT] = "mknodat", [PR_SC_SETXATTR] = "setxattr",
	[PR_SC_LSETXATTR] = "lsetxattr", [PR_SC_REMOVEXATTR] = "removexattr",
	[PR_SC_LREMOVEXATTR] = "lremovexattr", [PR_SC_GETXATTR] = "getxattr", [PR_SC_LGETXATTR] = "lgetxattr",
	[PR_SC_LISTXATTR] = "listxattr", [PR_SC_LLISTXATTR] = "llistxattr", [PR_SC_FCHMOD] = "fchmod",
	[PR_SC_FCHOWN] = "fchown", [PR_SC_FTRUNCATE] = "ftruncate", [PR_SC_FSETXATTR] = "fsetxattr",
	[PR_SC_FREMOVEXATTR] = "fremovexattr", [PR_SC_INOTIFY_ADD_WATCH] = "inotify_add_watch",
	[PR_SC_FANOTIFY_MARK] = "fanotify_mark", [PR_SC_SENDMMSG] = "sendmmsg",
};

const char *pr_sc_name(unsigned sc)
{
	return sc < PR_SC__MAX && SC_NAMES[sc] ? SC_NAMES[sc] : "?";
}

const char *pr_sensor_name(unsigned sensor)
{
	switch (sensor) {
	case PR_SENSOR_TP_BTF_SYS_EXIT: return "tp_btf:sys_exit";
	case PR_SENSOR_RAW_TP_SYS_EXIT: return "raw_tp:sys_exit";
	case PR_SENSOR_TP_BTF_IO_URING: return "tp_btf:io_uring_submit_req";
	case PR_SENSOR_RAW_TP_IO_URING: return "raw_tp:io_uring_submit_req";
	}
	return "?";
}

/* Copy a kernel char array that may lack its NUL. */
static void copy_str(char *dst, size_t dstlen, const char *src, size_t srclen)
{
	size_t n = strnlen(src, srclen);
	if (n >= dstlen)
		n = dstlen - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

/* Components leaf first -> "/a/b/c": a first pass checks them and sums their lengths, a second
 * writes them from the end of the result backwards (no per-component array: up to PR_MAX_DEPTH). */
static int assemble(const struct pr_event *ev, char *out, size_t outlen)
{
	size_t used = ev->path_len < PR_PATH_BUF ? ev->path_len : PR_PATH_BUF;
	size_t n = 0, off = 0, total = 0;
	while (off < used && n < ev->ncomp) {
		size_t l = strnlen(ev->path + off, used - off);
		if (off + l >= used)
			return -1;              /* unterminated */
		total += 1 + l;
		n++;
		off += l + 1;
	}
	if (n == 0) {
		if (outlen < 2)
			return -1;
		out[0] = '/';
		out[1] = 0;
		return 0;
	}
	if (total + 1 > outlen)
		return -1;
	size_t end = total;
	out[end] = 0;
	off = 0;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(ev->path + off);
		end -= l;
		memcpy(out + end, ev->path + off, l);
		out[--end] = '/';
		off += l + 1;
	}
	return 0;
}

/* "/proc/<n>[/...]" with n the task's own pid or tid -> "/proc/self[/...]". Which pid namespace the
 * /proc mount belongs to is not known here, so both the global and the innermost numbers count
 * (a /proc of an intermediate namespace is not rewritten: reported, never silently allowed). */
static void proc_self(const struct pr_event *ev, char *path, size_t len)
{
	if (strncmp(path, "/proc/", 6) != 0)
		return;
	char *end;
	unsigned long n = strtoul(path + 6, &end, 10);
	if (end == path + 6 || (*end != 0 && *end != '/'))
		return;
	if (n == 0 || (n != ev->nstgid && n != ev->nspid && n != ev->tgid && n != ev->pid))
		return;
	char rest[4096];
	snprintf(rest, sizeof(rest), "%s", end);
	snprintf(path, len, "/proc/self%s", rest);
}

/* "/proc/self/root/X" is the task's root + X: the object the kernel reaches (the walk stops at the
 * task's root, so that root is "/" here). */
static void proc_self_root(char *path, size_t len)
{
	const char *p = NULL;
	if (strncmp(path, "/proc/self/root", 15) == 0 && (path[15] == '/' || !path[15]))
		p = path + 15;
	else if (strncmp(path, "/proc/thread-self/root", 22) == 0 && (path[22] == '/' || !path[22]))
		p = path + 22;
	if (!p)
		return;
	char rest[4096];
	snprintf(rest, sizeof(rest), "%s", *p ? p : "/");
	snprintf(path, len, "%s", rest);
}

/* A requested string longer than the stash's copy came again in full at exit (PR_EVF_REQ_LONG):
 * it is the string the call named when it begins with what was read at enter. */
static bool req_long_ok(const struct pr_event *ev)
{
	return (ev->flags & PR_EVF_REQ_TRUNC) && (ev->flags & PR_EVF_REQ_LONG) &&
	       strnlen(ev->req_long, sizeof(ev->req_long)) < sizeof(ev->req_long) &&
	       strncmp(ev->req_long, ev->req, sizeof(ev->req) - 1) == 0;
}

/* The requested string: the whole one where it came (req_long_ok), else what enter read. */
static void copy_req(const struct pr_event *ev, char *dst, size_t dstlen)
{
	if (req_long_ok(ev))
		copy_str(dst, dstlen, ev->req_long, sizeof(ev->req_long));
	else
		copy_str(dst, dstlen, ev->req, sizeof(ev->req));
}

/* pr_event_path with the requested string given. */
static int event_path_req(const struct pr_event *ev, const char *req, char *out, size_t outlen)
{
	char base[4096];
	int rc;
	switch (ev->path_kind) {
	case PR_PK_FULL:
		if (assemble(ev, base, sizeof(base)) != 0)
			return -1;
		rc = pol_normalize("/", base, out, outlen);
		break;
	case PR_PK_BASE:
		if (assemble(ev, base, sizeof(base)) != 0)
			return -1;
		rc = pol_normalize(base, req, out, outlen);
		break;
	case PR_PK_NONE:
		rc = pol_normalize("/", req, out, outlen);
		break;
	default:
		return -1;
	}
	if (rc != 0)
		return -1;
	proc_self(ev, out, outlen);
	proc_self_root(out, outlen);
	return 0;
}

int pr_event_path(const struct pr_event *ev, char *out, size_t outlen)
{
	char req[PR_REQ_MAX + 1];
	copy_req(ev, req, sizeof(req));
	return event_path_req(ev, req, out, outlen);
}

static unsigned open_access(unsigned long long fl)
{
	unsigned acc = (unsigned)(fl & O_ACCMODE);
	if (acc == O_WRONLY || acc == O_RDWR || (fl & (O_CREAT | O_TRUNC | O_APPEND)) ||
	    (fl & __O_TMPFILE) == __O_TMPFILE)
		return POL_WRITE;
	return POL_READ;
}

static unsigned path_access(const struct pr_event *ev)
{
	switch (ev->sc) {
	case PR_SC_OPEN: case PR_SC_OPENAT: case PR_SC_OPENAT2:
		return open_access(ev->aflags);
	case PR_SC_EXECVE: case PR_SC_EXECVEAT:
		return POL_EXEC;
	case PR_SC_NAME_TO_HANDLE_AT:
	case PR_SC_GETXATTR: case PR_SC_LGETXATTR: case PR_SC_LISTXATTR: case PR_SC_LLISTXATTR:
	case PR_SC_INOTIFY_ADD_WATCH: case PR_SC_FANOTIFY_MARK:
		return POL_READ;            /* metadata reads and watches: what they reveal is a read */
	default:
		return POL_WRITE;
	}
}

/* The privilege rule (policy.h pol_priv_mode) of a record whose mode BPF copied (files.bpf.h
 * files_enter), or NULL. */
static const char *priv_rule(const struct pr_event *ev)
{
	uint32_t m = (uint32_t)(ev->aflags >> 32) & 0xffff;
	switch (ev->sc) {
	case PR_SC_OPEN: case PR_SC_OPENAT: case PR_SC_OPENAT2:
		return pol_priv_mode(POL_PRIV_CREATE, (uint32_t)ev->aflags, m);
	case PR_SC_CREAT:
		return pol_priv_mode(POL_PRIV_CREATE, O_CREAT, m);
	case PR_SC_CHMOD: case PR_SC_FCHMOD: case PR_SC_FCHMODAT: case PR_SC_FCHMODAT2:
		return pol_priv_mode(POL_PRIV_CHMOD, 0, (uint32_t)ev->aflags & 0xffff);
	case PR_SC_MKNOD: case PR_SC_MKNODAT:
		return pol_priv_mode(POL_PRIV_MKNOD, 0, (uint32_t)ev->aflags & 0xffff);
	}
	return NULL;
}

static const char *access_name(unsigned a)
{
	return a == POL_WRITE ? "write" : a == POL_EXEC ? "exec" : "read";
}

static bool is_escape_sc(unsigned sc)
{
	return (sc >= PR_SC_IO_URING_SETUP && sc <= PR_SC_BPF) || sc == PR_SC_IO_URING_OP ||
	       (sc >= PR_SC_ESC2_FIRST && sc <= PR_SC_ESC2_LAST);
}

static bool is_signal_sc(unsigned sc)
{
	return sc >= PR_SC_SIG_FIRST && sc <= PR_SC_SIG_LAST;
}

/* A record the probes cannot decide: reported as such (outcome "undecidable"), never as a breach. */
static int undecidable(struct kv_view *v, const char *why)
{
	v->undecidable = true;
	v->violation = true;
	v->rule = why;
	return 1;
}

/* An object whose name the kernel makes up as "type:[id]" (the preload's readlink of
 * /proc/self/fd/N gives no path): a dentry with d_dname on pipefs, sockfs, anon_inodefs, nsfs or
 * pidfs. (memfd, secretmem and dma-buf also have d_dname but are named "/name": decided on it.) */
static bool no_path_object(const struct pr_event *ev)
{
	if (!(ev->flags & PR_EVF_PSEUDO))
		return false;
	switch (ev->fsmagic) {
	case 0x50495045u:       /* PIPEFS_MAGIC */
	case 0x534f434bu:       /* SOCKFS_MAGIC */
	case 0x09041934u:       /* ANON_INODE_FS_MAGIC */
	case 0x6e736673u:       /* NSFS_MAGIC */
	case 0x50494446u:       /* PIDFS_MAGIC */
		return true;
	}
	return false;
}

/* Why the path of a record cannot be decided, or NULL. Not applied to a kernel-resolved object
 * (PR_PK_FULL) except for a cut walk. */
static const char *undecidable_path(const struct pr_event *ev)
{
	if (ev->flags & PR_EVF_TRUNC)
		return PR_RULE_DEEP;
	if (ev->path_kind == PR_PK_FULL)
		return NULL;
	if ((ev->flags & PR_EVF_REQ_TRUNC) && !req_long_ok(ev))
		return PR_RULE_LONG;        /* longer than PATH_MAX, or changed between enter and exit */
	if (ev->path_kind == PR_PK_BASE && (ev->flags & PR_EVF_DETACHED) && !no_path_object(ev))
		return PR_RULE_DETACHED;
	if (ev->path_kind == PR_PK_NONE && ev->req[0] != '/')
		return PR_RULE_NOBASE;          /* relative, and its directory was not found */
	return NULL;
}

/* An AF_UNIX record: the socket's name. Abstract names ("@" + raw bytes, argi = byte count + 1)
 * are made printable as the preload does. 1 violation, 0 allowed, -1 malformed. */
static int decide_unix(const struct policy *p, const struct pr_event *ev, struct kv_view *v)
{
	v->is_unix = true;
	if (ev->flags & PR_EVF_NOPATH)
		return 0;                   /* unreadable name: the kernel got EFAULT as well */
	if (ev->flags & PR_EVF_ABSTRACT) {
		if (ev->req[0] != '@')
			return -1;
		size_t n = ev->argi > 0 ? (size_t)ev->argi - 1 : 0;
		if (n > 108 || n + 1 >= sizeof(ev->req))
			return -1;
		v->path[0] = '@';
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)ev->req[1 + i];
			v->path[1 + i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
		}
		v->path[1 + n] = 0;
		if (n == 0) /* autobind: the kernel picks the name */
			snprintf(v->path, sizeof(v->path), "@ (autobind)");
		copy_str(v->requested, sizeof(v->requested), v->path, sizeof(v->path));
		/* own netns: inside the run. Else the host's namespace, whatever the network grant: a
		 * bind there can be reached by a host client, a connect reaches a host service */
		if (pol_abstract_inside(p))
			return 0;
		v->rule = PR_RULE_ABSTRACT;
		v->violation = true;
		return 1;
	}
	copy_str(v->requested, sizeof(v->requested), ev->req, sizeof(ev->req));
	const char *why = undecidable_path(ev);
	if (why || pr_event_path(ev, v->path, sizeof(v->path)) != 0) {
		snprintf(v->path, sizeof(v->path), "%s", v->requested);
		return undecidable(v, why ? why : PR_RULE_UNASSEMBLED);
	}
	struct pol_decision d;
	if (pol_path(p, v->path, POL_WRITE, &d) == POL_ALLOW)
		return 0;
	v->rule = pol_rule_text(p, d.rule);
	v->violation = true;
	return 1;
}

static const char *priv_rule(const struct pr_event *ev);

/* A raced record (see probes_decode.h): v->path holds the path from the enter copy (or the object
 * for PR_PK_FULL). Always 1 (reported). */
static int decide_raced(const struct policy *p, const struct pr_event *ev, struct kv_view *v, unsigned acc)
{
	char kreq[PR_NAME_MAX + 1];
	copy_str(kreq, sizeof(kreq), ev->kname, sizeof(ev->kname));
	v->raced = true;
	v->violation = true;
	if (ev->path_kind == PR_PK_FULL) {
		/* the object is what the kernel reached; the other name as the program gave it */
		if (v->requested[0] != '/' ||
		    pol_normalize("/", v->requested, v->path_raced, sizeof(v->path_raced)) != 0)
			snprintf(v->path_raced, sizeof(v->path_raced), "%s", v->requested);
	} else {
		snprintf(v->path_raced, sizeof(v->path_raced), "%s", v->path);
		if (event_path_req(ev, kreq, v->path, sizeof(v->path)) != 0)
			snprintf(v->path, sizeof(v->path), "%s", kreq);
	}
	snprintf(v->requested, sizeof(v->requested), "%s", kreq);
	struct pol_decision d1, d2;
	bool den1 = v->path[0] == '/' && pol_path(p, v->path, acc, &d1) != POL_ALLOW;
	bool den2 = v->path_raced[0] == '/' && pol_path(p, v->path_raced, acc, &d2) != POL_ALLOW;
	const char *priv = priv_rule(ev);
	v->raced_denied = den1 || den2 || priv;
	if (priv) {
		v->access = "privilege";
		v->rule = priv;
	} else if (den1)
		v->rule = pol_rule_text(p, d1.rule);
	else if (den2)
		v->rule = pol_rule_text(p, d2.rule);
	else
		v->rule = PR_RULE_RACED;
	if (!v->contained && !den1)
		v->outcome = "raced";       /* succeeded, on an allowed object */
	return 1;
}

/* An io_uring op naming its object (PR_EVF_URING_OBJ): decided like its system-call twin — the
 * openat's name (the kernel's copy, taken at submit) for the access its flags ask, an fd op's file
 * for read or write. A denied object: its rule and access; else the escape-class report keeps the
 * object's path. */
static void uring_object(const struct policy *p, const struct pr_event *ev, struct kv_view *v)
{
	int op = (int)(ev->aflags & 0xff);
	unsigned acc;
	if (op == 16) {                                 /* connect: decided as connect(2) */
		int fam = ev->family == AF_INET ? AF_INET : ev->family == AF_INET6 ? AF_INET6 : 0;
		if (!fam || !inet_ntop(fam, ev->addr, v->addr, sizeof(v->addr)))
			return;
		v->is_net = true;
		v->port = ev->port;
		struct pol_decision d;
		if (pol_net_addr(p, fam, ev->addr, ev->port, &d) == POL_ALLOW)
			return;
		v->is_escape = false;
		v->access = "connect";
		v->rule = pol_rule_text(p, d.rule);
		return;
	}
	if (op == 18 || op == 28)                       /* openat, openat2 */
		acc = open_access(ev->aflags >> PR_URING_OP_SHIFT);
	else if (op == 2 || op == 3 || op == 5 || op == 9 || op == 17 || op == 23 || op == 26)
		acc = POL_WRITE;                        /* writev fsync write_fixed sendmsg fallocate write send */
	else
		acc = POL_READ;
	if ((ev->flags & (PR_EVF_NOPATH | PR_EVF_TRUNC)) || (ev->flags & PR_EVF_REQ_TRUNC) ||
	    no_path_object(ev) || (ev->path_kind == PR_PK_NONE && ev->req[0] != '/' && op != 18 && op != 28))
		return;
	if (ev->path_kind == PR_PK_FULL && ev->ncomp == 0)
		return;                                 /* no file walked */
	char path[sizeof(v->path)];
	if (pr_event_path(ev, path, sizeof(path)) != 0)
		return;
	snprintf(v->path, sizeof(v->path), "%s", path);
	copy_str(v->requested, sizeof(v->requested), ev->path_kind == PR_PK_FULL ? path : ev->req,
		 ev->path_kind == PR_PK_FULL ? sizeof(path) : sizeof(ev->req));
	struct pol_decision d;
	if (pol_path(p, v->path, acc, &d) == POL_ALLOW)
		return;
	v->is_escape = false;
	v->access = access_name(acc);
	v->rule = pol_rule_text(p, d.rule);
}

static void outcome(const struct pr_event *ev, struct kv_view *v)
{
	long long r = ev->ret;
	v->contained = r < 0 && !(v->is_net && r == -EINPROGRESS) && ev->sc != PR_SC_IO_URING_OP;
	v->err = v->contained && r >= -4095 ? (int)-r : 0;
	v->failed = v->contained;
}

int pr_decide(const struct policy *p, const struct pr_event *ev, struct kv_view *v)
{
	memset(v, 0, sizeof(*v));
	if (ev->sc == PR_SC_NONE || ev->sc >= PR_SC__MAX)
		return -1;
	v->syscall = pr_sc_name(ev->sc);
	v->sensor = pr_sensor_name(ev->sensor);
	v->pid = ev->tgid;
	v->tid = ev->pid;
	v->io_op = -1;
	v->compat = (ev->flags & PR_EVF_COMPAT) != 0;
	copy_str(v->comm, sizeof(v->comm), ev->comm, sizeof(ev->comm));
	copy_str(v->exe, sizeof(v->exe), ev->exe, sizeof(ev->exe));
	v->is_net = (ev->sc >= PR_SC_CONNECT && ev->sc <= PR_SC_BIND) || ev->sc == PR_SC_SENDMMSG;
	outcome(ev, v);

	if (is_signal_sc(ev->sc)) {
		/* BPF sends only signals whose target is outside the run (see bpf/probes.bpf.c) */
		v->is_signal = true;
		v->violation = true;
		v->access = "signal";
		v->rule = PR_RULE_SIGNAL;
		v->target = ev->target;
		v->sig = ev->sig;
		return 1;
	}
	if (ev->sc == PR_SC_SOCKET) { /* the one socket allowlist, as seccomp and the preload ask it */
		int err;
		if (pol_socket_ok(ev->target, (int)(ev->aflags >> 32), (int)(uint32_t)ev->aflags, pol_net_mode(p),
				  &err, v->sock, sizeof v->sock))
			return 0;
	}
	if (is_escape_sc(ev->sc)) {
		v->is_escape = true;
		v->violation = true;
		v->access = "escape";
		v->rule = KV_RULE_ESCAPE;
		if (ev->sc == PR_SC_IO_URING_OP) {
			v->io_op = (int)(ev->aflags & 0xff);
			if (ev->flags & PR_EVF_URING_OBJ)
				uring_object(p, ev, v);
		}
		return 1;
	}

	if (v->is_net && (ev->flags & PR_EVF_UNIX)) {
		v->access = ev->sc == PR_SC_BIND ? "bind" : "connect";
		return decide_unix(p, ev, v);
	}
	if (v->is_net) {
		int fam = ev->family == AF_INET ? AF_INET : ev->family == AF_INET6 ? AF_INET6 : 0;
		if (!fam)
			return 0;
		if (!inet_ntop(fam, ev->addr, v->addr, sizeof(v->addr)))
			return -1;
		v->port = ev->port;
		if (ev->sc == PR_SC_BIND) {
			v->access = "bind";
			if (pol_net_mode(p) != POL_NET_NONE)
				return 0;
			v->rule = pol_rule_text(p, POL_RULE_NET_NONE);
			v->violation = true;
			return 1;
		}
		v->access = "connect";
		struct pol_decision d;
		if (pol_net_addr(p, fam, ev->addr, ev->port, &d) == POL_ALLOW)
			return 0;
		v->rule = pol_rule_text(p, d.rule);
		v->violation = true;
		return 1;
	}

	/* a path syscall */
	if ((ev->flags & PR_EVF_NOPATH) && ev->path_kind != PR_PK_FULL) {
		if (ev->ret == -EFAULT)
			return 0;           /* unreadable argument: the kernel got EFAULT as well */
		/* read again at exit and still unreadable, yet the kernel did not fail with EFAULT */
		v->access = access_name(path_access(ev));
		return undecidable(v, PR_RULE_UNREADABLE);
	}
	if ((ev->sc == PR_SC_OPEN || ev->sc == PR_SC_OPENAT || ev->sc == PR_SC_OPENAT2) &&
	    (ev->aflags & O_PATH) && ev->ret >= 0)
		return 0;                   /* O_PATH: no data access; what is opened through it is seen.
					     * A failed one is decided as a read (the attempt is reported) */
	if (ev->path_kind != PR_PK_NONE && no_path_object(ev))
		return 0;                   /* a pipe, socket, namespace... (/dev/stdin, /proc/self/fd/N,
					     * /proc/self/ns/x) has no path: no file rule applies, as in
					     * the preload; relative to one, the kernel resolves nothing */
	copy_req(ev, v->requested, sizeof(v->requested));
	unsigned acc = path_access(ev);
	v->access = access_name(acc);
	const char *why = undecidable_path(ev);
	if (why || pr_event_path(ev, v->path, sizeof(v->path)) != 0) {
		snprintf(v->path, sizeof(v->path), "%s", v->requested);
		return undecidable(v, why ? why : PR_RULE_UNASSEMBLED);
	}
	if (ev->flags & PR_EVF_RACED)
		return decide_raced(p, ev, v, acc);
	const char *priv = priv_rule(ev);
	if (priv) { /* the privilege guard: wherever the object is (the same predicate as every layer) */
		v->access = "privilege";
		v->rule = priv;
		v->violation = true;
		return 1;
	}
	if (acc == POL_EXEC && strncmp(v->path, "/memfd:", 7) == 0) {
		v->is_escape = true;
		v->rule = KV_RULE_ESCAPE;
		v->violation = true;
		return 1;
	}
	struct pol_decision d;
	if (pol_path(p, v->path, acc, &d) == POL_ALLOW)
		return 0;
	v->rule = pol_rule_text(p, d.rule);
	v->violation = true;
	return 1;
}

bool pr_follows_final(const struct pr_event *ev)
{
	switch (ev->sc) {
	case PR_SC_OPEN: case PR_SC_OPENAT: case PR_SC_OPENAT2:
		return !(ev->aflags & O_NOFOLLOW);
	case PR_SC_CREAT: case PR_SC_TRUNCATE: case PR_SC_CHMOD: case PR_SC_CHOWN: case PR_SC_UTIME:
	case PR_SC_UTIMES: case PR_SC_EXECVE: case PR_SC_SETXATTR: case PR_SC_REMOVEXATTR:
	case PR_SC_GETXATTR: case PR_SC_LISTXATTR: case PR_SC_INOTIFY_ADD_WATCH:
	case PR_SC_FANOTIFY_MARK: case PR_SC_FUTIMESAT:
		return true;
	case PR_SC_FCHMODAT: case PR_SC_FCHMODAT2: case PR_SC_FCHOWNAT: case PR_SC_UTIMENSAT:
		return true;                /* the AT_SYMLINK_NOFOLLOW flag is not copied: assume the
					     * kernel followed (a link is then judged on its target) */
	}
	return false;
}

int pr_decide_resolved(const struct policy *p, const struct pr_event *ev, const char *resolved,
		       struct kv_view *v)
{
	if (v->violation || !v->access || strcmp(resolved, v->path) == 0)
		return 0;
	unsigned acc = path_access(ev);
	struct pol_decision d;
	if (pol_path(p, resolved, acc, &d) == POL_ALLOW)
		return 0;
	snprintf(v->path, sizeof(v->path), "%s", resolved);
	v->rule = pol_rule_text(p, d.rule);
	v->violation = true;
	return 1;
}
