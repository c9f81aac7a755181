/* audit_writer.c — audit writer throughput and audit-file generator, for `make bench`.
 *
 * Promise: uses the real writer (audit/audit.h: cJSON event, keyed BLAKE2b-256 MAC chain with a fixed
 * bench key — what `sbxsup run` writes —, one write(2) per line).
 *   audit_writer rate FILE ROUNDS N   each round opens FILE (fresh run), emits N preload.deny
 *                                     events, closes; prints {"op":"audit_emit","rounds":R,
 *                                     "calls":N,"ns":[ns per event of each round],"bytes":B}
 *                                     and removes FILE; also "cpu_ns": the same per round in
 *                                     process CPU time, user+system (what an idle host gives).
 * FILE must be absent or a regular file: anything else is refused, never unlinked.
 *   audit_writer gen FILE MB          writes runs (run.start, 10000 mixed denial events, run.end)
 *                                     to FILE until it holds at least MB MiB; prints
 *                                     {"op":"gen","bytes":B,"events":E,"runs":R}.
 * Exit 0, or 1 with a message when the writer failed (a figure from a failed writer is no figure).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "audit_key.h"

/* A fixed key: the figures measure the MAC, not key handling. */
static void bench_key(struct audit *a)
{
	struct audit_key k;
	memcpy(k.k, "sbxsup-bench-key-sbxsup-bench-ke", AUDIT_KEY_BYTES);
	audit_key_id(k.k, k.id);
	audit_set_key(a, &k);
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int emit_deny(struct audit *a, long i)
{
	cJSON *ev = audit_event(a, "preload.deny", "preload");
	if (!ev)
		return -1;
	char path[64];
	snprintf(path, sizeof path, "/home/user/.ssh/id_%ld", i % 97);
	cJSON_AddNumberToObject(ev, "pid", 4242);
	audit_add_str(ev, "comm", "executor", 16);
	audit_add_str(ev, "op", "open", 16);
	audit_add_str(ev, "path", path, 4096);
	audit_add_str(ev, "access", "read", 16);
	audit_add_str(ev, "rule", "builtin:secret: ~/.ssh", 256);
	cJSON_AddNumberToObject(ev, "errno", 13);
	return audit_emit(a, ev);
}

static int emit_violation(struct audit *a, long i)
{
	cJSON *ev = audit_event(a, "kernel.violation", "kernel");
	if (!ev)
		return -1;
	cJSON_AddNumberToObject(ev, "pid", 4243);
	audit_add_str(ev, "comm", "raw", 16);
	audit_add_str(ev, "exe", "/usr/bin/raw", 4096);
	audit_add_str(ev, "syscall", "openat", 32);
	audit_add_str(ev, "path", "/etc/shadow", 4096);
	audit_add_str(ev, "requested", "/etc/shadow", 4096);
	audit_add_str(ev, "access", "read", 16);
	audit_add_str(ev, "rule", "builtin:secret: /etc/shadow", 256);
	audit_add_str(ev, "outcome", i % 50 ? "contained" : "breach", 16);
	if (i % 50)
		cJSON_AddNumberToObject(ev, "errno", 13);
	audit_add_str(ev, "sensor", "tp_btf/sys_enter", 32);
	return audit_emit(a, ev);
}

static int emit_start(struct audit *a)
{
	cJSON *ev = audit_event(a, "run.start", "kernel");
	if (!ev)
		return -1;
	cJSON *argv = cJSON_AddArrayToObject(ev, "argv");
	cJSON_AddItemToArray(argv, cJSON_CreateString("/usr/bin/python3"));
	cJSON_AddItemToArray(argv, cJSON_CreateString("tool.py"));
	cJSON *m = cJSON_AddObjectToObject(ev, "manifest");
	audit_add_str(m, "path", "/opt/executors/bench.json", 4096);
	audit_add_str(m, "sha256", "00b00f1aa9ead2797f2fd93433c694a365a9d42be9d37a02c5ea5c1ea4e9dbb6", 64);
	cJSON_AddNumberToObject(ev, "uid", 1000);
	cJSON *l = cJSON_AddObjectToObject(ev, "layers");
	static const char *const names[] = { "preload", "bwrap", "seccomp", "landlock", "netfilter",
					     "probes", "limits" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		cJSON_AddBoolToObject(l, names[i], true);
	cJSON_AddObjectToObject(ev, "why");
	audit_add_str(ev, "autonomy", "supervised", 16);
	return audit_emit(a, ev);
}

static int emit_end(struct audit *a)
{
	cJSON *ev = audit_event(a, "run.end", "kernel");
	if (!ev)
		return -1;
	cJSON_AddNumberToObject(ev, "exit", 1);
	cJSON_AddNumberToObject(ev, "signal", 0);
	cJSON_AddNumberToObject(ev, "duration_ms", 1234);
	cJSON_AddItemToObject(ev, "counts", audit_counts(a));
	cJSON_AddNumberToObject(ev, "lost", 0);
	return audit_emit(a, ev);
}

/* Removes FILE if it is a regular file (or absent). Anything else (a device such as /dev/null, a
 * directory, a symlink) is refused: this program only ever deletes files it may have written. */
static int reset_target(const char *file)
{
	struct stat st;
	if (lstat(file, &st) < 0)
		return 0;
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "audit_writer: %s is not a regular file: refusing to use it\n", file);
		return -1;
	}
	return unlink(file);
}

/* rounds <= 1000 (checked by main) */
static int rate(const char *file, long rounds, long n)
{
	char err[256];
	struct stat st;
	if (reset_target(file) < 0)
		return 1;
	printf("{\"op\":\"audit_emit\",\"rounds\":%ld,\"calls\":%ld,\"ns\":[", rounds, n);
	double cpu[1000];
	for (long r = 0; r < rounds; r++) {
		if (reset_target(file) < 0)
			return 1;
		struct audit a;
		if (audit_open(&a, file, "bench", err, sizeof err) < 0) {
			fprintf(stderr, "audit_writer: %s\n", err);
			return 1;
		}
		bench_key(&a);
		double t0 = now_ns(), c0 = cpu_ns();
		for (long i = 0; i < n; i++) {
			if (emit_deny(&a, i) < 0) {
				fprintf(stderr, "audit_writer: emit failed\n");
				audit_close(&a);
				return 1;
			}
		}
		double dt = now_ns() - t0;
		cpu[r] = (cpu_ns() - c0) / (double)n;
		audit_close(&a);
		printf("%s%.1f", r ? "," : "", dt / (double)n);
	}
	long long bytes = stat(file, &st) == 0 ? (long long)st.st_size : -1;
	printf("],\"bytes\":%lld,\"cpu_ns\":[", bytes);
	for (long r = 0; r < rounds; r++)
		printf("%s%.1f", r ? "," : "", cpu[r]);
	printf("]}\n");
	return reset_target(file) < 0 ? 1 : 0;
}

static int gen(const char *file, long mb)
{
	char err[256];
	long long target = (long long)mb << 20, bytes = 0;
	long events = 0, runs = 0;
	struct stat st;
	if (reset_target(file) < 0)
		return 1;
	while (bytes < target) {
		struct audit a;
		if (audit_open(&a, file, "bench", err, sizeof err) < 0) {
			fprintf(stderr, "audit_writer: %s\n", err);
			return 1;
		}
		bench_key(&a);
		int bad = emit_start(&a) < 0;
		for (long i = 0; i < 10000 && !bad; i++)
			bad = (i % 4 ? emit_deny(&a, i) : emit_violation(&a, i)) < 0;
		bad = bad || emit_end(&a) < 0;
		events += (long)a.seq;
		audit_close(&a);
		if (bad) {
			fprintf(stderr, "audit_writer: emit failed\n");
			return 1;
		}
		runs++;
		if (stat(file, &st) < 0) {
			perror(file);
			return 1;
		}
		bytes = (long long)st.st_size;
	}
	printf("{\"op\":\"gen\",\"bytes\":%lld,\"events\":%ld,\"runs\":%ld}\n", bytes, events, runs);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "rate") && atol(argv[3]) > 0 && atol(argv[3]) <= 1000 &&
	    atol(argv[4]) > 0)
		return rate(argv[2], atol(argv[3]), atol(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "gen") && atol(argv[3]) > 0)
		return gen(argv[2], atol(argv[3]));
	fprintf(stderr, "usage: audit_writer rate FILE ROUNDS N | gen FILE MB\n");
	return 2;
}
