/* kviolation.c — the kernel.violation event (kviolation.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "kviolation.h"

static const char *uring_op_name(int op)
{
	static const char *const n[] = { "nop", "readv", "writev", "fsync", "read_fixed", "write_fixed",
					 "poll_add", "poll_remove", "sync_file_range", "sendmsg", "recvmsg",
					 "timeout", "timeout_remove", "accept", "async_cancel", "link_timeout",
					 "connect", "fallocate", "openat", "close", "files_update", "statx",
					 "read", "write", "fadvise", "madvise", "send", "recv", "openat2",
					 "epoll_ctl", "splice", "provide_buffers", "remove_buffers", "tee",
					 "shutdown", "renameat", "unlinkat", "mkdirat", "symlinkat", "linkat" };
	return op >= 0 && (size_t)op < sizeof(n) / sizeof(n[0]) ? n[op] : NULL;
}

/* The exe's full path when /proc agrees with the kernel's dentry name, else the dentry name. */
static void exe_path(const struct kv_view *v, char *out, size_t outlen)
{
	char link[64], buf[4096];
	snprintf(out, outlen, "%s", v->exe);
	snprintf(link, sizeof(link), "/proc/%u/exe", v->pid);
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return;
	buf[n] = 0;
	const char *b = strrchr(buf, '/');
	b = b ? b + 1 : buf;
	if (v->exe[0] && strcmp(b, v->exe) == 0)
		snprintf(out, outlen, "%s", buf);
}

const char *kv_outcome(const struct kv_view *v)
{
	if (v->outcome)
		return v->outcome;
	return v->undecidable ? "undecidable" : v->contained ? "contained" : "breach";
}

int kv_emit(struct audit *a, const struct kv_view *v)
{
	cJSON *ev = audit_event(a, "kernel.violation", "kernel");
	if (!ev)
		return -1;
	char exe[4096];
	if (v->exe_path)
		snprintf(exe, sizeof(exe), "%s", v->exe_path);
	else
		exe_path(v, exe, sizeof(exe));
	cJSON_AddNumberToObject(ev, "pid", v->pid);
	audit_add_str(ev, "comm", v->comm, 16);
	audit_add_str(ev, "exe", exe, 4096);
	audit_add_str(ev, "syscall", v->syscall, 64);
	if (v->is_net && !v->is_unix) {
		cJSON_AddStringToObject(ev, "addr", v->addr);
		cJSON_AddNumberToObject(ev, "port", v->port);
	} else if (v->path[0] || v->is_unix) {
		audit_add_str(ev, "path", v->path, sizeof(v->path));
		audit_add_str(ev, "requested", v->requested, sizeof(v->requested));
	}
	if (v->io_op >= 0) {
		const char *on = uring_op_name(v->io_op);
		if (on)
			cJSON_AddStringToObject(ev, "op", on);
		else
			cJSON_AddNumberToObject(ev, "op", v->io_op);
	}
	if (v->sock[0])
		cJSON_AddStringToObject(ev, "socket", v->sock);
	if (v->is_signal) {
		cJSON_AddNumberToObject(ev, "target_pid", v->target);
		if (v->sig >= 0)
			cJSON_AddNumberToObject(ev, "signal", v->sig);
	}
	cJSON_AddStringToObject(ev, "access", v->access ? v->access : "?");
	audit_add_str(ev, "rule", v->rule ? v->rule : "?", 1024);
	cJSON_AddStringToObject(ev, "outcome", kv_outcome(v));
	if (v->failed)
		cJSON_AddNumberToObject(ev, "errno", v->err);
	if (v->compat)
		cJSON_AddTrueToObject(ev, "compat");
	if (v->raced) {
		cJSON_AddTrueToObject(ev, "raced");
		audit_add_str(ev, "path_raced", v->path_raced, sizeof(v->path_raced));
		if (v->raced_denied)
			cJSON_AddStringToObject(ev, "sev", "critical");
	}
	if (v->count > 0) {                      /* records the ring could not take, counted in the kernel */
		cJSON_AddNumberToObject(ev, "count", (double)v->count);
		cJSON_AddStringToObject(ev, "summary", "ring overflow");
	}
	if (v->count > 0) {
		/* a distinct sensor keeps the audit writer from coalescing a summary (which carries its
		 * own count) with the individual lines of the same call */
		char sn[96];
		snprintf(sn, sizeof(sn), "%s (ring overflow)", v->sensor ? v->sensor : "?");
		cJSON_AddStringToObject(ev, "sensor", sn);
	} else {
		cJSON_AddStringToObject(ev, "sensor", v->sensor);
	}
	return audit_emit(a, ev);
}
