/* net.bpf.h — network calls (connect, sendto, sendmsg, sendmmsg, bind) and the records without a path
 * argument (network, escape class, signals, io_uring operations).
 *
 * Promise: net_enter() copies the peer's sockaddr from user memory (also from msghdr.msg_name, in
 * either ABI); only AF_INET, AF_INET6 and named AF_UNIX addresses (and an autobind: addrlen ==
 * sizeof(sa_family_t)) are candidates. AF_UNIX: req = the path as given (a path may itself begin
 * with '@'), or, with PR_EVF_ABSTRACT, the abstract name's raw bytes after a leading '@' (none: an
 * autobind).
 * emit_other() writes the record at exit; for a connect that went out, the peer is re-read from the
 * kernel socket (PR_EVF_KTUPLE), not taken from the caller's memory.
 */
#ifndef SBX_PROBES_NET_BPF_H
#define SBX_PROBES_NET_BPF_H

/* Copy a sockaddr (AF_INET/AF_INET6, or an AF_UNIX name of `alen` bytes) from user memory into the
 * stash. Returns true if kept. AF_UNIX: req[0] = the path as given, or "@" + the abstract name's
 * raw bytes (req_ok[0] = their count + 1; user space makes them printable). */
static __always_inline bool read_sockaddr(struct pr_stash *s, const void *uaddr, __u64 alen)
{
	__u16 fam = 0;
	if (!uaddr || bpf_probe_read_user(&fam, sizeof(fam), uaddr))
		return false;
	if (fam == AF_UNIX_) {
		if (alen < 2 || alen > 2 + 108)
			return false;
		char first = 0;
		if (alen > 2 && bpf_probe_read_user(&first, 1, uaddr + 2))
			return false;
		s->family = AF_UNIX_;
		s->evflags |= PR_EVF_UNIX;
		if (alen == 2) {                    /* autobind: the kernel picks an abstract name */
			s->evflags |= PR_EVF_ABSTRACT;
			s->req[0][0] = '@';
			s->req[0][1] = 0;
			s->req_ok[0] = 1;
		} else if (first == 0) {
			__u32 n = (__u32)alen - 3;
			if (n > 107)
				n = 0;
			n &= 127;
			asm volatile("" : "+r"(n));     /* keep the bound in the register the verifier sees */
			s->evflags |= PR_EVF_ABSTRACT;
			s->req[0][0] = '@';
			bpf_probe_read_user(&s->req[0][1], n, uaddr + 3);
			__u32 e = (n + 1) & 127;
			asm volatile("" : "+r"(e));
			s->req[0][e] = 0;
			s->req_ok[0] = n + 1;
		} else {
			long r = bpf_probe_read_user_str(s->req[0], 109, uaddr + 2);
			s->req_ok[0] = r > 0 ? (__u32)r : 0;
		}
		return true;
	}
	if (fam == AF_INET_) {
		struct { __u16 f; __u16 port; __u8 a[4]; } in4;
		if (bpf_probe_read_user(&in4, sizeof(in4), uaddr))
			return false;
		s->family = fam;
		s->port = bpf_ntohs(in4.port);
		__builtin_memcpy(s->addr, in4.a, 4);
		return true;
	}
	if (fam == AF_INET6_) {
		struct { __u16 f; __u16 port; __u32 flow; __u8 a[16]; } in6;
		if (bpf_probe_read_user(&in6, sizeof(in6), uaddr))
			return false;
		s->family = fam;
		s->port = bpf_ntohs(in6.port);
		__builtin_memcpy(s->addr, in6.a, 16);
		return true;
	}
	return false;
}

/* At enter: the named peer of a network call; false when there is none (connected socket, ...). */
static __always_inline bool net_enter(struct pr_stash *s)
{
	__u32 sc = s->sc;
	const void *ua = NULL;
	__u64 alen = 0;
	if (sc == PR_SC_CONNECT || sc == PR_SC_BIND) {
		ua = (const void *)s->args[1];
		alen = (__u32)s->args[2];
	} else if (sc == PR_SC_SENDTO) {
		ua = (const void *)s->args[4];
		alen = (__u32)s->args[5];
	} else {                            /* sendmsg: msghdr.msg_name, msg_namelen; sendmmsg: the
					     * first mmsghdr's (its msg_hdr comes first) */
		__u64 name = 0;
		__u32 nl = 0;
		if (s->compat) {
			__u32 n32[2] = {};
			bpf_probe_read_user(n32, sizeof(n32), (const void *)s->args[1]);
			name = n32[0];
			nl = n32[1];
		} else {
			bpf_probe_read_user(&name, sizeof(name), (const void *)s->args[1]);
			bpf_probe_read_user(&nl, sizeof(nl), (const void *)(s->args[1] + 8));
		}
		ua = (const void *)name;
		alen = nl;
	}
	return read_sockaddr(s, ua, alen);
}

/* connect that went out: the peer as the kernel socket holds it. */
static __always_inline void peer_from_socket(struct pr_event *ev, struct task_struct *t, long fd)
{
	struct file *f = fd_file(t, fd);
	struct socket *so = f ? (struct socket *)BPF_CORE_READ(f, private_data) : NULL;
	struct sock *sk = so ? BPF_CORE_READ(so, sk) : NULL;
	if (!sk)
		return;
	__u16 fam = BPF_CORE_READ(sk, __sk_common.skc_family);
	__u16 dport = BPF_CORE_READ(sk, __sk_common.skc_dport);
	if (fam == AF_INET_) {
		__u32 da = BPF_CORE_READ(sk, __sk_common.skc_daddr);
		ev->family = fam;
		ev->port = bpf_ntohs(dport);
		__builtin_memset(ev->addr, 0, 16);
		__builtin_memcpy(ev->addr, &da, 4);
		ev->flags |= PR_EVF_KTUPLE;
	} else if (fam == AF_INET6_) {
		ev->family = fam;
		ev->port = bpf_ntohs(dport);
		BPF_CORE_READ_INTO(ev->addr, sk, __sk_common.skc_v6_daddr.in6_u.u6_addr8);
		ev->flags |= PR_EVF_KTUPLE;
	}
}

/* An io_uring op's object (bpf/probes.h "io_uring records"): the kernel's copy of an openat name
 * with its directory, or an fd op's file. */
static __always_inline void uring_object(struct pr_event *ev, struct pr_stash *s, struct task_struct *t)
{
	ev->flags |= PR_EVF_URING_OBJ;
	ev->dirfd = s->target;
	__u8 op = (__u8)s->aflags;
	struct file *f;
	if (op == 16)
		return;                             /* connect: the address (family, port, addr) */
	if (op == 18 || op == 28) {
		if (!s->req_ok[0]) {
			ev->flags |= PR_EVF_NOPATH;
			return;
		}
		bpf_probe_read_kernel(ev->req, sizeof(ev->req), s->req[0]);
		if (s->req_ok[0] >= PR_NAME_MAX)
			ev->flags |= PR_EVF_REQ_TRUNC;
		if (ev->req[0] == '/')
			return;
		ev->path_kind = PR_PK_BASE;
		if (s->target == AT_FDCWD_)
			walk_cwd(ev, t);
		else if ((f = fd_file(t, s->target)))
			walk_file(ev, t, f);
		else
			ev->path_kind = PR_PK_NONE;
		return;
	}
	f = fd_file(t, s->target);
	if (!f)
		return;
	ev->path_kind = PR_PK_FULL;
	walk_file(ev, t, f);
}

/* The record of a call without a path argument: network, escape class, signals, io_uring op. */
static __always_inline void emit_other(struct pr_stash *s, long ret, __u16 sensor, struct task_struct *t)
{
	__u32 slot = s->slot & (PR_SLOTS - 1);
	void *rb;
	struct pr_event *ev = ev_begin(slot, t, sensor, &rb);
	if (!ev)
		return;
	ev_from_stash(ev, s, ret);
	ev->family = s->family;
	ev->port = s->port;
	__builtin_memcpy(ev->addr, s->addr, 16);
	ev->target = s->target;
	ev->sig = s->sig;
	ev->flags |= s->evflags & (PR_EVF_UNIX | PR_EVF_PGRP | PR_EVF_ABSTRACT);
	if (s->evflags & PR_EVF_UNIX) {
		/* the socket name as given; a relative path is joined onto the cwd by user space */
		bpf_probe_read_kernel(ev->req, sizeof(ev->req), s->req[0]);
		ev->argi = (__u16)(s->req_ok[0] & 0xffff);
		if (s->req_ok[0] == 0)
			ev->flags |= PR_EVF_NOPATH;
		else if (ev->req[0] != '/' && !(s->evflags & PR_EVF_ABSTRACT)) {
			ev->path_kind = PR_PK_BASE;
			walk_cwd(ev, t);
		}
	}
	if (s->sc == PR_SC_CONNECT && (ret == 0 || ret == -115 /* EINPROGRESS */))
		peer_from_socket(ev, t, (long)s->args[0]);
	if (s->sc == PR_SC_IO_URING_OP && (s->evflags & PR_EVF_URING_OBJ))
		uring_object(ev, s, t);
	ev_send(rb, ev, slot);
}

/* Global subprogram (verified once, on its own): the record of the current task's stashed call
 * without a path argument (scratch: the per-CPU stash an io_uring operation was put in). */
__noinline int pr_emit_other(__u32 scratch, long ret, __u32 sensor)
{
	__u32 z = 0;
	struct pr_stash *s = scratch ? bpf_map_lookup_elem(&pr_scratch, &z) : stash_cur();
	if (!s)
		return 0;
	emit_other(s, ret, (__u16)sensor, (struct task_struct *)bpf_get_current_task());
	return 0;
}

#endif
