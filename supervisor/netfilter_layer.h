/* netfilter_layer.h — kernel per-host network allowlist: eBPF cgroup/connect4,6 + sendmsg4,6 on
 * the run's cgroup v2. Owner: kernel-layers work (issue 5).
 *
 * Promise: sbx_netfilter_start() loads and attaches the programs to the run's cgroup v2 (fd), fills
 * the allowlist maps from pol_net_* (CIDR LPM tries + ports, resolved names, the host's resolvers
 * on port 53 when a name is granted), and exposes a ring buffer fd; sbx_netfilter_drain() turns
 * each refusal into `netfilter.deny`. sbx_netfilter_stop() detaches and frees everything.
 */
#ifndef SBX_NETFILTER_LAYER_H
#define SBX_NETFILTER_LAYER_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "audit.h"
#include "policy.h"

struct sbx_netfilter;
int sbx_netfilter_probe(char *why, size_t whylen);          /* 1 usable, 0 not */
int sbx_netfilter_start(const struct policy *p, int cgroup_v2_fd, struct sbx_netfilter **out,
			char *why, size_t whylen);
int sbx_netfilter_fd(const struct sbx_netfilter *nf);        /* pollable; -1 if none */
int sbx_netfilter_drain(struct sbx_netfilter *nf, struct audit *a);
void sbx_netfilter_stop(struct sbx_netfilter *nf);
cJSON *sbx_netfilter_plan(const struct policy *p);

#endif
