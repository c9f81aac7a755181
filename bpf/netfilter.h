/* netfilter.h — structures shared by bpf/netfilter.bpf.c and supervisor/layers/netfilter_layer.c.
 *
 * Promise: one layout for both sides. Addresses are in network order, ports in host order.
 * An allowlist entry is an LPM-trie key (prefix length + address) whose value names the set of ports
 * granted for every address under that prefix: "any port", or an id whose ports are keys
 * (id, port) of the sbx_ports hash (user space folds the ports of shorter containing prefixes into
 * each longer one, because an LPM lookup returns only the longest match). The port set is a hash
 * and not an array in the value so the programs test a port with one lookup instead of a loop
 * (the unrolled loop was 2/3 of their verification).
 */
#ifndef SBX_BPF_NETFILTER_H
#define SBX_BPF_NETFILTER_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define NF_MAX_RULES 1024     /* entries of one run (user space refuses more) */
/* One set of programs serves every run (netfilter_share.h): a run holds a slot, and its entries
 * carry the slot number in front of the address so that one run's prefixes never match another's.
 * NF_SLOTS runs at a time use the shared set; the next ones load a private set. Bump NF_ABI with
 * any change of these layouts or of the programs' meaning: it names the pin directory. */
#define NF_SLOTS 8
#define NF_ABI 1
#define NF_MAX_DEPTH 32       /* cgroup levels searched for the run's cgroup */
#define NF_MAX_PORTS 16       /* ports granted for one entry (user space refuses more) */
/* sbx_ports bound (both tries full, 16 ports each); user space sizes it to the policy before load */
#define NF_MAX_PORT_KEYS (2 * NF_MAX_RULES * NF_MAX_PORTS)
/* bounds of the shared set (BPF_F_NO_PREALLOC: memory follows the entries present, but a hash's
 * bucket array is allocated and cleared at creation: the port keys of all runs share one run's
 * bound; a run whose keys do not fit while others hold theirs loads a private set) */
#define NF_SHARED_RULES (NF_SLOTS * NF_MAX_RULES)
#define NF_SHARED_PORT_KEYS NF_MAX_PORT_KEYS
#define NF_RINGBUF_BYTES (256 * 1024)

/* prefixlen counts the slot's 32 bits: 32 + the rule's prefix */
struct nf_v4_key {
	__u32 prefixlen;
	__u32 slot;
	__u8 addr[4];
};

struct nf_v6_key {
	__u32 prefixlen;
	__u32 slot;
	__u8 addr[16];
};

/* LPM-trie value */
struct nf_net {
	__u32 id;                  /* its ports in sbx_ports (unique over both tries, never 0) */
	__u32 any;                 /* 1: every port */
};

/* sbx_ports key (the value is a __u8 1): port granted for the entry id of the slot */
struct nf_port_key {
	__u32 slot;
	__u32 id;
	__u32 port;                /* host order */
};

/* config map, index: the slot (sbx_runs maps the run's cgroup id to it) */
enum nf_mode { NF_MODE_UNSET = 0, NF_MODE_LIST = 1 };
struct nf_config {
	__u32 mode;                /* NF_MODE_UNSET denies everything (fail closed) */
	__u32 own_netns;           /* 1: the run's own network namespace: a wildcard bind (0.0.0.0, ::)
				    * is inside the run (its loopback is in the allowlist as entries) */
};

enum nf_hook { NF_HOOK_CONNECT4 = 1, NF_HOOK_CONNECT6, NF_HOOK_SENDMSG4, NF_HOOK_SENDMSG6, NF_HOOK_BIND4,
	       NF_HOOK_BIND6 };

/* ring buffer record, one per refusal */
struct nf_event {
	__u32 pid;                 /* tgid, initial pid namespace */
	__u16 family;              /* AF_INET / AF_INET6 (a v4-mapped v6 address is reported as v4) */
	__u16 port;                /* host order */
	__u32 proto;               /* IPPROTO_TCP / IPPROTO_UDP / ... */
	__u32 hook;                /* enum nf_hook */
	__u8 addr[16];             /* network order; v4 in the first 4 bytes */
	char comm[16];
};

#endif
