/* policies.c — the policy questions of the preload, asked of both policies a process may hold.
 *
 * Promise: sbx_pol_path/_net_addr/_net_name ask the run's policy (sbx_pl.pol) and, when the
 * process also holds the fixed-path policy of an outer run (sbx_pl.pol2, pl.h), that one too: a
 * refusal by either wins, and *d is the refusing policy's decision. No state of its own; the
 * answers are the policy engine's (policy.h). Asked by the decisions (decide.c, net.c) and by the
 * resolver's cache of unwritable directories (resolve.c).
 */
#include "pl.h"

int sbx_pol_path(const char *path, unsigned access, struct pol_decision *d)
{
	int v = pol_path(sbx_pl.pol, path, access, d);
	return v == POL_ALLOW && sbx_pl.pol2 ? pol_path(sbx_pl.pol2, path, access, d) : v;
}

int sbx_pol_net_addr(int family, const void *addr, uint16_t port, struct pol_decision *d)
{
	int v = pol_net_addr(sbx_pl.pol, family, addr, port, d);
	return v == POL_ALLOW && sbx_pl.pol2 ? pol_net_addr(sbx_pl.pol2, family, addr, port, d) : v;
}

int sbx_pol_net_name(const char *name, uint16_t port, struct pol_decision *d)
{
	int v = pol_net_name(sbx_pl.pol, name, port, d);
	return v == POL_ALLOW && sbx_pl.pol2 ? pol_net_name(sbx_pl.pol2, name, port, d) : v;
}
