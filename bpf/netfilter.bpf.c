// SPDX-License-Identifier: GPL-2.0
/* netfilter.bpf.c — per-run network allowlist: cgroup/connect4,6 + sendmsg4,6.
 *
 * Promise: for every connect() and every sendto()/sendmsg() with a destination address made by a
 * process in the cgroup the programs are attached to, the destination (address, port) must be in
 * the allowlist (sbx_allow4 / sbx_allow6 LPM tries and the sbx_ports hash, filled by user space
 * before attach); otherwise the call fails with EPERM (return 0) and a record goes to the ring
 * buffer (or the lost counter when it is full). A v4-mapped IPv6 destination is decided as IPv4.
 * An unset config denies everything.
 * One loaded set serves every run (issue 31). The run is the socket's: cgroup/sock_create, attached
 * to the run cgroup with the others, finds the run of the task creating the socket (the deepest
 * run cgroup among its cgroup and its ancestors: a process in a sub-cgroup of its run is still that
 * run's) and keeps that run cgroup's id in the socket's storage, so a call made on the run's socket
 * by a process outside the run (the seccomp layer's connector) is still decided by the run's list.
 * A socket without that mark is decided by the caller's run. The id names the slot in sbx_runs;
 * the entries, config, ring and lost counter are the slot's. No run (the run ended, or a caller
 * in none) is refused without a record.
 * bind4/bind6 (issue 17, loopback servers): an explicit bind() is allowed only to a loopback
 * address (127.0.0.0/8, ::1, v4-mapped 127/8) whose (address, port) the allowlist holds; every
 * other bind (wildcard, a host interface, a port not granted) fails with EPERM and is reported.
 * In the run's own network namespace (config own_netns) a wildcard bind is inside the run too.
 *
 * Built against the UAPI <linux/bpf.h>, not vmlinux.h: struct bpf_sock_addr is a stable UAPI
 * context (the verifier rewrites its field accesses), so the object carries no CO-RE relocation
 * and libbpf never loads the kernel's BTF for it (that parse cost ~12 MB RSS and 13-50 ms per run).
 * Keep it that way: no vmlinux.h, no BPF_CORE_READ, no preserve_access_index types here.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "netfilter.h"

#define AF_INET 2
#define AF_INET6 10

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__type(key, struct nf_v4_key);
	__type(value, struct nf_net);
	__uint(max_entries, NF_SHARED_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} sbx_allow4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__type(key, struct nf_v6_key);
	__type(value, struct nf_net);
	__uint(max_entries, NF_SHARED_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} sbx_allow6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct nf_port_key);
	__type(value, __u8);
	__uint(max_entries, NF_MAX_PORT_KEYS); /* user space sizes it before load */
	__uint(map_flags, BPF_F_NO_PREALLOC);
} sbx_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);                    /* the run's cgroup id */
	__type(value, __u32);                  /* its slot */
	__uint(max_entries, NF_SLOTS);
} sbx_runs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct nf_config);
	__uint(max_entries, NF_SLOTS);
} sbx_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);                  /* records the slot's ring had no room for */
	__uint(max_entries, NF_SLOTS);
} sbx_lost SEC(".maps");

/* One ring per slot, each a map of its own: a ring in a map-in-map would cost an RCU grace period
 * (~10 ms) at every outer update, and one shared ring cannot have one consumer per run. */
#define NF_RING(n) \
	struct { \
		__uint(type, BPF_MAP_TYPE_RINGBUF); \
		__uint(max_entries, NF_RINGBUF_BYTES); \
	} sbx_events##n SEC(".maps")
NF_RING(0);
NF_RING(1);
NF_RING(2);
NF_RING(3);
NF_RING(4);
NF_RING(5);
NF_RING(6);
NF_RING(7);
_Static_assert(NF_SLOTS == 8, "one NF_RING per slot");

static __always_inline void *ring_of(__u32 slot)
{
	switch (slot) {
	case 0: return &sbx_events0;
	case 1: return &sbx_events1;
	case 2: return &sbx_events2;
	case 3: return &sbx_events3;
	case 4: return &sbx_events4;
	case 5: return &sbx_events5;
	case 6: return &sbx_events6;
	case 7: return &sbx_events7;
	}
	return 0;
}

/* the run cgroup id of the task that created the socket (0: none) */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} sbx_sk_run SEC(".maps");

struct find_run {
	__u64 run;
};

static long find_run_level(__u64 level, void *arg)
{
	struct find_run *f = arg;
	__u64 id = bpf_get_current_ancestor_cgroup_id((int)level);
	if (!id)
		return 1;                      /* past the caller's own cgroup */
	if (bpf_map_lookup_elem(&sbx_runs, &id))
		f->run = id;
	return 0;
}

/* The id of the deepest run cgroup among the caller's cgroup and its ancestors; 0: none. A
 * bpf_loop: its callback is verified once, where an unrolled loop over the levels made the load
 * of the seven programs ~40 ms. */
static __always_inline __u64 caller_run(void)
{
	struct find_run f = {0};
	bpf_loop(NF_MAX_DEPTH, find_run_level, &f, 0);
	return f.run;
}

/* The slot deciding a call on this socket; -1: none. */
static __always_inline int run_slot(struct bpf_sock_addr *ctx)
{
	__u64 run = 0;
	struct bpf_sock *sk = ctx->sk;
	__u64 *mark = sk ? bpf_sk_storage_get(&sbx_sk_run, sk, 0, 0) : 0;
	if (mark)
		run = *mark;
	else
		run = caller_run();
	__u32 *s = run ? bpf_map_lookup_elem(&sbx_runs, &run) : 0;
	return s && *s < NF_SLOTS ? (int)*s : -1;
}

SEC("cgroup/sock_create")
int sbx_sock_create(struct bpf_sock *sk)
{
	__u64 run = caller_run();
	if (run) {
		__u64 *mark = bpf_sk_storage_get(&sbx_sk_run, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
		if (mark)
			*mark = run;
	}
	return 1;
}

/* One lookup, no loop (netfilter.h). */
static __always_inline int port_ok(__u32 slot, const struct nf_net *v, __u16 port)
{
	if (!v)
		return 0;
	if (v->any)
		return 1;
	struct nf_port_key k = {.slot = slot, .id = v->id, .port = port};
	return bpf_map_lookup_elem(&sbx_ports, &k) != NULL;
}

static __always_inline int enforcing(int slot)
{
	__u32 k = (__u32)slot;
	struct nf_config *c = slot >= 0 ? bpf_map_lookup_elem(&sbx_config, &k) : 0;
	return c && c->mode == NF_MODE_LIST;
}

static __always_inline int own_netns(int slot)
{
	__u32 k = (__u32)slot;
	struct nf_config *c = slot >= 0 ? bpf_map_lookup_elem(&sbx_config, &k) : 0;
	return c && c->mode == NF_MODE_LIST && c->own_netns == 1;
}

static __always_inline void report(struct bpf_sock_addr *ctx, int slot, __u16 family, const __u8 *addr,
				   int alen, __u16 port, __u32 hook)
{
	if (slot < 0)
		return;                        /* no run: refused, no ring to tell */
	__u32 k = (__u32)slot;
	void *ring = ring_of(k);
	struct nf_event *e = ring ? bpf_ringbuf_reserve(ring, sizeof(*e), 0) : 0;
	if (!e) {
		__u64 *lost = bpf_map_lookup_elem(&sbx_lost, &k);
		if (lost)
			__sync_fetch_and_add(lost, 1);
		return;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->family = family;
	e->port = port;
	e->proto = ctx->protocol;
	e->hook = hook;
	if (alen == 4)
		__builtin_memcpy(e->addr, addr, 4);
	else
		__builtin_memcpy(e->addr, addr, 16);
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
}

static __always_inline int check4(struct bpf_sock_addr *ctx, int slot, __u32 ip4, __u32 hook)
{
	__u16 port = bpf_ntohs((__u16)ctx->user_port);
	struct nf_v4_key key = {.prefixlen = 64, .slot = (__u32)slot};
	__builtin_memcpy(key.addr, &ip4, 4);
	if (enforcing(slot) && port_ok((__u32)slot, bpf_map_lookup_elem(&sbx_allow4, &key), port))
		return 1;
	report(ctx, slot, AF_INET, key.addr, 4, port, hook);
	return 0;
}

static __always_inline int check6(struct bpf_sock_addr *ctx, int slot, __u32 hook4, __u32 hook6)
{
	__u32 a0 = ctx->user_ip6[0], a1 = ctx->user_ip6[1], a2 = ctx->user_ip6[2], a3 = ctx->user_ip6[3];
	if (a0 == 0 && a1 == 0 && a2 == bpf_htonl(0xffff))
		return check4(ctx, slot, a3, hook4);
	__u16 port = bpf_ntohs((__u16)ctx->user_port);
	struct nf_v6_key key = {.prefixlen = 160, .slot = (__u32)slot};
	__builtin_memcpy(&key.addr[0], &a0, 4);
	__builtin_memcpy(&key.addr[4], &a1, 4);
	__builtin_memcpy(&key.addr[8], &a2, 4);
	__builtin_memcpy(&key.addr[12], &a3, 4);
	if (enforcing(slot) && port_ok((__u32)slot, bpf_map_lookup_elem(&sbx_allow6, &key), port))
		return 1;
	report(ctx, slot, AF_INET6, key.addr, 16, port, hook6);
	return 0;
}

SEC("cgroup/connect4")
int sbx_connect4(struct bpf_sock_addr *ctx)
{
	return check4(ctx, run_slot(ctx), ctx->user_ip4, NF_HOOK_CONNECT4);
}

SEC("cgroup/sendmsg4")
int sbx_sendmsg4(struct bpf_sock_addr *ctx)
{
	return check4(ctx, run_slot(ctx), ctx->user_ip4, NF_HOOK_SENDMSG4);
}

SEC("cgroup/connect6")
int sbx_connect6(struct bpf_sock_addr *ctx)
{
	return check6(ctx, run_slot(ctx), NF_HOOK_CONNECT4, NF_HOOK_CONNECT6);
}

SEC("cgroup/sendmsg6")
int sbx_sendmsg6(struct bpf_sock_addr *ctx)
{
	return check6(ctx, run_slot(ctx), NF_HOOK_SENDMSG4, NF_HOOK_SENDMSG6);
}

static __always_inline int deny_bind(struct bpf_sock_addr *ctx, int slot, __u16 family, const __u8 *addr,
				     int alen, __u32 hook)
{
	report(ctx, slot, family, addr, alen, bpf_ntohs((__u16)ctx->user_port), hook);
	return 0;
}

SEC("cgroup/bind4")
int sbx_bind4(struct bpf_sock_addr *ctx)
{
	int slot = run_slot(ctx);
	__u32 ip4 = ctx->user_ip4;
	if (ip4 == 0 && own_netns(slot))
		return 1;
	if ((bpf_ntohl(ip4) >> 24) == 127)
		return check4(ctx, slot, ip4, NF_HOOK_BIND4);
	return deny_bind(ctx, slot, AF_INET, (const __u8 *)&ip4, 4, NF_HOOK_BIND4);
}

SEC("cgroup/bind6")
int sbx_bind6(struct bpf_sock_addr *ctx)
{
	int slot = run_slot(ctx);
	__u32 a0 = ctx->user_ip6[0], a1 = ctx->user_ip6[1], a2 = ctx->user_ip6[2], a3 = ctx->user_ip6[3];
	if (a0 == 0 && a1 == 0 && a2 == bpf_htonl(0xffff)) {
		if ((bpf_ntohl(a3) >> 24) == 127)
			return check4(ctx, slot, a3, NF_HOOK_BIND4);
		return deny_bind(ctx, slot, AF_INET, (const __u8 *)&a3, 4, NF_HOOK_BIND4);
	}
	if (a0 == 0 && a1 == 0 && a2 == 0 && a3 == bpf_htonl(1))
		return check6(ctx, slot, NF_HOOK_BIND4, NF_HOOK_BIND6);
	if ((a0 | a1 | a2 | a3) == 0 && own_netns(slot))
		return 1;
	__u8 k[16];
	__builtin_memcpy(&k[0], &a0, 4);
	__builtin_memcpy(&k[4], &a1, 4);
	__builtin_memcpy(&k[8], &a2, 4);
	__builtin_memcpy(&k[12], &a3, 4);
	return deny_bind(ctx, slot, AF_INET6, k, 16, NF_HOOK_BIND6);
}
