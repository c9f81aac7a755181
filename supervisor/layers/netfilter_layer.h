/* netfilter_layer.h — kernel per-host network allowlist: eBPF cgroup/connect4,6 + sendmsg4,6 on
 * the run's cgroup v2; its entry in the layer table is layer_netfilter.
 *
 * Promise: sbx_netfilter_start() takes a slot of the shared set (netfilter_share.h; a private load
 * when it cannot) and attaches its programs to the run's cgroup v2 (fd), fills
 * the allowlist maps from pol_net_* (CIDR LPM tries + ports, resolved names, the host's resolvers
 * on port 53 when a name is granted), and exposes a ring buffer fd; sbx_netfilter_drain() turns
 * each refusal into `netfilter.deny`. sbx_netfilter_stop() detaches and frees everything.
 */
#ifndef SBX_NETFILTER_LAYER_H
#define SBX_NETFILTER_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "audit.h"
#include "policy.h"

/* What the layer enforces, by network mode of the policy:
 *   POL_NET_LIST  the granted addresses/CIDRs with their ports (name rules: the addresses they
 *                 resolved to at build time; the resolvers on 53 come from pol_net too);
 *   POL_NET_NONE  an empty allowlist: every IPv4/IPv6 connect/sendmsg is refused. With bwrap's
 *                 private network namespace this is redundant (see sbx_netfilter_needed) but harmless;
 *                 without bwrap it is what keeps an executor without network capability offline;
 *   POL_NET_ANY   nothing to enforce: sbx_netfilter_start returns 1 (not started, why says so).
 * Loopback is NOT implicitly allowed. The allowlist applies to every process in the cgroup. */

struct sbx_netfilter;
/* 1 usable, 0 not (why): BPF loads a trivial cgroup/connect4 program, and a cgroup v2 mount is
 * found in /proc/self/mountinfo under which we can create a directory. */
int sbx_netfilter_probe(char *why, size_t whylen);
/* Take a slot of the shared set (or load a private one), fill the run's entries, attach to the
 * cgroup v2 directory fd (links held by *out; the run's entries and slot go in sbx_netfilter_stop).
 * Returns 0 (started), 1 (not needed: POL_NET_ANY; *out NULL, why set), -1 (why). */
int sbx_netfilter_start(const struct policy *p, int cgroup_v2_fd, struct sbx_netfilter **out,
			char *why, size_t whylen);
/* sbx_netfilter_start() in two steps, so that the second runs while the sandbox starts: begin
 * (slot, entries; nothing attached, cgroup_v2_fd must stay open) and attach (the ring buffer's
 * consumer, a previous holder's records dropped, then the programs on the cgroup; idempotent). The
 * caller attaches before any process of the cgroup may open an inet socket. 0, or -1 (why). */
int sbx_netfilter_begin(const struct policy *p, int cgroup_v2_fd, struct sbx_netfilter **out,
			char *why, size_t whylen);
int sbx_netfilter_attach(struct sbx_netfilter *nf, char *why, size_t whylen);
int sbx_netfilter_fd(const struct sbx_netfilter *nf);        /* pollable (epoll); -1 if none */
/* Emit one `netfilter.deny` {pid, addr, port, proto, comm} per pending record. Returns the number
 * of events written, or -1 when the audit stream failed (a->failed). Never blocks. */
int sbx_netfilter_drain(struct sbx_netfilter *nf, struct audit *a);
/* Records the kernel could not put in the ring buffer (exact), for run.end.lost. */
uint64_t sbx_netfilter_lost(const struct sbx_netfilter *nf);
/* Detach (close the links), delete the run's entries and free its slot (shared set), or free the
 * private set. NULL is fine. */
void sbx_netfilter_stop(struct sbx_netfilter *nf);
cJSON *sbx_netfilter_plan(const struct policy *p);

/* NULL when the layer has something to enforce for this policy, else the reason it is not needed
 * (for layers.why): POL_NET_ANY always; POL_NET_NONE when the executor has a private, empty network
 * namespace (bwrap --unshare-net). */
const char *sbx_netfilter_needed(const struct policy *p, bool private_netns);

/* Lower level (used by sbx_netfilter_start and by tests): the rules given directly. */
int sbx_netfilter_start_rules(const struct pol_net *rules, size_t n, enum pol_net_mode mode,
			      int cgroup_v2_fd, struct sbx_netfilter **out, char *why, size_t whylen);

#endif
