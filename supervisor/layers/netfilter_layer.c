/* netfilter_layer.c — the kernel network allowlist (see netfilter_layer.h for the promise).
 *
 * User-space side of bpf/netfilter.bpf.c: detection, map filling from the compiled policy into
 * the run's slot of the shared set (netfilter_share.h; a private set when every slot is held or the
 * shared one cannot be used), attaching the six cgroup programs to the run's cgroup with links the
 * run owns (closed in stop, or by the kernel when the supervisor dies), and the ring buffer consumer.
 */
#include "netfilter_layer.h"
#include "layer.h"
#include "pidname.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/netfilter.h"
#include "netfilter_share.h"

struct sbx_netfilter {
	bool shared;              /* sh holds the set and the slot; else f and obj are the run's own */
	struct nf_share sh;
	struct nf_fds f;          /* the fds in use (the shared set's, copied from sh.f, or private) */
	struct bpf_object *obj;   /* a private set */
	int slot;
	uint64_t cgid;
	struct nf_keys keys;      /* what the run put into the maps */
	int links[NF_NPROGS];
	int cgfd;                 /* the run's cgroup v2 directory (the caller's), for the attach */
	bool attached;            /* sbx_netfilter_attach() done */
	struct ring_buffer *rb;
	struct audit *a;          /* set for the duration of one drain */
	int emitted;
	bool failed;
};

/* --- detection ------------------------------------------------------------------------------ */

static int try_bpf(char *why, size_t whylen)
{
	struct bpf_insn insns[2];
	memset(insns, 0, sizeof insns);
	insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K; /* r0 = 1 */
	insns[0].dst_reg = BPF_REG_0;
	insns[0].imm = 1;
	insns[1].code = BPF_JMP | BPF_EXIT;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_CGROUP_INET4_CONNECT);
	int fd = bpf_prog_load(BPF_PROG_TYPE_CGROUP_SOCK_ADDR, "sbx_probe", "GPL", insns, 2, &opts);
	if (fd < 0) {
		int e = -fd;
		snprintf(why, whylen, "cannot load a BPF cgroup/connect4 program: %s%s", strerror(e),
			 e == EPERM ? " (needs CAP_BPF + CAP_NET_ADMIN, or root; check kernel.unprivileged_bpf_disabled)"
				    : "");
		return -1;
	}
	close(fd);
	return 0;
}

/* Directory of our own cgroup in the cgroup v2 hierarchy: the cgroup2 mount point from
 * /proc/self/mountinfo joined with the "0::" path of /proc/self/cgroup. */
static int cgroup2_base(char *out, size_t len, char *why, size_t whylen)
{
	char line[4096], mnt[2048] = "", root[2048] = "";
	if (nf_cgroup2_mount(mnt, sizeof mnt, root, sizeof root, why, whylen) != 0)
		return -1;
	FILE *f;
	f = fopen("/proc/self/cgroup", "re");
	if (!f) {
		snprintf(why, whylen, "/proc/self/cgroup: %s", strerror(errno));
		return -1;
	}
	char path[2048] = "";
	while (fgets(line, sizeof line, f)) {
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(path, sizeof path, "%.2000s", line + 3);
			break;
		}
	}
	fclose(f);
	/* a mount of a sub-tree (root != "/") shows the part of the path below that root */
	const char *rel = path;
	size_t rl = strlen(root);
	if (strcmp(root, "/") && !strncmp(path, root, rl) && (path[rl] == '/' || !path[rl]))
		rel = path + rl;
	if (!strcmp(rel, "/"))
		rel = "";
	if ((size_t)snprintf(out, len, "%s%s", mnt, rel) >= len) {
		snprintf(why, whylen, "cgroup path too long");
		return -1;
	}
	return 0;
}

/* A supervisor killed between the probe's mkdir and rmdir leaves an empty "sbxsup-probe-PID"
 * directory behind. Remove those whose PID no longer exists (kill(2) says ESRCH: no process can
 * be about to rmdir it); an entry that is not empty or not ours is left alone (rmdir refuses). */
static void sweep_stale_probes(const char *base)
{
	DIR *d = opendir(base);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *rest;
		long pid = sbx_name_pid(e->d_name, "sbxsup-probe-", &rest);
		if (pid && !*rest && sbx_pid_gone(pid))
			(void)unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

int sbx_netfilter_probe(char *why, size_t whylen)
{
	if (try_bpf(why, whylen) < 0)
		return 0;
	char base[4096], dir[4200];
	if (cgroup2_base(base, sizeof base, why, whylen) < 0)
		return 0;
	sweep_stale_probes(base);
	snprintf(dir, sizeof dir, "%s/sbxsup-probe-%d", base, (int)getpid());
	if (mkdir(dir, 0700) < 0) {
		snprintf(why, whylen, "cannot create a cgroup v2 directory under %s: %s", base, strerror(errno));
		return 0;
	}
	if (rmdir(dir) < 0) {
		snprintf(why, whylen, "cannot remove probe cgroup %s: %s", dir, strerror(errno));
		return 0;
	}
	return 1;
}

/* --- allowlist ------------------------------------------------------------------------------ */

static void mask_addr(uint8_t *a, size_t alen, unsigned prefix)
{
	for (size_t i = 0; i < alen; i++) {
		unsigned bits = prefix > i * 8 ? prefix - (unsigned)i * 8 : 0;
		if (bits >= 8)
			continue;
		a[i] &= (uint8_t)(0xff00u >> bits);
	}
}

/* does rule r (masked) contain the address a? */
static bool contains(const struct pol_net *r, const uint8_t *a, size_t alen)
{
	uint8_t x[16];
	memcpy(x, a, alen);
	mask_addr(x, alen, r->prefix);
	uint8_t y[16];
	memcpy(y, r->addr, alen);
	mask_addr(y, alen, r->prefix);
	return !memcmp(x, y, alen);
}

/* One trie entry, computed before the programs load (its ports size the sbx_ports hash). */
struct nf_entry {
	int family;
	unsigned prefix;
	uint8_t net[16];
	bool any;
	unsigned n;
	uint16_t port[NF_MAX_PORTS];
};

static int add_port(struct nf_entry *v, uint16_t port)
{
	if (!port) {
		v->any = true;
		return 0;
	}
	for (unsigned i = 0; i < v->n; i++)
		if (v->port[i] == port)
			return 0;
	if (v->n >= NF_MAX_PORTS)
		return -1;
	v->port[v->n++] = port;
	return 0;
}

/* is rule j < i the same entry (family, prefix, network) as rule i? Then i adds nothing. */
static bool seen_before(const struct pol_net *rules, size_t i, const uint8_t *net, size_t alen)
{
	for (size_t j = 0; j < i; j++) {
		const struct pol_net *r = &rules[j];
		if (r->family == rules[i].family && r->prefix == rules[i].prefix && contains(r, net, alen))
			return true;
	}
	return false;
}

/* One entry per distinct (family, prefix, network); its ports are those of every rule whose prefix
 * contains it (an LPM lookup returns the longest match only). ent has room for n; *count entries
 * and *keys port keys (the ports of the entries that do not grant every port) on return. */
static int build_entries(const struct pol_net *rules, size_t n, struct nf_entry *ent, size_t *count,
			 size_t *keys, char *why, size_t whylen)
{
	*count = *keys = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pol_net *k = &rules[i];
		if (k->family != AF_INET && k->family != AF_INET6)
			continue; /* a name that resolved to nothing: nothing to allow */
		size_t alen = k->family == AF_INET ? 4 : 16;
		unsigned maxp = (unsigned)alen * 8;
		if (k->prefix > maxp) {
			snprintf(why, whylen, "network rule %zu: prefix /%u too long", i, k->prefix);
			return -1;
		}
		struct nf_entry *v = &ent[*count];
		memset(v, 0, sizeof *v);
		v->family = k->family;
		v->prefix = k->prefix;
		memcpy(v->net, k->addr, alen);
		mask_addr(v->net, alen, k->prefix);
		if (seen_before(rules, i, v->net, alen))
			continue;
		for (size_t j = 0; j < n; j++) {
			const struct pol_net *r = &rules[j];
			if (r->family != k->family || r->prefix > k->prefix || !contains(r, v->net, alen))
				continue;
			if (add_port(v, r->port) < 0) {
				snprintf(why, whylen, "more than %d ports granted for one address (%s rule %zu)",
					 NF_MAX_PORTS, r->name ? r->name : "address", j);
				return -1;
			}
		}
		if (!v->any)
			*keys += v->n;
		(*count)++;
	}
	size_t n4 = 0;
	for (size_t i = 0; i < *count; i++)
		n4 += ent[i].family == AF_INET;
	if (n4 > NF_MAX_RULES || *count - n4 > NF_MAX_RULES) {
		snprintf(why, whylen, "more than %d IPv%d allowlist entries", NF_MAX_RULES,
			 n4 > NF_MAX_RULES ? 4 : 6);
		return -1;
	}
	return 0;
}

static int map_err(int err, const char *what, char *why, size_t whylen)
{
	snprintf(why, whylen, "%s map update: %s%s", what, strerror(err),
		 err == E2BIG || err == ENOSPC ? " (more entries than the maps hold)" : "");
	return -1;
}

/* The entries into the tries ({id, any}, the slot in front of the address) and their ports into
 * sbx_ports as keys (slot, id, port); every key put is recorded in nf->keys (deleted at the end). */
static int fill_maps(struct sbx_netfilter *nf, const struct nf_entry *ent, size_t count, bool own_netns,
		     char *why, size_t whylen)
{
	const struct nf_fds *f = &nf->f;
	uint32_t slot = (uint32_t)nf->slot;
	struct nf_keys *k = &nf->keys;
	size_t nports = 0;
	for (size_t i = 0; i < count; i++)
		nports += ent[i].any ? 0 : ent[i].n;
	k->k4 = calloc(count ? count : 1, sizeof *k->k4);
	k->k6 = calloc(count ? count : 1, sizeof *k->k6);
	k->kp = calloc(nports ? nports : 1, sizeof *k->kp);
	if (!k->k4 || !k->k6 || !k->kp) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		const struct nf_entry *v = &ent[i];
		struct nf_net val = {.id = (uint32_t)i + 1, .any = v->any};
		if (v->family == AF_INET) {
			struct nf_v4_key *key = &k->k4[k->n4];
			*key = (struct nf_v4_key){.prefixlen = 32 + v->prefix, .slot = slot};
			memcpy(key->addr, v->net, 4);
			if (bpf_map_update_elem(f->allow4, key, &val, BPF_ANY) != 0)
				return map_err(errno, "allowlist", why, whylen);
			k->n4++;
		} else {
			struct nf_v6_key *key = &k->k6[k->n6];
			*key = (struct nf_v6_key){.prefixlen = 32 + v->prefix, .slot = slot};
			memcpy(key->addr, v->net, 16);
			if (bpf_map_update_elem(f->allow6, key, &val, BPF_ANY) != 0)
				return map_err(errno, "allowlist", why, whylen);
			k->n6++;
		}
		for (unsigned p = 0; !v->any && p < v->n; p++)
			k->kp[k->np++] = (struct nf_port_key){.slot = slot, .id = val.id, .port = v->port[p]};
	}
	if (k->np) {
		uint8_t *ones = malloc(k->np);
		if (!ones) {
			snprintf(why, whylen, "out of memory");
			return -1;
		}
		memset(ones, 1, k->np);
		uint32_t cnt = (uint32_t)k->np;
		LIBBPF_OPTS(bpf_map_batch_opts, o, .elem_flags = BPF_ANY);
		int rc = bpf_map_update_batch(f->ports, k->kp, ones, &cnt, &o);
		for (size_t i = 0; rc != 0 && i < k->np; i++) /* a kernel without batch operations */
			if (bpf_map_update_elem(f->ports, &k->kp[i], &ones[0], BPF_ANY) != 0) {
				int e = errno;
				free(ones);
				return map_err(e, "allowlist port", why, whylen);
			}
		free(ones);
	}
	struct nf_config c = {.mode = NF_MODE_LIST, .own_netns = own_netns ? 1 : 0};
	if (bpf_map_update_elem(f->config, &slot, &c, BPF_ANY) != 0) {
		snprintf(why, whylen, "config map update: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void keys_free(struct nf_keys *k)
{
	free(k->k4);
	free(k->k6);
	free(k->kp);
	memset(k, 0, sizeof *k);
}

/* --- ring buffer -------------------------------------------------------------------------------- */

static const char *proto_name(uint32_t p, char *buf, size_t len)
{
	if (p == IPPROTO_TCP)
		return "tcp";
	if (p == IPPROTO_UDP)
		return "udp";
	snprintf(buf, len, "%u", p);
	return buf;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct sbx_netfilter *nf = ctx;
	if (size < sizeof(struct nf_event))
		return 0;
	const struct nf_event *e = data;
	char addr[INET6_ADDRSTRLEN] = "?", pbuf[16], comm[17];
	if (e->family == AF_INET || e->family == AF_INET6)
		inet_ntop(e->family, e->addr, addr, sizeof addr);
	memcpy(comm, e->comm, 16);
	comm[16] = 0;
	if (!nf->a)
		return 0;
	cJSON *ev = audit_event(nf->a, "netfilter.deny", "kernel");
	if (!ev) {
		nf->failed = true;
		return -1;
	}
	cJSON_AddNumberToObject(ev, "pid", e->pid);
	audit_add_str(ev, "addr", addr, sizeof addr);
	cJSON_AddNumberToObject(ev, "port", e->port);
	audit_add_str(ev, "proto", proto_name(e->proto, pbuf, sizeof pbuf), 16);
	audit_add_str(ev, "comm", comm, 16);
	if (e->hook == NF_HOOK_BIND4 || e->hook == NF_HOOK_BIND6)
		cJSON_AddStringToObject(ev, "op", "bind");
	else
		cJSON_AddStringToObject(ev, "op", e->hook == NF_HOOK_CONNECT4 || e->hook == NF_HOOK_CONNECT6
						  ? "connect" : "sendmsg");
	if (audit_emit(nf->a, ev) < 0) {
		nf->failed = true;
		return -1;
	}
	nf->emitted++;
	return 0;
}

/* --- start / stop --------------------------------------------------------------------------------- */

static int start_rules(const struct pol_net *rules, size_t n, enum pol_net_mode mode, bool own_netns,
		       int cgroup_v2_fd, bool attach, struct sbx_netfilter **out, char *why, size_t whylen);

int sbx_netfilter_start_rules(const struct pol_net *rules, size_t n, enum pol_net_mode mode,
			      int cgroup_v2_fd, struct sbx_netfilter **out, char *why, size_t whylen)
{
	return start_rules(rules, n, mode, false, cgroup_v2_fd, true, out, why, whylen);
}

int sbx_netfilter_attach(struct sbx_netfilter *nf, char *why, size_t whylen)
{
	if (!nf) {
		snprintf(why, whylen, "not started");
		return -1;
	}
	if (nf->attached)
		return 0;
	if (!nf->rb) {
		nf->rb = ring_buffer__new(nf->f.ring[nf->slot], on_event, nf, NULL);
		if (!nf->rb) {
			snprintf(why, whylen, "ring buffer: %s", strerror(errno));
			return -1;
		}
		/* a previous holder's records: no audit, dropped (before the attach: none of this run's) */
		(void)ring_buffer__consume(nf->rb);
	}
	for (int i = 0; i < NF_NPROGS; i++) {
		if (nf->links[i] >= 0)
			continue;
		nf->links[i] = bpf_link_create(nf->f.prog[i], nf->cgfd, nf_prog_attach[i], NULL);
		if (nf->links[i] < 0) {
			snprintf(why, whylen, "attach %s to the run cgroup: %s", nf_prog_names[i], strerror(errno));
			return -1;
		}
	}
	nf->attached = true;
	return 0;
}

static int start_rules(const struct pol_net *rules, size_t n, enum pol_net_mode mode, bool own_netns,
		       int cgroup_v2_fd, bool attach, struct sbx_netfilter **out, char *why, size_t whylen)
{
	*out = NULL;
	if (mode == POL_NET_ANY) {
		snprintf(why, whylen, "network unrestricted (autonomy full or a network capability without hosts): "
			 "no allowlist to enforce");
		return 1;
	}
	if (mode == POL_NET_NONE)
		n = 0; /* empty allowlist: deny every connect/sendmsg */
	struct nf_entry *ent = NULL;
	struct sbx_netfilter *nf = calloc(1, sizeof *nf);
	if (!nf) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	nf->slot = -1;
	nf_fds_reset(&nf->f);
	nf_fds_reset(&nf->sh.f);
	nf->sh.ref.dirfd = -1;
	for (int i = 0; i < NF_NPROGS; i++)
		nf->links[i] = -1;
	ent = calloc(n ? n : 1, sizeof *ent);
	if (!ent) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	size_t count, keys;
	if (build_entries(rules, n, ent, &count, &keys, why, whylen) < 0)
		goto fail;
	if (nf_cgroup_id(cgroup_v2_fd, &nf->cgid, why, whylen) != 0)
		goto fail;
	/* the shared set (loaded once, a slot per run); a private one when it cannot be had */
	char w[256] = "";
	if (nf_share_acquire(&nf->sh, nf->cgid, w, sizeof w) == 0) {
		nf->shared = true;
		nf->f = nf->sh.f;
		nf->slot = nf->sh.slot;
		if (fill_maps(nf, ent, count, own_netns, w, sizeof w) != 0) {
			nf_share_release(&nf->sh, &nf->keys);  /* e.g. the shared port hash is full */
			keys_free(&nf->keys);
			nf->shared = false;
			nf->slot = -1;
			nf_fds_reset(&nf->f);
		}
	}
	if (!nf->shared) {
		if (nf_object_open(&nf->obj, why, whylen) != 0)
			goto fail;
		/* a hash's bucket array is allocated and cleared at creation, sized by max_entries (the
		 * bound, 2 x 1024 x 16 keys, took 0.5 ms): size it to this policy's port keys */
		int err = nf_size_maps(nf->obj, false, (uint32_t)keys);
		if (!err)
			err = bpf_object__load(nf->obj);
		if (err) {
			snprintf(why, whylen, "BPF load: %s", strerror(-err));
			goto fail;
		}
		if (nf_fds_from_obj(nf->obj, &nf->f, why, whylen) != 0)
			goto fail;
		if (nf_slot_claim(&nf->f, nf->cgid, false, &nf->slot, why, whylen) != 0)
			goto fail;
		if (fill_maps(nf, ent, count, own_netns, why, whylen) < 0)
			goto fail;
	}
	free(ent);
	ent = NULL;
	nf->cgfd = cgroup_v2_fd;
	if (attach && sbx_netfilter_attach(nf, why, whylen) != 0)
		goto fail;
	*out = nf;
	return 0;
fail:
	free(ent);
	sbx_netfilter_stop(nf);
	return -1;
}

static int start_policy(const struct policy *p, int cgroup_v2_fd, bool attach, struct sbx_netfilter **out,
			char *why, size_t whylen)
{
	size_t n = pol_net_count(p);
	struct pol_net *rules = calloc(n + 2, sizeof *rules);
	if (!rules) {
		*out = NULL;
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	size_t k = 0;
	enum pol_net_mode mode = pol_net_mode(p);
	if (mode == POL_NET_NONE && pol_own_netns(p))
		mode = POL_NET_LIST; /* the run's loopback only (below) */
	for (size_t i = 0; mode == POL_NET_LIST && i < n; i++)
		if (pol_net_get(p, i, &rules[k]) == 0)
			k++;
	if (pol_own_netns(p)) {
		/* the run's own loopback (pol_own_netns): every port, connect, send and bind */
		rules[k++] = (struct pol_net){.family = AF_INET, .addr = {127}, .prefix = 8,
					      .rule = POL_RULE_NET_OWN};
		rules[k++] = (struct pol_net){.family = AF_INET6, .addr = {[15] = 1}, .prefix = 128,
					      .rule = POL_RULE_NET_OWN};
	}
	int rc = start_rules(rules, k, mode, pol_own_netns(p), cgroup_v2_fd, attach, out, why, whylen);
	free(rules);
	return rc;
}

int sbx_netfilter_start(const struct policy *p, int cgroup_v2_fd, struct sbx_netfilter **out,
			char *why, size_t whylen)
{
	return start_policy(p, cgroup_v2_fd, true, out, why, whylen);
}

int sbx_netfilter_begin(const struct policy *p, int cgroup_v2_fd, struct sbx_netfilter **out,
			char *why, size_t whylen)
{
	return start_policy(p, cgroup_v2_fd, false, out, why, whylen);
}

int sbx_netfilter_fd(const struct sbx_netfilter *nf)
{
	return nf && nf->rb ? ring_buffer__epoll_fd(nf->rb) : -1;
}

int sbx_netfilter_drain(struct sbx_netfilter *nf, struct audit *a)
{
	if (!nf || !nf->rb)
		return 0;
	nf->a = a;
	nf->emitted = 0;
	int rc = ring_buffer__consume(nf->rb);
	nf->a = NULL;
	if (nf->failed || (rc < 0 && rc != -EINTR))
		return -1;
	return nf->emitted;
}

uint64_t sbx_netfilter_lost(const struct sbx_netfilter *nf)
{
	if (!nf || nf->slot < 0 || nf->f.lost < 0)
		return 0;
	uint32_t s = (uint32_t)nf->slot;
	uint64_t v = 0;
	return bpf_map_lookup_elem(nf->f.lost, &s, &v) == 0 ? v : 0;
}

void sbx_netfilter_stop(struct sbx_netfilter *nf)
{
	if (!nf)
		return;
	ring_buffer__free(nf->rb);
	for (int i = 0; i < NF_NPROGS; i++)
		if (nf->links[i] >= 0)
			close(nf->links[i]);          /* detached from the run's cgroup */
	if (nf->shared) {
		nf_share_release(&nf->sh, &nf->keys); /* the run's entries, its slot, its reference */
	} else {
		nf_fds_close(&nf->f);
		bpf_object__close(nf->obj);
	}
	keys_free(&nf->keys);
	free(nf);
}

const char *sbx_netfilter_needed(const struct policy *p, bool private_netns)
{
	enum pol_net_mode m = pol_net_mode(p);
	if (m == POL_NET_ANY)
		return "network unrestricted (autonomy full or a network capability without hosts): no allowlist "
		       "to enforce";
	if (m == POL_NET_NONE && private_netns)
		return "no network capability: the sandbox has no network (bwrap --unshare-net)";
	return NULL;
}

cJSON *sbx_netfilter_plan(const struct policy *p)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	enum pol_net_mode m = pol_net_mode(p);
	cJSON_AddStringToObject(o, "mode", m == POL_NET_ANY ? "unrestricted (not attached)"
				 : m == POL_NET_NONE ? "deny all (empty allowlist)" : "allowlist");
	cJSON_AddStringToObject(o, "hooks", "cgroup/connect4, cgroup/connect6, cgroup/sendmsg4, cgroup/sendmsg6, "
					    "cgroup/bind4, cgroup/bind6 (binds: granted loopback addresses only)");
	cJSON *arr = cJSON_AddArrayToObject(o, "allow");
	size_t n = m == POL_NET_LIST ? pol_net_count(p) : 0;
	for (size_t i = 0; arr && i < n; i++) {
		struct pol_net r;
		if (pol_net_get(p, i, &r) != 0)
			continue;
		cJSON *e = cJSON_CreateObject();
		if (!e)
			break;
		if (r.family == AF_INET || r.family == AF_INET6) {
			char a[INET6_ADDRSTRLEN] = "?", cidr[INET6_ADDRSTRLEN + 8];
			inet_ntop(r.family, r.addr, a, sizeof a);
			snprintf(cidr, sizeof cidr, "%s/%u", a, r.prefix);
			cJSON_AddStringToObject(e, "addr", cidr);
		} else {
			cJSON_AddStringToObject(e, "addr", "(name did not resolve: nothing allowed)");
		}
		if (r.port)
			cJSON_AddNumberToObject(e, "port", r.port);
		else
			cJSON_AddStringToObject(e, "port", "any");
		if (r.is_name && r.name)
			cJSON_AddStringToObject(e, "name", r.name);
		cJSON_AddStringToObject(e, "rule", pol_rule_text(p, r.rule));
		cJSON_AddItemToArray(arr, e);
	}
	return o;
}

/* ---- the layer entry (layer.h) ----------------------------------------------------------------- */

static void nf_probe(enum layer_depth depth, struct detect *d, struct layer_probe *out)
{
	out->available = sbx_netfilter_probe(out->why, sizeof out->why) == 1;
	if (out->available)
		snprintf(out->level, sizeof out->level, "%s", depth == LAYER_FUNCTIONAL
			 ? "cgroup/connect4,6 sendmsg4,6 on a run cgroup v2" : "cgroup/connect4,6 sendmsg4,6");
	else
		snprintf(out->remedy, sizeof out->remedy,
			 "run as root (CAP_BPF, CAP_NET_ADMIN) with a writable cgroup v2 hierarchy mounted");
}

static cJSON *nf_plan(const struct layer_ctx *c)
{
	return c->pol ? sbx_netfilter_plan(c->pol) : NULL;
}

/* An unrestricted network has no allowlist to enforce: nothing is lost without netfilter. */
static int nf_admit(const struct layer_ctx *c, char *why, size_t whylen)
{
	if (!c->pol || pol_net_mode(c->pol) != POL_NET_ANY)
		return 0;
	snprintf(why, whylen, "network unrestricted (autonomy full or a network capability without hosts): "
		 "no allowlist to enforce");
	return 1;
}

static int nf_start(const struct layer_ctx *c, void **st, char *level, size_t levellen, char *why,
		    size_t whylen)
{
	if (c->cg.v2_fd < 0) {
		snprintf(why, whylen, "no run cgroup v2: %s",
			 c->cg.why && c->cg.why[0] ? c->cg.why : "cgroup v2 not writable");
		return -1;
	}
	struct sbx_netfilter *nf = NULL;
	int rc = sbx_netfilter_begin(c->pol, c->cg.v2_fd, &nf, why, whylen);
	*st = nf;
	return rc;
}

/* The attach after the spawn: the run's processes are bwrap and the stage until "go" (none opens
 * an inet socket), and the attempt ends before "go" when it fails (layers_spawned). */
static int nf_spawned(const struct layer_ctx *c, void *st, char *why, size_t whylen)
{
	return sbx_netfilter_attach(st, why, whylen);
}

static int nf_fd(const void *st)
{
	return sbx_netfilter_fd(st);
}

static int nf_drain(void *st, struct audit *a, bool final)
{
	return sbx_netfilter_drain(st, a) < 0 && a->failed ? -1 : 0;
}

static uint64_t nf_lost(const void *st)
{
	return sbx_netfilter_lost(st);
}

static void nf_stop(void *st)
{
	sbx_netfilter_stop(st);
}

/* The rules come from the policy's network part, which a re-plan does not change (and the maps
 * hold copies): nothing to follow. */
/* The gateway decides by name in the run's own namespace: netfilter is its second wall, not the
 * only fence (docs/network.md). */
static const char *nf_lost_for(const struct layer_ctx *c)
{
	return c->pol && pol_gateway(c->pol) ? "no second wall behind the gateway (connects on a granted "
		"port to any address reach the gateway, which decides by name)" : NULL;
}

static void nf_expire_idle(bool on)
{
	(void)on;
	(void)nf_share_expire(false); /* never held while its deadline is stamped */
}

/* The dead supervisor's slot (its cgroup is gone now) and reference on the shared set. */
static void nf_reclaim(void)
{
	(void)nf_share_reclaim();
}

const struct layer_ops layer_netfilter = {
	.id = SBX_L_NETFILTER,
	.name = "netfilter",
	.event = "netfilter.deny",
	.lost = "hosts are enforced by port only (Landlock), any IP on a granted port is reachable",
	.needs_cgroup = true,
	.net_wall = "netfilter BPF",
	.net_wall_rank = 1,
	.lost_for = nf_lost_for,
	.expire_idle = nf_expire_idle,
	.reclaim = nf_reclaim,
	.probe = nf_probe,
	.admit = nf_admit,
	.plan = nf_plan,
	.start = nf_start,
	.spawned = nf_spawned,
	.fd = nf_fd,
	.drain = nf_drain,
	.lost_events = nf_lost,
	.stop = nf_stop,
};
