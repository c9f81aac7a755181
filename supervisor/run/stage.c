/* stage.c — see stage.h; also `sbxsup __stage` (cmd_stage), the entry point inside bwrap. */
#include "stage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "msg.h"
#include "quote.h"
#include "ctl.h"
#include "caps.h"
#include "landlock_layer.h"
#include "report.h"
#include "bwrap_layer.h"
#include "seccomp_layer.h"

static void add(char *st, size_t len, const char *key, const char *val)
{
	size_t l = strlen(st);
	if (l < len)
		snprintf(st + l, len - l, "%s=%s\n", key, val);
}

/* Resolve the command as execvp would, with the PATH of the environment it will run with (glibc's
 * execvp searches the caller's PATH, not the new environment's). Returns 0 with an absolute path,
 * or -1 with errno (ENOENT: nowhere on PATH). */
static int resolve_cmd(const char *cmd, char **envp, char *out, size_t outlen)
{
	if (strchr(cmd, '/')) {
		char cwd[4096];
		int n;
		if (cmd[0] == '/' || !getcwd(cwd, sizeof cwd))
			n = snprintf(out, outlen, "%s", cmd);
		else
			n = snprintf(out, outlen, "%s/%s", cwd, cmd);
		if (n < 0 || (size_t)n >= outlen) {
			errno = ENAMETOOLONG;
			return -1;
		}
		/* as execve would answer, but known before "ready" (the result record's reason) */
		struct stat st;
		if (stat(out, &st) < 0)
			return -1;
		if (!S_ISREG(st.st_mode) || access(out, X_OK) < 0) {
			errno = EACCES;
			return -1;
		}
		return 0;
	}
	const char *path = NULL;
	for (char **e = envp ? envp : environ; e && *e; e++)
		if (!strncmp(*e, "PATH=", 5))
			path = *e + 5;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int err = ENOENT;
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");
		if (n && n + strlen(cmd) + 2 <= outlen) {
			snprintf(out, outlen, "%.*s/%s", (int)n, p, cmd);
			struct stat st;
			if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
				if (access(out, X_OK) == 0)
					return 0;
				err = EACCES;
			}
		}
		p += n;
		if (*p == ':')
			p++;
	}
	errno = err;
	return -1;
}

/* The library the loader will preload for the command: the first entry of its LD_PRELOAD (the
 * environment channel), else the first line of /etc/ld.so.preload (the fixed channel). 0 or -1. */
static int preload_path(char **envp, char *out, size_t outlen)
{
	const char *v = NULL;
	for (char **e = envp ? envp : environ; e && *e; e++)
		if (!strncmp(*e, "LD_PRELOAD=", 11))
			v = *e + 11;
	char line[4200] = "";
	if (!v || !*v) {
		int fd = open("/etc/ld.so.preload", O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, line, sizeof line - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return -1;
		line[n] = 0;
		v = line;
	}
	v += strspn(v, " \t\n:");
	size_t l = strcspn(v, " \t\n:");
	if (!l || l >= outlen)
		return -1;
	snprintf(out, outlen, "%.*s", (int)l, v);
	return 0;
}

/* Can the command load the preload? Opened as the loader will open it: this process has the
 * command's identity, mount tree and Landlock domain, and no capabilities left. 0, or -1 (why). */
static int preload_loadable(char **envp, char *why, size_t whylen)
{
	char path[4096];
	if (preload_path(envp, path, sizeof path) < 0) {
		snprintf(why, whylen, "neither LD_PRELOAD nor /etc/ld.so.preload names the library (uid %u gid %u)",
			 (unsigned)getuid(), (unsigned)getgid());
		return -1;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	struct statvfs vfs;
	unsigned char magic[4];
	const char *err = NULL;
	if (fd < 0)
		err = strerror(errno);
	else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		err = "not a regular file";
	else if (pread(fd, magic, sizeof magic, 0) != (ssize_t)sizeof magic || memcmp(magic, "\177ELF", 4))
		err = "not an ELF file";
	else if (fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_NOEXEC))
		err = "on a noexec mount";
	if (fd >= 0)
		close(fd);
	if (!err)
		return 0;
	for (char *c = path; *c; c++) /* one status line */
		if (*c == '\n')
			*c = '?';
	snprintf(why, whylen, "%.300s: %s (uid %u gid %u)", path, err, (unsigned)getuid(), (unsigned)getgid());
	return -1;
}

static int exec_failed(const char *cmd, int e)
{
	char q[SBX_Q_MAX];
	if (e == ENOENT || e == ENOTDIR) {
		sbx_msg("%s: not found", sbx_q(cmd, q, sizeof q));
		return SBX_EXIT_NOTFOUND;
	}
	sbx_msg("%s: %s", sbx_q(cmd, q, sizeof q), e == EACCES ? "permission denied" : strerror(e));
	return SBX_EXIT_NOEXEC;
}

/* Close every close-on-exec descriptor above stderr but `keep`: they would go at exec anyway, and
 * until then they count against the run's RLIMIT_NOFILE (the limits layer set it already): the
 * supervisor's BPF objects (netfilter, probes) inherited by a direct-mode stage are enough to make
 * Landlock's ruleset fail with EMFILE under "nofile": 64. Nothing the stage uses is close-on-exec
 * (the policy memfd is mapped and stays open for the preload). */
static void close_cloexec(int keep)
{
	struct rlimit rl;
	int max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur : 65536;
	DIR *d = opendir("/proc/self/fd");
	if (d) {
		int self = dirfd(d);
		struct dirent *e;
		while ((e = readdir(d))) {
			int fd = atoi(e->d_name);
			int fl;
			if (fd > 2 && fd != keep && fd != self && (fl = fcntl(fd, F_GETFD)) >= 0 && (fl & FD_CLOEXEC))
				close(fd);
		}
		closedir(d);
		return;
	}
	for (int fd = 3; fd < max; fd++) { /* no descriptor left for opendir: walk the table */
		int fl = fcntl(fd, F_GETFD);
		if (fd != keep && fl >= 0 && (fl & FD_CLOEXEC))
			close(fd);
	}
}

int stage_exec(const struct stage_args *a)
{
	char st[CTL_MAX - 16] = "", why[512], buf[900], path[4096];
	int listener = -1;
	bool guarded = false; /* a filter carrying the privilege guard is installed */

	if (a->stderr_fd >= 0 && a->stderr_fd != 2) {
		if (dup2(a->stderr_fd, 2) < 0)
			return SBX_EXIT_INTERNAL;
		close(a->stderr_fd);
	}
	close_cloexec(a->ctl_fd);
	int resolve_err = resolve_cmd(a->cmd[0], a->envp, path, sizeof path) < 0 ? errno : 0;
	if (a->landlock) {
		struct sbx_landlock_result r;
		memset(&r, 0, sizeof r);
		why[0] = 0;
		if (!a->pol) {
			add(st, sizeof st, "landlock", "off");
			add(st, sizeof st, "landlock_why", "no compiled policy in the stage");
		} else if (sbx_landlock_apply_net(a->pol, resolve_err ? NULL : path, a->netfilter, &r, why,
						  sizeof why) < 0) {
			add(st, sizeof st, "landlock", "off");
			add(st, sizeof st, "landlock_why", why[0] ? why : "apply failed");
		} else {
			add(st, sizeof st, "landlock", "on");
			snprintf(buf, sizeof buf, "abi %d%s%s%s%s", r.abi, r.degraded[0] ? "; " : "",
				 r.degraded, !r.net && r.net_why[0] ? "; tcp: " : "", !r.net ? r.net_why : "");
			add(st, sizeof st, "landlock_level", buf);
		}
	}
	/* After Landlock (it opens every granted path with the stage's privileges) and before seccomp:
	 * the drop reads /proc (cap_last_cap), and with the seccomp reporter on, an open after the
	 * install would wait for a supervisor that has not got the listener yet. seccomp needs
	 * no_new_privs, which the drop sets. The executor never runs with capabilities. */
	why[0] = 0;
	if (a->keep_caps)
		snprintf(why, sizeof why, "kept (SBXSUP_SANDBOX disables every layer)");
	else if (sbx_caps_drop(why, sizeof why) < 0) {
		sbx_msg("dropping capabilities failed: %s", why);
		return SBX_EXIT_INTERNAL;
	}
	add(st, sizeof st, "caps", why);
	/* After Landlock and the drop (the loader runs with both), before seccomp (an open after the
	 * install could wait for the supervisor, as above). */
	if (a->preload) {
		why[0] = 0;
		if (preload_loadable(a->envp, why, sizeof why) < 0) {
			add(st, sizeof st, "preload", "off");
			add(st, sizeof st, "preload_why", why);
		} else {
			add(st, sizeof st, "preload", "on");
		}
	}
	/* Last before "ready": nothing after the install may make a call the filter notifies. */
	if (a->seccomp) {
		why[0] = 0;
		/* no code:exec (or no policy to say otherwise): the exec gate lets only the command's
		 * own exec through and refuses (and reports) every later one */
		struct sbx_seccomp_opts so = {.deny_exec = !a->pol || !pol_code_exec(a->pol),
					      /* named unix sockets, loopback binds, peers without netfilter */
					      .net_notify = a->pol != NULL,
					      .netfilter = a->netfilter,
					      /* metadata changes are writes (Landlock cannot say so) */
					      .meta_notify = a->pol != NULL,
					      .report_files = a->report_files && a->pol};
		if (sbx_seccomp_install_opts(&so, &listener, why, sizeof why) < 0) {
			add(st, sizeof st, "seccomp", "off");
			add(st, sizeof st, "seccomp_why", why[0] ? why : "install failed");
			listener = -1;
		} else {
			guarded = true;
			add(st, sizeof st, "seccomp", "on");
			/* short: run.start.level holds 96 bytes */
			snprintf(buf, sizeof buf, "%s%s%s%s%s",
				 so.notify_busy ? "errno (outer sandbox holds the listener: unreported)"
				 : listener < 0 ? "errno (no user notification: denials unreported)" : "notify",
				 so.exec_gated ? "; exec gate" : "",
				 listener >= 0 && so.net_notify ? "; socket/rlimit/connect/bind args" : "",
				 listener >= 0 && so.meta_notify ? "; metadata" : "",
				 listener >= 0 && so.report_files ? "; file/exec reporter" : "");
			add(st, sizeof st, "seccomp_level", buf);
		}
	}
	/* The report-only sensor (layer seccomp off, probes off): what the silent layers refuse is
	 * still seen and written by the supervisor; nothing is refused here (every call continues). */
	if (!a->seccomp && a->sensor) {
		why[0] = 0;
		struct sbx_seccomp_opts so = {.report_only = true, .deny_exec = !a->pol || !pol_code_exec(a->pol),
					      .net_notify = true, .netfilter = a->netfilter,
					      .meta_notify = true, .report_files = true};
		if (!a->pol) {
			add(st, sizeof st, "sensor", "off");
			add(st, sizeof st, "sensor_why", "no compiled policy in the stage");
		} else if (sbx_seccomp_install_opts(&so, &listener, why, sizeof why) < 0) {
			add(st, sizeof st, "sensor", "off");
			add(st, sizeof st, "sensor_why", so.notify_busy ? "an outer sandbox holds the listener"
							  : why[0] ? why : "install failed");
			listener = -1;
		} else {
			guarded = true;
			add(st, sizeof st, "sensor", "on");
		}
	}
	/* The privilege guard (contract version 3) in every mode that sandboxes: the layer's and the
	 * sensor's filters carry it (notified: refused and reported by the supervisor); without
	 * either, a filter of its own (notified too where the kernel can; errno only else). Last
	 * before "ready", as the others. Nothing the command leaves behind can gain privilege. */
	if (!a->keep_caps && !guarded) {
		why[0] = 0;
		/* abstract unix names where the run shares the host's network namespace: refused and
		 * reported by the guard's filter too (seccomp_unix.h) */
		bool abstract = a->pol && !pol_abstract_inside(a->pol);
		if (sbx_privguard_install(&listener, abstract, why, sizeof why) < 0) {
			sbx_msg("%s", why[0] ? why : "privilege guard: install failed");
			return SBX_EXIT_INTERNAL;
		}
		add(st, sizeof st, "privguard", listener >= 0 ? "notify" : "errno");
	} else if (!a->keep_caps) {
		add(st, sizeof st, "privguard", listener >= 0 ? "notify" : "errno");
	}
	/* the supervisor tells the caller (result record) that sbxsup, not the command, said 126/127 */
	if (resolve_err)
		add(st, sizeof st, "command", resolve_err == ENOENT || resolve_err == ENOTDIR ? "not_found"
								      : "not_executable");
	/* the supervisor takes the listener with pidfd_getfd (ctl.h), a ptrace-mode access: a
	 * non-dumpable stage (the direct sandbox's init is one, and we are its fork) needs
	 * CAP_SYS_PTRACE where it was made, which a normal user's supervisor lacks. Nothing else of
	 * the run exists yet, and the exec below makes the command dumpable anyway */
	if (listener >= 0 && guarded && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		return SBX_EXIT_INTERNAL;
	/* guarded: the layer's or the sensor's filter, which notify every sendmsg (ctl.h) */
	if (ctl_send_ready(a->ctl_fd, st, listener, guarded) < 0)
		return SBX_EXIT_INTERNAL;
	char **call = NULL;
	int stdio[3];
	int go = ctl_wait_go_call(a->ctl_fd, &call, stdio);
	/* kept open until "go": the supervisor takes it from us by its number (ctl.h) */
	if (listener >= 0)
		close(listener);
	if (go < 0)
		return SBX_EXIT_INTERNAL; /* the supervisor refused or died: never run the command */
	if (fcntl(a->ctl_fd, F_SETFD, FD_CLOEXEC) < 0)
		return SBX_EXIT_INTERNAL;
	char **cmd = a->cmd;
	if (go == 1) { /* a pre-created sandbox: the call's argv (same command) and stdio */
		if (strcmp(call[0], a->cmd[0]))
			return SBX_EXIT_INTERNAL;
		for (int i = 0; i < 3; i++)
			if (dup2(stdio[i], i) < 0)
				return SBX_EXIT_INTERNAL;
		for (int i = 0; i < 3; i++)
			if (stdio[i] > 2)
				close(stdio[i]);
		cmd = call;
	}
	if (resolve_err)
		return exec_failed(cmd[0], resolve_err);
	execve(path, cmd, a->envp ? a->envp : environ);
	return exec_failed(cmd[0], errno);
}

/* The compiled policy from SBXSUP_POLICY_FD (a sealed memfd), else (the preload's fixed channel)
 * from /run/sbxsup/policy, mapped read-only. */
static const struct policy *stage_policy(void)
{
	const char *v = getenv(SBX_ENV_POLICY_FD);
	char *end = NULL;
	long fd = v ? strtol(v, &end, 10) : -1;
	bool own = false;
	if (!v) { /* the preload's fixed channel: bwrap bound the sealed policy read-only */
		fd = open(SBX_RUN_POLICY, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		own = true;
	} else if (*end) {
		return NULL;
	}
	struct stat st;
	if (fd < 0 || fd > 1 << 20 || fstat((int)fd, &st) < 0 || st.st_size <= 0 ||
	    (size_t)st.st_size > POL_MAX_BLOB) {
		if (own && fd >= 0)
			close((int)fd);
		return NULL;
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, (int)fd, 0);
	if (own)
		close((int)fd);
	if (m == MAP_FAILED)
		return NULL;
	const char *why;
	return pol_open(m, (size_t)st.st_size, &why);
}

bool stage_flag_parse(const char *flag, struct stage_args *sa)
{
	if (!strcmp(flag, "--landlock"))
		sa->landlock = true;
	else if (!strcmp(flag, "--seccomp"))
		sa->seccomp = true;
	else if (!strcmp(flag, "--preload"))
		sa->preload = true;        /* check that the command can load the preload */
	else if (!strcmp(flag, "--netfilter"))
		sa->netfilter = true;      /* Landlock handles no TCP; seccomp leaves AF_INET/6 to it */
	else if (!strcmp(flag, "--report-files"))
		sa->report_files = true;   /* the seccomp file/exec reporter */
	else if (!strcmp(flag, "--sensor"))
		sa->sensor = true;         /* the report-only sensor (seccomp and probes off) */
	else
		return false;
	return true;
}

static int parse_fd(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	return (*end || v < 0 || v > 1 << 20) ? -1 : (int)v;
}

int cmd_stage(int argc, char **argv)
{
	struct stage_args a = {.ctl_fd = -1, .stderr_fd = -1};
	int i;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "--ctl-fd") && i + 1 < argc) {
			a.ctl_fd = parse_fd(argv[++i]);
		} else if (!strcmp(argv[i], "--stderr-fd") && i + 1 < argc) {
			a.stderr_fd = parse_fd(argv[++i]);
		} else if (!strcmp(argv[i], "--close-fd") && i + 1 < argc) {
			/* what bwrap used and left open (the user namespace of --userns): never the command's */
			int fd = parse_fd(argv[++i]);
			if (fd > 2)
				close(fd);
		} else if (stage_flag_parse(argv[i], &a)) {
			continue;
		} else {
			sbx_msg("__stage: unexpected argument '%s' (internal command, used by sbxsup run)", argv[i]);
			return SBX_EXIT_INTERNAL;
		}
	}
	if (a.ctl_fd < 0 || i >= argc) {
		sbx_msg("__stage: internal command, used by sbxsup run: __stage --ctl-fd N [--landlock] "
			"[--seccomp] [--sensor] -- COMMAND...");
		return SBX_EXIT_INTERNAL;
	}
	a.cmd = argv + i;
#if defined(__SANITIZE_ADDRESS__)
	/* ASan builds only (make asan): the supervisor let this instrumented stage start behind the
	 * preload; the command must not inherit that setting. */
	if (getenv("SBXSUP_ASAN_STAGE")) {
		unsetenv("ASAN_OPTIONS");
		unsetenv("SBXSUP_ASAN_STAGE");
	}
#endif
	if (a.landlock || a.seccomp || a.sensor)
		a.pol = stage_policy();
	int rc = stage_exec(&a);
	/* Never run the supervisor's exit handlers inside the sandbox. */
	fflush(stderr);
	_exit(rc);
}
