// SPDX-License-Identifier: GPL-2.0
/* netfilter.bpf.c — per-run network allowlist: cgroup/connect4,6 + sendmsg4,6.
 *
 * Promise: for every connect() and every sendto()/sendmsg() with a destination address made by a
 * process in the cgroup the programs are attached to, the destination (address, port) must be in
 * the allowlist (sbx_allow4 / sbx_allow6 LPM tries and the sbx_ports hash, filled by user space
 * before attach); otherwise the call fails with EPERM (return 0) and a record goes to the ring
 * buffer (or the lost counter when it is full). A v4-mapped IPv6 destination is decided as IPv4.
 * An unset config denies everything.
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
	__uint(max_entries, NF_MAX_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} sbx_allow4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__type(key, struct nf_v6_key);
	__type(value, struct nf_net);
	__uint(max_entries, NF_MAX_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} sbx_allow6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct nf_port_key);
	__type(value, __u8);
	__uint(max_entries, NF_MAX_PORT_KEYS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} sbx_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct nf_config);
	__uint(max_entries, 1);
} sbx_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, NF_RINGBUF_BYTES);
} sbx_events SEC(".maps");

__u64 sbx_lost = 0;

/* One lookup, no loop: the programs are verified on every run (netfilter.h). */
static __always_inline int port_ok(const struct nf_net *v, __u16 port)
{
	if (!v)
		return 0;
	if (v->any)
		return 1;
	struct nf_port_key k = {.id = v->id, .port = port};
	return bpf_map_lookup_elem(&sbx_ports, &k) != NULL;
}

static __always_inline int enforcing(void)
{
	__u32 k = 0;
	struct nf_config *c = bpf_map_lookup_elem(&sbx_config, &k);
	return c && c->mode == NF_MODE_LIST;
}

static __always_inline int own_netns(void)
{
	__u32 k = 0;
	struct nf_config *c = bpf_map_lookup_elem(&sbx_config, &k);
	return c && c->mode == NF_MODE_LIST && c->own_netns == 1;
}

static __always_inline void report(struct bpf_sock_addr *ctx, __u16 family, const __u8 *addr, int alen,
				   __u16 port, __u32 hook)
{
	struct nf_event *e = bpf_ringbuf_reserve(&sbx_events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&sbx_lost, 1);
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

static __always_inline int check4(struct bpf_sock_addr *ctx, __u32 ip4, __u32 hook)
{
	__u16 port = bpf_ntohs((__u16)ctx->user_port);
	struct nf_v4_key key = {.prefixlen = 32};
	__builtin_memcpy(key.addr, &ip4, 4);
	if (enforcing() && port_ok(bpf_map_lookup_elem(&sbx_allow4, &key), port))
		return 1;
	report(ctx, AF_INET, key.addr, 4, port, hook);
	return 0;
}

static __always_inline int check6(struct bpf_sock_addr *ctx, __u32 hook4, __u32 hook6)
{
	__u32 a0 = ctx->user_ip6[0], a1 = ctx->user_ip6[1], a2 = ctx->user_ip6[2], a3 = ctx->user_ip6[3];
	if (a0 == 0 && a1 == 0 && a2 == bpf_htonl(0xffff))
		return check4(ctx, a3, hook4);
	__u16 port = bpf_ntohs((__u16)ctx->user_port);
	struct nf_v6_key key = {.prefixlen = 128};
	__builtin_memcpy(&key.addr[0], &a0, 4);
	__builtin_memcpy(&key.addr[4], &a1, 4);
	__builtin_memcpy(&key.addr[8], &a2, 4);
	__builtin_memcpy(&key.addr[12], &a3, 4);
	if (enforcing() && port_ok(bpf_map_lookup_elem(&sbx_allow6, &key), port))
		return 1;
	report(ctx, AF_INET6, key.addr, 16, port, hook6);
	return 0;
}

SEC("cgroup/connect4")
int sbx_connect4(struct bpf_sock_addr *ctx)
{
	return check4(ctx, ctx->user_ip4, NF_HOOK_CONNECT4);
}

SEC("cgroup/sendmsg4")
int sbx_sendmsg4(struct bpf_sock_addr *ctx)
{
	return check4(ctx, ctx->user_ip4, NF_HOOK_SENDMSG4);
}

SEC("cgroup/connect6")
int sbx_connect6(struct bpf_sock_addr *ctx)
{
	return check6(ctx, NF_HOOK_CONNECT4, NF_HOOK_CONNECT6);
}

SEC("cgroup/sendmsg6")
int sbx_sendmsg6(struct bpf_sock_addr *ctx)
{
	return check6(ctx, NF_HOOK_SENDMSG4, NF_HOOK_SENDMSG6);
}

static __always_inline int deny_bind(struct bpf_sock_addr *ctx, __u16 family, const __u8 *addr, int alen,
				     __u32 hook)
{
	report(ctx, family, addr, alen, bpf_ntohs((__u16)ctx->user_port), hook);
	return 0;
}

SEC("cgroup/bind4")
int sbx_bind4(struct bpf_sock_addr *ctx)
{
	__u32 ip4 = ctx->user_ip4;
	if (ip4 == 0 && own_netns())
		return 1;
	if ((bpf_ntohl(ip4) >> 24) == 127)
		return check4(ctx, ip4, NF_HOOK_BIND4);
	return deny_bind(ctx, AF_INET, (const __u8 *)&ip4, 4, NF_HOOK_BIND4);
}

SEC("cgroup/bind6")
int sbx_bind6(struct bpf_sock_addr *ctx)
{
	__u32 a0 = ctx->user_ip6[0], a1 = ctx->user_ip6[1], a2 = ctx->user_ip6[2], a3 = ctx->user_ip6[3];
	if (a0 == 0 && a1 == 0 && a2 == bpf_htonl(0xffff)) {
		if ((bpf_ntohl(a3) >> 24) == 127)
			return check4(ctx, a3, NF_HOOK_BIND4);
		return deny_bind(ctx, AF_INET, (const __u8 *)&a3, 4, NF_HOOK_BIND4);
	}
	if (a0 == 0 && a1 == 0 && a2 == 0 && a3 == bpf_htonl(1))
		return check6(ctx, NF_HOOK_BIND4, NF_HOOK_BIND6);
	if ((a0 | a1 | a2 | a3) == 0 && own_netns())
		return 1;
	__u8 k[16];
	__builtin_memcpy(&k[0], &a0, 4);
	__builtin_memcpy(&k[4], &a1, 4);
	__builtin_memcpy(&k[8], &a2, 4);
	__builtin_memcpy(&k[12], &a3, 4);
	return deny_bind(ctx, AF_INET6, k, 16, NF_HOOK_BIND6);
}
