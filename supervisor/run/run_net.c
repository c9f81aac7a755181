/* run_net.c — the run's network (docs/network.md): see run_int.h.
 *
 * Where the run has a network namespace of its own (plan_own_netns) and a host list is granted
 * (pol_gateway), the gateway is its only way out: after the stage is ready (it is in the
 * namespace and waits for "go"), sbx_netns_setup() adds the routes and makes the listeners inside,
 * and the gateway (a process of its own in the host's namespace) gets them. Anything failing
 * refuses the run (gateway_unavailable): never an open network. Where no namespace could be made
 * (a container without user namespaces, preload-only mode), the layers enforce the network by
 * address (preload checks, Landlock ports, netfilter) and the run says so on stderr and in
 * run.start.level.network.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gateway.h"
#include "layer.h"
#include "msg.h"
#include "netns.h"
#include "run_int.h"

int run_net_fd(const struct run *r)
{
	return r->att.net.gw_rep;
}

int run_net_drain(struct run *r)
{
	struct run_net *n = &r->att.net;
	if (n->gw_rep < 0)
		return 0;
	/* a bounded share of the loop (64 x 256 records) so a flooding gateway cannot starve it */
	return sbx_gw_drain_calls(n->gw_rep, &r->a, &n->gw_rejected, 64) < 0 ? -1 : 0;
}

void run_net_stop(struct run *r)
{
	struct run_net *n = &r->att.net;
	if (n->gw > 0) {
		/* its last records (open flows, what was queued) are read while it ends */
		struct sbx_gw_sink sink = {.fd = n->gw_rep, .a = &r->a, .rejected = &n->gw_rejected};
		(void)sbx_gw_stop(n->gw, 1000, &sink);
		n->gw = -1;
		if (sink.failed)
			r->audit_failed = true;
	}
	if (run_net_drain(r) < 0)
		r->audit_failed = true;
	if (n->gw_rep >= 0)
		close(n->gw_rep);
	n->gw_rep = -1;
}

/* Add p to ports[*n] once. -1 when full. */
static int port_add(uint16_t *ports, size_t *n, uint16_t p)
{
	for (size_t j = 0; j < *n; j++)
		if (ports[j] == p)
			return 0;
	if (*n == SBX_NETNS_MAX_PORTS)
		return -1;
	ports[(*n)++] = p;
	return 0;
}

/* nftables' redirect is tried unless SBXSUP_NFT=0 (the per-port listeners then, as where the
 * namespace has no nf_tables). */
static bool nft_wanted(void)
{
	const char *e = getenv("SBXSUP_NFT");
	return !e || strcmp(e, "0") != 0;
}

/* The ports the gateway takes. TCP: every port a host grant names, which the redirect takes on the
 * run's loopback too, and which the gateway listens on without the redirect (more than it can
 * listen on: only the redirect serves them, redirect_required); a TCP connect to a network:udp
 * grant's port reaches the gateway too, which refuses and reports it. UDP: every port a
 * network:udp or network:any grant names, but 53 (the DNS stub has it). */
static int gw_ports(const struct manifest *m, struct sbx_netns_req *rq, char *why, size_t whylen)
{
	for (size_t i = 0; i < m->nhosts; i++) {
		const struct mf_host *h = &m->hosts[i];
		const char *mode = h->mode ? h->mode : "";
		bool udp = !strcmp(mode, "udp") || !strcmp(mode, "any");
		uint16_t p = h->port;
		if (!p)
			continue;
		size_t j;
		for (j = 0; j < rq->nlo_ports && rq->lo_ports[j] != p; j++)
			;
		if (j == rq->nlo_ports) {
			if (rq->nlo_ports == SBX_NETNS_MAX_LO_PORTS) {
				snprintf(why, whylen, "the grants name more than %d TCP ports", SBX_NETNS_MAX_LO_PORTS);
				return -1;
			}
			rq->lo_ports[rq->nlo_ports++] = p;
		}
		if (udp && p != 53 && port_add(rq->udp_ports, &rq->nudp_ports, p) < 0) {
			snprintf(why, whylen, "the grants name more than %d UDP ports (the gateway listens on each)",
				 SBX_NETNS_MAX_PORTS);
			return -1;
		}
		if (port_add(rq->ports, &rq->nports, p) < 0) {
			if (rq->redirect) {
				rq->redirect_required = true; /* (the loopback's list goes on) */
				continue;
			}
			snprintf(why, whylen, "the grants name more than %d TCP ports (the gateway listens on each)",
				 SBX_NETNS_MAX_PORTS);
			return -1;
		}
	}
	return 0;
}

static int gw_start(struct run *r, char *why, size_t whylen)
{
	struct run_net *n = &r->att.net;
	struct sbx_netns_req rq = {.dns = true, .proxy_port = r->plan.proxy_port, .redirect = nft_wanted(),
				   /* an unrestricted grant has no ports to listen on, and the policy of a
				    * host granted without a port let every port through (plan.nft): every
				    * one, or none */
				   .redirect_required = r->m->net_any || r->plan.nft > 0,
				   .redirect_all = r->m->net_any || r->plan.nft > 0,
				   /* an unrestricted grant's other UDP cannot be relayed: refused, reported */
				   .udp_catch = r->m->net_any};
	if (rq.redirect_required && !rq.redirect) {
		snprintf(why, whylen, "an unrestricted network needs nftables' redirect (SBXSUP_NFT=0)");
		return -1;
	}
	if (gw_ports(r->m, &rq, why, whylen) < 0)
		return -1;
	struct sbx_netns_out ns;
	if (sbx_netns_setup(r->att.stage_pid, &rq, &ns, why, whylen) < 0)
		return -1;
	snprintf(n->how, sizeof n->how, "%s", ns.level);
	if (ns.nft_why[0])
		sbx_msg("note: nftables cannot redirect in the run's namespace (%s): the gateway listens on each "
			"granted port instead", ns.nft_why);
	struct sbx_gw_spec spec;
	sbx_gw_spec_init(&spec);
	char err[256] = "";
	int sp[2] = {-1, -1}, rc = -1;
	if (sbx_gw_spec_from_manifest(&spec, r->m, err, sizeof err) < 0) {
		snprintf(why, whylen, "the gateway's grants: %s", err);
		goto out;
	}
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sp) < 0) {
		snprintf(why, whylen, "the gateway's report socket: %s", strerror(errno));
		goto out;
	}
	spec.exe = r->d.self[0] ? r->d.self : NULL;
	/* the redirect: SO_ORIGINAL_DST; the local route alone: getsockname() is where it was going */
	spec.dst_mode = ns.redirect_fd >= 0 ? SBX_GW_DST_ORIGDST : SBX_GW_DST_SOCKNAME;
	spec.tcp_fd = ns.redirect_fd;
	for (size_t i = 0; i < ns.nport_fds && i < SBX_GW_MAX_PORT_FDS; i++)
		spec.port_fds[spec.nport_fds++] = ns.port_fds[i];
	for (size_t i = 0; i < ns.nudp_fds && i < SBX_GW_MAX_PORT_FDS; i++)
		spec.udp_fds[spec.nudp_fds++] = ns.udp_fds[i];
	for (size_t i = 0; i < ns.nudp_catch_fds && i < 2; i++)
		spec.udp_catch_fds[spec.nudp_catch_fds++] = ns.udp_catch_fds[i];
	spec.dns_fd = ns.dns_fd;
	spec.dns6_fd = ns.dns6_fd;
	spec.dns_tcp_fd = ns.dns_tcp_fd;
	spec.proxy_fd = ns.proxy_fd;
	spec.report_fd = sp[1];
	pid_t pid = -1;
	if (sbx_gw_spawn(&spec, &pid, err, sizeof err) < 0) {
		snprintf(why, whylen, "%s", err[0] ? err : "the gateway did not start");
		goto out;
	}
	n->gw = pid;
	n->gw_rep = sp[0];
	sp[0] = -1;
	rc = 0;
out:
	sbx_gw_spec_free(&spec);
	sbx_netns_close(&ns); /* the gateway holds its copies: the namespace's listeners live with it */
	if (sp[0] >= 0)
		close(sp[0]);
	if (sp[1] >= 0)
		close(sp[1]);
	return rc;
}

int run_net_start(struct run *r)
{
	struct run_net *n = &r->att.net;
	n->gw = -1;
	n->gw_rep = -1;
	n->how[0] = 0;
	const struct policy *pol = r->plan.pol;
	if (r->o.disabled || !pol)
		return 0;
	if (!pol_own_netns(pol) && pol_net_mode(pol) == POL_NET_ANY) {
		/* fail loudly: nothing between the run and the host's network */
		sbx_msg("warning: the run shares the host's network namespace (%s): no gateway, no net.flow "
			"records, the host's loopback and abstract unix names are reachable",
			r->plan.nft_why[0] ? r->plan.nft_why : "no network namespace for this run");
		return 0;
	}
	if (!pol_own_netns(pol) && pol_net_mode(pol) != POL_NET_ANY) {
		/* fail loudly: the fence is the layers' address checks only */
		sbx_msg("warning: no network namespace for this run: the network is enforced by address only "
			"(%s)", pol_net_mode(pol) == POL_NET_NONE ? "no network granted: connects refused by the layers"
								 : "granted hosts' addresses resolved at start, no gateway");
		return 0;
	}
	if (!pol_gateway(pol))
		return 0;
	char why[300] = "";
	if (gw_start(r, why, sizeof why) < 0) {
		sbx_msg("refused: the run's network gateway: %s (the run never gets an open network)", why);
		run_reason(r, SBX_REASON_GATEWAY, "the network gateway: %s", why);
		run_net_stop(r);
		return -1;
	}
	return 0;
}

void run_net_level(struct run *r, cJSON *level)
{
	const struct policy *pol = r->plan.pol;
	if (r->o.disabled || !pol)
		return;
	char t[640];
	char walls[160];
	layers_net_walls(&r->lc, walls, sizeof walls);
	if (pol_net_mode(pol) == POL_NET_ANY && !pol_own_netns(pol))
		snprintf(t, sizeof t, "unrestricted: the host's network namespace, no gateway (%s)",
			 r->plan.nft_why[0] ? r->plan.nft_why : "no network namespace");
	else if (pol_net_mode(pol) == POL_NET_ANY)
		snprintf(t, sizeof t, "unrestricted, own namespace; gateway (any destination, every connection "
			 "recorded): %s; %s", r->att.net.gw > 0 ? r->att.net.how : "not running", walls);
	else if (pol_gateway(pol))
		snprintf(t, sizeof t, "own namespace; gateway: %s; %s", r->att.net.gw > 0 ? r->att.net.how : "not running",
			 walls);
	else if (pol_own_netns(pol))
		snprintf(t, sizeof t, "own namespace, loopback only (no network granted); %s", walls);
	else
		snprintf(t, sizeof t, "address only: no network namespace; %s", walls);
	cJSON_AddStringToObject(level, "network", t);
}
