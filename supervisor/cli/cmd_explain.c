/* cmd_explain.c — `sbxsup explain [-m FILE] [-w DIR] [--path P [--write|--exec]] [--host H[:PORT]]`.
 *
 * Promise: explains a manifest with the *same* compiled policy every layer evaluates (pol_build +
 * pol_open, names not resolved): without --path/--host, a table of what is granted per layer
 * (preload/probes globs, bwrap/Landlock directories and masks, network rules, env, limits, ignored
 * capabilities, warnings); with --path/--host, one line per query: "P: read DENIED by <rule>" or
 * "... ALLOWED by <rule>" — exit 0 either way. Without -m the built-in default manifest is
 * explained. Bad arguments or an invalid manifest: exit 125 with a message. Paths and rule texts
 * (a manifest, e.g. one `learn` wrote, may hold an executor's names) are printed escaped
 * (common/quote.h); what is never writable is listed from the one list (syspaths.h), and a write
 * query on it says so. A path a manifest `deny` refuses is followed by the layers that hold it
 * (preload, seccomp, bwrap, landlock, probes) and how, as a run would start now.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_opt.h"
#include "cmd.h"
#include "manifest.h"
#include "policy.h"
#include "policy_build.h"
#include "quote.h"
#include "syspaths.h"

#define MAX_QUERIES 32

static const char explain_usage[] =
	"usage: sbxsup explain [-m FILE] [-w WORKSPACE] [--path P [--write|--exec]]... [--host H[:PORT]]...\n"
	"\n"
	"Show what a manifest grants, per layer, from the same compiled policy every layer enforces.\n"
	"With --path or --host: the decision for that access and the rule that made it (exit 0 either\n"
	"way); for a path a manifest deny refuses, also which layers hold it. Without -m: the built-in\n"
	"default manifest.\n"
	"\n"
	"  -m, --manifest FILE    the manifest (default: the built-in default manifest)\n"
	"  -w, --workspace DIR    workspace (default: the current directory)\n"
	"  -p, --path P           decide a read of P (~ and relative paths are expanded); for a path a\n"
	"                         manifest deny refuses, which layers and filters hold it per mode\n"
	"      --write            decide writes instead of reads for the --path queries\n"
	"      --exec             decide execution instead of reads for the --path queries\n"
	"  -H, --host H[:PORT]    decide a connection to H (name, IPv4, or [IPv6]; no port = any port)\n"
	"  -h, --help             this text\n";

static void access_str(unsigned a, char out[5])
{
	out[0] = (a & POL_READ) ? 'r' : '-';
	out[1] = (a & POL_WRITE) ? 'w' : '-';
	out[2] = (a & POL_EXEC) ? 'x' : '-';
	out[3] = (a & POL_TREE) ? 't' : ' ';
	out[4] = '\0';
}

/* s escaped for a terminal, in buf (SBX_Q_MAX bytes) */
static const char *esc(const char *s, char *buf)
{
	snprintf(buf, SBX_Q_MAX, "%s", s ? s : "");
	sbx_escape_fit(buf, SBX_Q_MAX);
	return buf;
}

static char eb1[SBX_Q_MAX], eb2[SBX_Q_MAX];

static void print_hints(const char *what, const struct mf_hint *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("  %-6s %-40s %s: %s\n", what, esc(h[i].abs, eb1), h[i].jpath, esc(h[i].glob, eb2));
}

static void fmt_net(const struct pol_net *n, char *out, size_t ol)
{
	char ip[INET6_ADDRSTRLEN] = "?", port[16] = "";
	if (n->port)
		snprintf(port, sizeof port, ":%u", n->port);
	else
		snprintf(port, sizeof port, " (any port)");
	if (n->family == 0) {
		snprintf(out, ol, "%s%s", n->name ? n->name : "?", port);
		return;
	}
	inet_ntop(n->family, n->addr, ip, sizeof ip);
	unsigned full = n->family == AF_INET ? 32 : 128;
	char pfx[8] = "";
	if (n->prefix != full)
		snprintf(pfx, sizeof pfx, "/%u", n->prefix);
	if (n->family == AF_INET6)
		snprintf(out, ol, "[%s]%s%s", ip, pfx, port);
	else
		snprintf(out, ol, "%s%s%s", ip, pfx, port);
	if (n->is_name && n->name) {
		size_t l = strlen(out);
		snprintf(out + l, ol - l, " (%s)", n->name);
	}
}

static void print_table(const struct manifest *m, const struct policy *p, const struct mf_errors *e)
{
	char acc[5], buf[600];
	printf("executor:  %s\n", m->name);
	printf("manifest:  %s (sha256 %s)\n", m->source, m->sha256_hex);
	printf("autonomy:  %s\n", m->autonomy == MF_AUTONOMY_READONLY ? "readonly (writes became reads, "
	       "network removed)" : m->autonomy == MF_AUTONOMY_FULL ? "full (network unrestricted)"
	       : "supervised (as written)");
	printf("workspace: %s\nhome:      %s\n", m->workspace, m->home);
	if (m->code_path)
		printf("code:      %s (directory %s readable)\n", m->code_path, m->code_dir);
	printf("code:exec: %s\n", m->code_exec ? "granted (programs in readable directories may be executed)"
	       : "not granted (only the command itself is executed)");

	printf("\npreload + probes — path globs from the manifest (deny wins over every grant):\n");
	if (!m->nreads && !m->nwrites && !m->ndenies)
		printf("  (none: only the built-in rules below apply)\n");
	print_hints("deny", m->denies, m->ndenies);
	print_hints("write", m->writes, m->nwrites);
	print_hints("read", m->reads, m->nreads);
	printf("  built in: system paths and /etc read-only, \"/\" listable, the command itself readable and\n"
	       "  executable, workspace, private /tmp and /dev/null & co. writable; other users' homes and\n"
	       "  these secrets never readable:\n   ");
	char sb[128];
	for (size_t i = 0, col = 3; pol_build_secret(i, sb, sizeof sb); i++) {
		const char *sec = pol_build_secret(i, sb, sizeof sb);
		col += strlen(sec) + 1;
		if (col > 100) {
			printf("\n   ");
			col = 3 + strlen(sec) + 1;
		}
		printf(" %s", sec);
	}
	printf("\n  never writable, whatever the manifest grants (a write grant reaching them is invalid):\n   ");
	for (size_t i = 0; never_writable(i); i++)
		printf(" %s", never_writable(i));
	printf("\n");

	size_t nd = pol_dir_count(p);
	printf("\nbwrap + landlock — directories (globs truncated before their first glob component;\n"
	       "directories that do not exist are skipped at run time):\n");
	for (size_t i = 0; i < nd; i++) {
		struct pol_dir d;
		if (pol_dir_get(p, i, &d) < 0)
			continue;
		access_str(d.access, acc);
		printf("  %s  %-40s %s\n", acc, esc(d.path, eb1), esc(pol_rule_text(p, d.rule), eb2));
	}
	size_t nm = pol_mask_count(p);
	printf("\nbwrap masks — hidden inside the sandbox when they exist:\n");
	if (!nm)
		printf("  (none)\n");
	for (size_t i = 0; i < nm; i++) {
		struct pol_dir d;
		if (pol_mask_get(p, i, &d) < 0)
			continue;
		printf("  %-45s %s\n", esc(d.path, eb1), esc(pol_rule_text(p, d.rule), eb2));
	}

	printf("\nnetwork — netfilter, landlock ports, preload:\n");
	switch (pol_net_mode(p)) {
	case POL_NET_NONE:
		printf("  none (no network capability%s)\n",
		       m->autonomy == MF_AUTONOMY_READONLY ? "; autonomy readonly removes the network" : "");
		break;
	case POL_NET_ANY:
		printf("  ANY host and port (%s)\n", m->autonomy == MF_AUTONOMY_FULL ? "autonomy full"
		       : "a network capability without hosts");
		break;
	case POL_NET_LIST: {
		size_t nn = pol_net_count(p);
		for (size_t i = 0; i < nn; i++) {
			struct pol_net n;
			if (pol_net_get(p, i, &n) < 0)
				continue;
			fmt_net(&n, buf, sizeof buf);
			printf("  %-45s %s\n", buf, pol_rule_text(p, n.rule));
		}
		printf("  (names are resolved at run start; DNS to the host's resolvers is allowed when a\n"
		       "  name is granted)\n");
		break;
	}
	}
	if (m->nnet_modes) {
		printf("  modes:");
		for (size_t i = 0; i < m->nnet_modes; i++)
			printf(" %s", m->net_modes[i]);
		printf("\n");
	}

	printf("\nenv — the executor starts from an empty environment plus:\n");
	printf("  always: PATH HOME LANG TERM\n  pass:  ");
	for (size_t i = 0; i < m->nenv_pass; i++)
		printf(" %s", m->env_pass[i]);
	printf("%s\n  set:   ", m->nenv_pass ? "" : " (none)");
	for (size_t i = 0; i < m->nenv_set; i++)
		printf(" %s=%s", m->env_set[i].name, m->env_set[i].value);
	printf("%s\n", m->nenv_set ? "" : " (none)");
	printf("  secret-shaped names (*_KEY, *_TOKEN, *PASSWORD*, AWS_*, ...) are dropped even when listed.\n");

	const struct mf_limits *l = &m->limits;
	printf("\nlimits — rlimits, cgroup, wall clock (- = not limited by the manifest):\n");
	const struct { const char *n; long v; } lim[] = {
		{"wall_s", l->wall_s}, {"cpu_s", l->cpu_s}, {"memory_mb", l->memory_mb},
		{"pids", l->pids}, {"fsize_mb", l->fsize_mb}, {"nofile", l->nofile},
	};
	for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
		if (lim[i].v < 0)
			printf("  %-10s -\n", lim[i].n);
		else
			printf("  %-10s %ld\n", lim[i].n, lim[i].v);
	}
	printf("  %-10s 0\n", "core");

	printf("\nignored capabilities (accepted, no effect on the sandbox):\n");
	if (!m->nignored)
		printf("  (none)\n");
	for (size_t i = 0; i < m->nignored; i++)
		printf("  %s\n", m->ignored_caps[i]);
	if (e->nwarn) {
		printf("\nwarnings:\n");
		for (size_t i = 0; i < e->nwarn; i++)
			printf("  %s\n", e->warn[i]);
	}
}

/* For a path a manifest deny refuses: which layer holds it, and how (issue 28; docs/layers.md). */
static void deny_layers(const struct policy *p, const char *abs, uint32_t rule)
{
	bool manifest = false;
	uint32_t r;
	for (size_t i = 0; pol_manifest_deny(p, i, &r); i++)
		manifest |= r == rule;
	if (!manifest)
		return;
	struct stat st;
	bool exists = lstat(abs, &st) == 0;
	/* the narrowest read or write grant holding the path (what bwrap binds, Landlock grants) */
	struct pol_dir g = {0}, d;
	for (size_t i = 0; i < pol_dir_count(p); i++)
		if (pol_dir_get(p, i, &d) == 0 && d.path && (d.access & (POL_READ | POL_WRITE)) &&
		    path_under(abs, d.path) && (!g.path || strlen(d.path) > strlen(g.path)))
			g = d;
	printf("  enforced by:\n");
	printf("    preload   the deny's glob, at every libc call (dynamically linked programs)\n");
	printf("    seccomp   the deny decision at each open, exec and write-class call, for files that "
	       "exist at start and files created later (raw system calls, static binaries; opens performed "
	       "by sbxsup on the object decided; an exec decided again on the binary it loads and the "
	       "descriptors the new image holds, its caller "
	       "traced to the exec stop); io_uring is refused whole. Made in the seccomp layer's "
	       "filter (full, no-bwrap, --layers seccomp)\n");
	printf("    sensor    the same decision, with the seccomp layer off, in the report-only sensor's "
	       "filter (--layers bwrap, --layers landlock, --layers preload)\n");
	printf("    guard     the same decision in the privilege guard's filter where neither is installed "
	       "(preload-only: --layers preload,probes; --sensor off)\n");
	printf("    (none)    without user notification (an outer sandbox holds the listener) a file created "
	       "later is not held below libc; run.start.level.deny names the holder of each run\n");
	if (!g.path) {
		printf("    bwrap     not bound: nothing granted holds it\n");
		printf("    landlock  not granted\n");
	} else if (!exists) {
		printf("    bwrap     not masked: it does not exist now (created later: the seccomp deny "
		       "decision holds it)\n");
		printf("    landlock  not left out: it does not exist now (the grant %s allows it; the seccomp "
		       "deny decision holds it)\n", esc(g.path, eb2));
	} else {
		printf("    bwrap     masked at start (inside the grant %s)\n", esc(g.path, eb2));
		printf("    landlock  left out at start: %s is entered entry by entry%s\n", esc(g.path, eb2),
		       (g.access & POL_WRITE) ? " with --layers landlock only (a write grant: with seccomp on "
						"it stays whole and the seccomp decision holds the deny)" : "");
	}
	printf("    probes    report what reaches the kernel\n");
}

static int query_path(const struct policy *p, const struct mf_ctx *ctx, const char *q, unsigned acc)
{
	char *abs = mf_expand_path(q, ctx);
	if (!abs) {
		sbx_msg("explain: --path '%s': %s", q, errno == ENAMETOOLONG ? "too long"
			: "not a path (empty, or ~user)");
		return -1;
	}
	struct pol_decision d;
	pol_path(p, abs, acc, &d);
	const char *an = acc & POL_WRITE ? "write" : acc & POL_EXEC ? "exec" : "read";
	printf("%s: %s %s by %s\n", esc(q, eb1), an, d.verdict == POL_ALLOW ? "ALLOWED" : "DENIED",
	       esc(pol_rule_text(p, d.rule), eb2));
	for (size_t i = 0; (acc & POL_WRITE) && never_writable(i); i++)
		if (path_under(abs, never_writable(i))) {
			printf("  (%s is never writable: %s)\n", never_writable(i),
			       d.verdict == POL_ALLOW ? "allowed only as part of the workspace" : "no manifest can grant it");
			break;
		}
	if (strcmp(abs, q))
		printf("  (path: %s)\n", esc(abs, eb1));
	if (d.verdict == POL_DENY)
		deny_layers(p, abs, d.rule);
	free(abs);
	return 0;
}

static int query_host(const struct policy *p, const char *q)
{
	struct mf_host h;
	char why[160];
	if (mf_parse_host(q, &h, why, sizeof why) < 0) {
		sbx_msg("explain: --host '%s': %s", q, why);
		return -1;
	}
	struct pol_decision d;
	if (h.kind == MF_HOST_NAME) {
		pol_net_name(p, h.name, h.port, &d);
	} else {
		unsigned full = h.kind == MF_HOST_V4 ? 32 : 128;
		if (h.prefix != full) {
			sbx_msg("explain: --host '%s': give one address, not a range", q);
			mf_host_clear(&h);
			return -1;
		}
		pol_net_addr(p, h.kind == MF_HOST_V4 ? AF_INET : AF_INET6, h.addr, h.port, &d);
	}
	printf("%s: %s %s by %s\n", q, h.kind == MF_HOST_NAME ? "resolve+connect" : "connect",
	       d.verdict == POL_ALLOW ? "ALLOWED" : "DENIED", pol_rule_text(p, d.rule));
	mf_host_clear(&h);
	return 0;
}

int cmd_explain(int argc, char **argv)
{
	enum { O_WRITE = 1000, O_EXEC };
	static const struct option opts[] = {
		{"manifest", required_argument, NULL, 'm'}, {"workspace", required_argument, NULL, 'w'},
		{"path", required_argument, NULL, 'p'},     {"host", required_argument, NULL, 'H'},
		{"write", no_argument, NULL, O_WRITE},      {"exec", no_argument, NULL, O_EXEC},
		{"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
	};
	const char *file = NULL, *ws = NULL, *paths[MAX_QUERIES], *hosts[MAX_QUERIES];
	size_t np = 0, nh = 0;
	unsigned acc = POL_READ;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:m:w:p:H:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			file = optarg;
			break;
		case 'w':
			ws = optarg;
			break;
		case 'p':
		case 'H':
			if ((c == 'p' ? np : nh) >= MAX_QUERIES) {
				sbx_msg("explain: at most %d --path and %d --host queries", MAX_QUERIES, MAX_QUERIES);
				return SBX_EXIT_INTERNAL;
			}
			if (c == 'p')
				paths[np++] = optarg;
			else
				hosts[nh++] = optarg;
			break;
		case O_WRITE:
			acc = POL_WRITE;
			break;
		case O_EXEC:
			acc = POL_EXEC;
			break;
		case 'h':
			fputs(explain_usage, stdout);
			return 0;
		default:
			cli_bad_option("explain", argv, opts, c);
			return SBX_EXIT_INTERNAL;
		}
	}
	if (optind < argc) {
		sbx_msg("explain: unexpected argument '%s' (see sbxsup explain --help)", argv[optind]);
		return SBX_EXIT_INTERNAL;
	}
	if (acc != POL_READ && !np) {
		sbx_msg("explain: --write/--exec apply to --path queries; give --path P");
		return SBX_EXIT_INTERNAL;
	}
	struct mf_ctx ctx;
	char err[512];
	if (mf_ctx_init(&ctx, ws, err, sizeof err) < 0) {
		sbx_msg("explain: %s", err);
		return SBX_EXIT_INTERNAL;
	}
	struct mf_errors e = {0};
	struct manifest *m = NULL;
	char qf[SBX_Q_MAX];
	const char *shown = file ? sbx_q(file, qf, sizeof qf) : "(built-in default)";
	int rc = file ? manifest_load(file, &ctx, &m, &e) : manifest_load_default(&ctx, &m, &e);
	if (rc < 0) {
		for (size_t i = 0; i < e.n; i++)
			sbx_msg("%s: %s", shown, e.msg[i]);
		if (e.ndropped)
			sbx_msg("%s: ... and %zu more problem(s) not listed", shown, e.ndropped);
		mf_errors_free(&e);
		return SBX_EXIT_INTERNAL;
	}
	void *blob = NULL;
	size_t len = 0;
	struct pol_build_opts bo = {.resolve = false, .uid = ctx.uid};
	const char *why = NULL;
	const struct policy *p = NULL;
	int ret = SBX_EXIT_INTERNAL;
	if (pol_build(m, &bo, &blob, &len, err, sizeof err) < 0) {
		sbx_escape_fit(err, sizeof err); /* it may quote a glob: someone's names */
		sbx_msg("explain: %s: cannot compile the policy: %s", shown, err);
		goto out;
	}
	if (!(p = pol_open(blob, len, &why))) {
		sbx_msg("explain: %s: compiled policy does not verify: %s", shown, why ? why : "?");
		goto out;
	}
	ret = 0;
	if (!np && !nh)
		print_table(m, p, &e);
	for (size_t i = 0; i < np; i++)
		if (query_path(p, &ctx, paths[i], acc) < 0)
			ret = SBX_EXIT_INTERNAL;
	for (size_t i = 0; i < nh; i++)
		if (query_host(p, hosts[i]) < 0)
			ret = SBX_EXIT_INTERNAL;
	if (fflush(stdout) != 0) {
		sbx_msg("explain: cannot write the output");
		ret = SBX_EXIT_INTERNAL;
	}
out:
	free(blob);
	manifest_free(m);
	mf_errors_free(&e);
	return ret;
}
