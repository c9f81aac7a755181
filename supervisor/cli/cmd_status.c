/* status.c — `sbxsup status [--json]`: which layers work on this host, by functional probe.
 *
 * Promise: each layer is probed for real (bwrap: an actual sandbox starting `true` — status may
 * start processes, `run` never does so on its good path; seccomp, Landlock, netfilter, probes: the
 * layer modules' own probes, which load and discard; limits: which cgroup hierarchies we can write),
 * and every unavailable layer gets its reason and a remediation hint. JSON keys: bwrap_available,
 * bwrap_path, disabled_via_env, active (list of usable layers), layers {name: {available, level,
 * why, remediation}}. Exit 0 (the report itself is the result).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bwrap_layer.h"
#include "cgroup.h"
#include "cmd.h"
#include "detect.h"
#include "landlock_layer.h"
#include "layers.h"
#include "netfilter_layer.h"
#include "probes_layer.h"
#include "run_args.h"
#include "seccomp_layer.h"

struct lstat_ {
	bool available;
	char level[4600];
	char why[4600];
	char remedy[512];
};

static long read_sysctl(const char *path)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

static void userns_remedy(char *out, size_t len)
{
	out[0] = 0;
	size_t l = 0;
	if (read_sysctl("/proc/sys/kernel/unprivileged_userns_clone") == 0)
		l += (size_t)snprintf(out + l, len - l, "sysctl -w kernel.unprivileged_userns_clone=1; ");
	if (l < len && read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
		l += (size_t)snprintf(out + l, len - l,
				      "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (or an AppArmor "
				      "profile allowing userns for bwrap); ");
	if (l < len && read_sysctl("/proc/sys/user/max_user_namespaces") == 0)
		l += (size_t)snprintf(out + l, len - l, "sysctl -w user.max_user_namespaces=15000; ");
	if (!l)
		snprintf(out, len, "check that user namespaces work: bwrap --unshare-user --ro-bind / / true");
	else if (l >= 2 && l < len)
		out[l - 2] = 0;
}

/* Start a real sandbox the way run would (user, pid, ipc, uts, net namespaces) running `true`. */
static void probe_bwrap(struct lstat_ *s, char *path, size_t pathlen)
{
	if (bwrap_find(path, pathlen, s->why, sizeof s->why) < 0) {
		snprintf(s->remedy, sizeof s->remedy, "install bubblewrap (apt-get install bubblewrap)");
		return;
	}
	int ep[2];
	if (pipe2(ep, O_CLOEXEC) < 0) {
		snprintf(s->why, sizeof s->why, "pipe: %s", strerror(errno));
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(s->why, sizeof s->why, "fork: %s", strerror(errno));
		close(ep[0]);
		close(ep[1]);
		return;
	}
	if (pid == 0) {
		dup2(ep[1], 2);
		int nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
		}
		execl(path, path, "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		      "--unshare-net", "--unshare-cgroup-try", "--die-with-parent", "--new-session",
		      "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
		      "--", "true", (char *)NULL);
		dprintf(2, "exec %s: %s", path, strerror(errno));
		_exit(127);
	}
	close(ep[1]);
	char err[400];
	size_t el = 0;
	ssize_t n;
	while (el < sizeof err - 1 && (n = read(ep[0], err + el, sizeof err - 1 - el)) > 0)
		el += (size_t)n;
	err[el] = 0;
	close(ep[0]);
	while (el && (err[el - 1] == '\n' || err[el - 1] == ' '))
		err[--el] = 0;
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		s->available = true;
		snprintf(s->level, sizeof s->level, "%s: user, pid, ipc, uts, net, cgroup namespaces", path);
		return;
	}
	snprintf(s->why, sizeof s->why, "%s cannot create a sandbox: %s", path,
		 err[0] ? err : "it failed without a message");
	userns_remedy(s->remedy, sizeof s->remedy);
}

/* A layer's probe result: available at `level`, else the remedy to show (the probe wrote why). */
static void set_probed(struct lstat_ *s, bool ok, const char *level, const char *remedy)
{
	if (ok) {
		s->available = true;
		snprintf(s->level, sizeof s->level, "%s", level);
	} else {
		snprintf(s->remedy, sizeof s->remedy, "%s", remedy);
	}
}

static void probe_all(struct lstat_ st[SBX_L__N], char *bwrap, size_t bwraplen)
{
	char lib[4096];
	struct lstat_ *s;
	bool ok;

	s = &st[SBX_L_PRELOAD];
	ok = detect_preload(lib, sizeof lib, s->why, sizeof s->why) == 0;
	set_probed(s, ok, lib,
		   "install sbxsup (make install) or set SBXSUP_PRELOAD_LIB to libsbxpreload.so");

	probe_bwrap(&st[SBX_L_BWRAP], bwrap, bwraplen);

	s = &st[SBX_L_SECCOMP];
	char lv[96] = "";
	ok = sbx_seccomp_probe(lv, sizeof lv, s->why, sizeof s->why) == 1;
	set_probed(s, ok, lv, "a kernel with CONFIG_SECCOMP_FILTER and libseccomp >= 2.5");

	s = &st[SBX_L_LANDLOCK];
	int abi = sbx_landlock_probe(s->why, sizeof s->why);
	snprintf(lv, sizeof lv, "abi %d", abi);
	set_probed(s, abi > 0, lv,
		   "kernel >= 5.13 with CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= boot parameter");

	s = &st[SBX_L_NETFILTER];
	ok = sbx_netfilter_probe(s->why, sizeof s->why) == 1;
	set_probed(s, ok, "cgroup/connect4,6 sendmsg4,6 on a run cgroup v2",
		   "run as root (CAP_BPF, CAP_NET_ADMIN) with a writable cgroup v2 hierarchy mounted");

	s = &st[SBX_L_PROBES];
	lv[0] = 0;
	ok = sbx_probes_probe_full(lv, sizeof lv, s->why, sizeof s->why) == 1;
	set_probed(s, ok, lv,
		   "run as root (CAP_BPF + CAP_PERFMON) on a kernel with BTF (/sys/kernel/btf/vmlinux)");

	s = &st[SBX_L_LIMITS];
	s->available = true;
	char cg[400];
	cg_describe(cg, sizeof cg);
	snprintf(s->level, sizeof s->level, "rlimits; %s", cg);
	if (!strstr(cg, "writable)") && !strstr(cg, " writable"))
		snprintf(s->remedy, sizeof s->remedy,
			 "memory/pids limits fall back to rlimits: run as root or delegate a cgroup "
			 "(systemd-run --user --scope -p Delegate=yes)");
}

static const char usage[] =
	"usage: sbxsup status [--json]\n"
	"Probe which layers work on this host (bwrap actually starts a sandbox) and how to fix the rest.\n";

int cmd_status(int argc, char **argv)
{
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return 0;
		} else {
			sbx_msg("status: unknown argument '%s'", argv[i]);
			fputs(usage, stderr);
			return SBX_EXIT_INTERNAL;
		}
	}
	struct lstat_ st[SBX_L__N];
	memset(st, 0, sizeof st);
	char bwrap[4096] = "";
	probe_all(st, bwrap, sizeof bwrap);
	bool disabled = run_env_false(getenv("SBXSUP_SANDBOX"));

	if (json) {
		cJSON *o = cJSON_CreateObject();
		if (!o)
			return SBX_EXIT_INTERNAL;
		cJSON_AddBoolToObject(o, "bwrap_available", st[SBX_L_BWRAP].available);
		if (bwrap[0])
			cJSON_AddStringToObject(o, "bwrap_path", bwrap);
		else
			cJSON_AddNullToObject(o, "bwrap_path");
		cJSON_AddBoolToObject(o, "disabled_via_env", disabled);
		cJSON *act = cJSON_AddArrayToObject(o, "active");
		cJSON *layers = cJSON_AddObjectToObject(o, "layers");
		for (int l = 0; l < SBX_L__N; l++) {
			if (st[l].available && !disabled)
				cJSON_AddItemToArray(act, cJSON_CreateString(sbx_layer_name(l)));
			cJSON *x = cJSON_AddObjectToObject(layers, sbx_layer_name(l));
			cJSON_AddBoolToObject(x, "available", st[l].available);
			if (st[l].level[0])
				cJSON_AddStringToObject(x, "level", st[l].level);
			else
				cJSON_AddNullToObject(x, "level");
			if (st[l].available)
				cJSON_AddNullToObject(x, "why");
			else
				cJSON_AddStringToObject(x, "why", st[l].why[0] ? st[l].why : "unavailable");
			if (st[l].remedy[0])
				cJSON_AddStringToObject(x, "remediation", st[l].remedy);
			else
				cJSON_AddNullToObject(x, "remediation");
		}
		char *s = cJSON_Print(o);
		cJSON_Delete(o);
		if (!s)
			return SBX_EXIT_INTERNAL;
		puts(s);
		free(s);
		return 0;
	}
	printf("sbxsup %s — layers on this host%s\n", SBXSUP_VERSION,
	       disabled ? " (SBXSUP_SANDBOX disables them all for runs)" : "");
	for (int l = 0; l < SBX_L__N; l++) {
		printf("  %-10s %-4s %s\n", sbx_layer_name(l), st[l].available ? "yes" : "NO",
		       st[l].available ? st[l].level : (st[l].why[0] ? st[l].why : "unavailable"));
		if (st[l].remedy[0])
			printf("  %-10s      fix: %s\n", "", st[l].remedy);
	}
	return 0;
}
