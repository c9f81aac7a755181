/* probes_cmd.c — `sbxsup probes load|unload|status|expire`: manage the pinned probe program set.
 *
 * Promise: `load` loads and attaches the probes once (best tier, see probes_bpf.h) and pins maps and
 * links under /sys/fs/bpf/sbxsup/probes (mounting bpffs when missing), so that later runs only add
 * a per-run entry instead of loading and verifying programs; `unload` removes the pins (refused
 * while a live run uses the set, unless --force) and the automatic shared set when it is idle (no run
 * holds it); `expire` removes the automatic set only when it is idle past its deadline (for a timer
 * on a host where no run may come); `status` says what is pinned, which tier, how many runs use it, and until when an idle
 * shared set stays loaded. Exit 0 on success, 1 when the action could not be done, 125 on bad usage.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "cli_opt.h"
#include "cmd.h"
#include "probes_bpf.h"
#include "netfilter_share.h"
#include "probes_share.h"
#include "bpf/probes.h"
#include "pidname.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: sbxsup probes load | unload [--force] | status | expire\n"
		   "  load     load the eBPF probes once and pin them under %s\n"
		   "           (runs then reuse them instead of loading per run)\n"
		   "  unload   remove the pinned set (refused while a run uses it, unless --force),\n"
		   "           and the automatic shared set when no run uses it\n"
		   "  status   what is pinned, how many runs use it, until when an idle shared set stays\n"
		   "  expire   remove the automatic shared set if it is idle past its deadline (a timer's job)\n"
		   "The automatic shared set (%s) stays loaded SBXSUP_PROBES_IDLE seconds\n"
		   "(default %ld) after its last run; SBXSUP_PROBES_IDLE=0 removes it when the last run ends.\n"
		   "unload and expire also remove the netfilter layer's idle shared set (%s,\n"
		   "kept SBXSUP_NETFILTER_IDLE seconds, same default, after its last run).\n",
		PR_PIN_DIR, PR_AUTO_DIR, PR_IDLE_DEFAULT, NF_AUTO_DIR);
}

/* Runs whose supervisor is alive, and total tracked processes. */
static void usage_counts(const struct pr_loaded *L, unsigned *live, unsigned *tracked)
{
	*live = 0;
	*tracked = 0;
	uint32_t k, next, owner;
	bool have = false;
	while (bpf_map_get_next_key(L->m.owners, have ? &k : NULL, &next) == 0) {
		if (bpf_map_lookup_elem(L->m.owners, &next, &owner) == 0 &&
		    !sbx_pid_gone(owner))
			(*live)++;
		k = next;
		have = true;
	}
	have = false;
	for (unsigned guard = 0; guard < (1u << 20); guard++) {
		if (bpf_map_get_next_key(L->m.tracked, have ? &k : NULL, &next) != 0)
			break;
		(*tracked)++;
		k = next;
		have = true;
	}
}

static int do_load(void)
{
	struct pr_loaded L;
	char why[256] = "";
	int rc = pr_bpf_open_pinned(PR_PIN_DIR, &L, why, sizeof(why));
	if (rc == 0) {
		printf("probes already loaded: %s\n", L.level);
		pr_bpf_close(&L);
		return 0;
	}
	if (rc < 0) {
		sbx_msg("probes: %s", why);
		return 1;
	}
	if (pr_bpf_load(&L, why, sizeof(why)) != 0) {
		sbx_msg("probes: cannot load: %s", why);
		return 1;
	}
	if (pr_bpf_pin(&L, PR_PIN_DIR, why, sizeof(why)) != 0) {
		sbx_msg("probes: cannot pin: %s", why);
		pr_bpf_close(&L);
		return 1;
	}
	printf("probes loaded and pinned under %s: %s%s%s\n", PR_PIN_DIR, L.level,
	       L.uring_why[0] ? "; " : "", L.uring_why);
	pr_bpf_close(&L);
	return 0;
}

static int do_unload(bool force)
{
	struct pr_loaded L;
	char why[256] = "";
	if (pr_share_expire(true) == 1)
		printf("probes: idle shared set removed from %s\n", PR_AUTO_DIR);
	if (nf_share_expire(true) == 1)
		printf("netfilter: idle shared set removed from %s\n", NF_AUTO_DIR);
	int rc = pr_bpf_open_pinned(PR_PIN_DIR, &L, why, sizeof(why));
	if (rc == 1) {
		printf("probes not loaded (nothing pinned under %s)\n", PR_PIN_DIR);
		return 0;
	}
	if (rc == 0) {
		unsigned live, tracked;
		usage_counts(&L, &live, &tracked);
		pr_bpf_close(&L);
		if (live && !force) {
			sbx_msg("probes: %u run(s) are using the pinned set; retry when they end, or --force "
				"(those runs then lose their probes)", live);
			return 1;
		}
	}
	if (pr_bpf_unpin(PR_PIN_DIR, why, sizeof(why)) != 0) {
		sbx_msg("probes: unload: %s", why);
		return 1;
	}
	rmdir("/sys/fs/bpf/sbxsup");       /* only when empty (no shared set) */
	printf("probes unloaded (pins removed from %s)\n", PR_PIN_DIR);
	return 0;
}

static int do_status(void)
{
	struct pr_loaded L;
	char why[256] = "";
	int rc = pr_bpf_open_pinned(PR_PIN_DIR, &L, why, sizeof(why));
	if (rc < 0) {
		printf("probes: pinned set damaged: %s\n", why);
		return 1;
	}
	if (rc == 1) {
		if (!pr_bpf_precheck(why, sizeof(why))) {
			printf("probes: unavailable: %s\n", why);
			return 1;
		}
		printf("probes: not pinned by the operator; the first probed run loads a shared set under %s, "
		       "the runs that overlap it use it, it stays loaded %ld s after the last one ends "
		       "(SBXSUP_PROBES_IDLE; sbxsup probes load pins one that stays)\n", PR_AUTO_DIR,
		       pr_share_idle_secs());
		struct pr_loaded A;
		int arc = pr_bpf_open_pinned(PR_AUTO_DIR, &A, why, sizeof(why));
		if (arc == 0) {
			unsigned live, tracked;
			usage_counts(&A, &live, &tracked);
			time_t until = pr_share_idle_until();
			if (until < 0 || live) {
				printf("probes: shared set live under %s: %u run(s) using it, %u process(es) tracked\n",
				       PR_AUTO_DIR, live, tracked);
			} else {
				struct tm tm;
				char when[32] = "?";
				if (gmtime_r(&until, &tm))
					strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
				printf("probes: shared set idle under %s: no run using it, syscall hooks detached, kept "
				       "loaded until %s "
				       "(the first run after that without probes removes it; sbxsup probes unload "
				       "removes it now)\n", PR_AUTO_DIR, when);
			}
			pr_bpf_close(&A);
		} else if (arc == 1) {
			printf("probes: shared set: none (no probed run is live or recent)\n");
		} else {
			printf("probes: shared set under %s unusable (the next run replaces it): %s\n",
			       PR_AUTO_DIR, why);
		}
		return 0;
	}
	unsigned live, tracked;
	usage_counts(&L, &live, &tracked);
	printf("probes: pinned under %s: %s%s%s\n", PR_PIN_DIR, L.level, L.uring_why[0] ? "; " : "",
	       L.uring_why);
	printf("probes: %u run(s) using it (of %d slots), %u process(es) tracked\n", live, PR_SLOTS, tracked);
	pr_bpf_close(&L);
	return 0;
}

int cmd_probes(int argc, char **argv)
{
	static const struct option opts[] = {
		{"force", no_argument, NULL, 'f'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	if (argc < 2) {
		usage(stderr);
		return SBX_EXIT_INTERNAL;
	}
	const char *sub = argv[1];
	bool force = false;
	int c;
	optind = 0;
	opterr = 0;
	/* the subcommand's own options, in the one style (getopt_long "+:") */
	while ((c = getopt_long(argc - 1, argv + 1, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			force = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			cli_bad_option("probes", argv + 1, opts, c);
			usage(stderr);
			return SBX_EXIT_INTERNAL;
		}
	}
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		usage(stdout);
		return 0;
	}
	bool extra = optind < argc - 1;
	if (!strcmp(sub, "load") && !extra && !force)
		return do_load();
	if (!strcmp(sub, "unload") && !extra)
		return do_unload(force);
	if (!strcmp(sub, "status") && !extra && !force)
		return do_status();
	if (!strcmp(sub, "expire") && !extra && !force) {
		if (pr_share_expire(false) == 1)
			printf("probes: idle shared set removed from %s\n", PR_AUTO_DIR);
		if (nf_share_expire(false) == 1)
			printf("netfilter: idle shared set removed from %s\n", NF_AUTO_DIR);
		return 0;
	}
	usage(stderr);
	return SBX_EXIT_INTERNAL;
}
