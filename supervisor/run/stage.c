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
#include "layer.h"
#include "report.h"
#include "sandbox_paths.h" /* SBX_RUN_POLICY: the fixed channel's path */

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
	char st[CTL_MAX - 16] = "", why[512], path[4096];

	if (a->stderr_fd >= 0 && a->stderr_fd != 2) {
		if (dup2(a->stderr_fd, 2) < 0)
			return SBX_EXIT_INTERNAL;
		close(a->stderr_fd);
	}
	close_cloexec(a->ctl_fd);
	int resolve_err = resolve_cmd(a->cmd[0], a->envp, path, sizeof path) < 0 ? errno : 0;
	/* The layers' stage ops (layer.h), in table order: before the capability drop (Landlock opens
	 * every granted path with the stage's privileges), then after it, as the command will run (the
	 * preload's check; seccomp's filter — the layer's, the report-only sensor's or the privilege
	 * guard's alone — last before "ready": nothing after an install may make a call it notifies). */
	struct layer_stage ls = {.on = a->layers, .netfilter = a->netfilter, .report_files = a->report_files,
				 .sensor = a->sensor, .keep_caps = a->keep_caps, .etc_view = a->etc_view,
				 .pol = a->pol,
				 .cmd_path = resolve_err ? NULL : path, .envp = a->envp,
				 .status = st, .status_len = sizeof st, .listener = -1};
	if (layers_stage(&ls, LAYER_STAGE_BEFORE_CAPS) < 0)
		return SBX_EXIT_INTERNAL;
	/* The drop reads /proc (cap_last_cap), and with the seccomp reporter on, an open after the
	 * install would wait for a supervisor that has not got the listener yet; seccomp needs
	 * no_new_privs, which the drop sets. The executor never runs with capabilities. */
	why[0] = 0;
	if (a->keep_caps)
		snprintf(why, sizeof why, "kept (SBXSUP_SANDBOX disables every layer)");
	else if (sbx_caps_drop(why, sizeof why) < 0) {
		sbx_msg("dropping capabilities failed: %s", why);
		return SBX_EXIT_INTERNAL;
	}
	layer_stage_add(&ls, "caps", why);
	if (layers_stage(&ls, LAYER_STAGE_AFTER_CAPS) < 0)
		return SBX_EXIT_INTERNAL;
	int listener = ls.listener;
	/* the supervisor tells the caller (result record) that sbxsup, not the command, said 126/127 */
	if (resolve_err)
		layer_stage_add(&ls, "command", resolve_err == ENOENT || resolve_err == ENOTDIR ? "not_found"
								      : "not_executable");
	/* by number: the filter notifies every sendmsg, the supervisor takes it (ctl.h) */
	if (ctl_send_ready(a->ctl_fd, st, listener, ls.listener_by_number) < 0)
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
	unsigned bit = layers_stage_flag(flag); /* a layer's own flag (layer.h layer_stage_ops) */
	unsigned opt = layers_stage_option(flag); /* an option beside them (layer.h LAYER_STAGE_OPT_*) */
	if (bit)
		sa->layers |= bit;
	else if (opt) {
		sa->netfilter |= !!(opt & LAYER_STAGE_OPT_NETFILTER); /* Landlock handles no TCP; seccomp
								      * leaves AF_INET/6 to it */
		sa->report_files |= !!(opt & LAYER_STAGE_OPT_REPORT_FILES); /* the file/exec reporter */
		sa->sensor |= !!(opt & LAYER_STAGE_OPT_SENSOR); /* the report-only sensor */
		sa->etc_view |= !!(opt & LAYER_STAGE_OPT_ETC_VIEW); /* /etc is bwrap's view: no secrets */
	} else
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
	struct layer_stage want = {.on = a.layers, .sensor = a.sensor};
	if (layers_stage_wants_policy(&want))
		a.pol = stage_policy();
	int rc = stage_exec(&a);
	/* Never run the supervisor's exit handlers inside the sandbox. */
	fflush(stderr);
	_exit(rc);
}
