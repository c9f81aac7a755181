/* netfilter_share.c — see netfilter_share.h. */
#include "netfilter_share.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "netfilter.skel.h"

int nf_object_open(struct bpf_object **obj, char *why, size_t whylen)
{
	size_t sz = 0;
	const void *elf = netfilter_bpf__elf_bytes(&sz);
	LIBBPF_OPTS(bpf_object_open_opts, o, .object_name = "netfilter_bpf");
	*obj = bpf_object__open_mem(elf, sz, &o);
	if (!*obj) {
		snprintf(why, whylen, "BPF open: %s", strerror(errno));
		return -1;
	}
	return 0;
}

const char *const nf_prog_names[NF_NPROGS] = {"sbx_connect4", "sbx_connect6", "sbx_sendmsg4",
					     "sbx_sendmsg6", "sbx_bind4",    "sbx_bind6",
					     "sbx_sock_create"};
const int nf_prog_attach[NF_NPROGS] = {BPF_CGROUP_INET4_CONNECT, BPF_CGROUP_INET6_CONNECT,
				       BPF_CGROUP_UDP4_SENDMSG,  BPF_CGROUP_UDP6_SENDMSG,
				       BPF_CGROUP_INET4_BIND,    BPF_CGROUP_INET6_BIND,
				       BPF_CGROUP_INET_SOCK_CREATE};
static const char *const map_names[] = {"sbx_allow4", "sbx_allow6", "sbx_ports",
					"sbx_runs",   "sbx_config", "sbx_lost"};
#define NF_NMAPS (sizeof map_names / sizeof map_names[0])

static int *map_slot(struct nf_fds *f, size_t i)
{
	int *m[] = {&f->allow4, &f->allow6, &f->ports, &f->runs, &f->config, &f->lost};
	return m[i];
}

void nf_fds_reset(struct nf_fds *f)
{
	for (size_t i = 0; i < NF_NMAPS; i++)
		*map_slot(f, i) = -1;
	for (int i = 0; i < NF_SLOTS; i++)
		f->ring[i] = -1;
	for (int i = 0; i < NF_NPROGS; i++)
		f->prog[i] = -1;
}

void nf_fds_close(struct nf_fds *f)
{
	for (size_t i = 0; i < NF_NMAPS; i++)
		if (*map_slot(f, i) >= 0)
			close(*map_slot(f, i));
	for (int i = 0; i < NF_SLOTS; i++)
		if (f->ring[i] >= 0)
			close(f->ring[i]);
	for (int i = 0; i < NF_NPROGS; i++)
		if (f->prog[i] >= 0)
			close(f->prog[i]);
	nf_fds_reset(f);
}

int nf_cgroup_id(int cgfd, uint64_t *id, char *why, size_t whylen)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = {.fh.handle_bytes = sizeof(uint64_t)};
	int mnt;
	if (name_to_handle_at(cgfd, "", &h.fh, &mnt, AT_EMPTY_PATH) != 0) {
		snprintf(why, whylen, "run cgroup id: %s", strerror(errno));
		return -1;
	}
	memcpy(id, h.fh.f_handle, sizeof *id);
	return 0;
}

int nf_size_maps(struct bpf_object *obj, bool shared, uint32_t port_keys)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "sbx_ports");
	int err = m ? bpf_map__set_max_entries(m, shared ? NF_SHARED_PORT_KEYS : port_keys ? port_keys : 1)
		    : -ENOENT;
	for (int i = 1; !err && !shared && i < NF_SLOTS; i++) {
		char n[32];
		snprintf(n, sizeof n, "sbx_events%d", i);
		m = bpf_object__find_map_by_name(obj, n);
		err = m ? bpf_map__set_max_entries(m, (uint32_t)sysconf(_SC_PAGESIZE)) : -ENOENT;
	}
	return err;
}

static int dup_or(int fd, const char *what, char *why, size_t whylen)
{
	int d = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1;
	if (d < 0)
		snprintf(why, whylen, "netfilter object: %s: %s", what, fd < 0 ? "missing" : strerror(errno));
	return d;
}

int nf_fds_from_obj(struct bpf_object *obj, struct nf_fds *f, char *why, size_t whylen)
{
	nf_fds_reset(f);
	for (size_t i = 0; i < NF_NMAPS; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, map_names[i]);
		if ((*map_slot(f, i) = dup_or(m ? bpf_map__fd(m) : -1, map_names[i], why, whylen)) < 0)
			goto fail;
	}
	for (int i = 0; i < NF_SLOTS; i++) {
		char n[32];
		snprintf(n, sizeof n, "sbx_events%d", i);
		struct bpf_map *m = bpf_object__find_map_by_name(obj, n);
		if ((f->ring[i] = dup_or(m ? bpf_map__fd(m) : -1, n, why, whylen)) < 0)
			goto fail;
	}
	for (int i = 0; i < NF_NPROGS; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(obj, nf_prog_names[i]);
		if ((f->prog[i] = dup_or(p ? bpf_program__fd(p) : -1, nf_prog_names[i], why, whylen)) < 0)
			goto fail;
	}
	return 0;
fail:
	nf_fds_close(f);
	return -1;
}

int nf_cgroup2_mount(char *mnt, size_t mlen, char *root, size_t rlen, char *why, size_t whylen)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f) {
		snprintf(why, whylen, "/proc/self/mountinfo: %s", strerror(errno));
		return -1;
	}
	char line[4096];
	bool found = false;
	while (!found && fgets(line, sizeof line, f)) {
		char *sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		char r[2048], m[2048];
		if (sscanf(line, "%*s %*s %*s %2047s %2047s", r, m) == 2) {
			snprintf(root, rlen, "%s", r);
			snprintf(mnt, mlen, "%s", m);
			found = true;
		}
	}
	fclose(f);
	if (!found) {
		snprintf(why, whylen, "no cgroup v2 mount in /proc/self/mountinfo (mount cgroup2 or boot with "
			 "systemd.unified_cgroup_hierarchy=1)");
		return -1;
	}
	return 0;
}

/* --- slots ------------------------------------------------------------------------------------ */

/* Does the cgroup with this id still exist? (open_by_handle_at on the cgroup2 mount: ESTALE when
 * it is gone). Unknown (no mount, no permission) counts as existing: never free a live run's slot. */
static bool cgroup_alive(uint64_t id)
{
	char mnt[2048], root[2048], w[256];
	if (nf_cgroup2_mount(mnt, sizeof mnt, root, sizeof root, w, sizeof w) != 0)
		return true;
	int m = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct statfs sf;
	if (m < 0 || fstatfs(m, &sf) != 0 || sf.f_type != CGROUP2_SUPER_MAGIC) {
		if (m >= 0)
			close(m);
		return true;
	}
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = {.fh.handle_bytes = sizeof(uint64_t), .fh.handle_type = 0xfe /* FILEID_KERNFS */};
	memcpy(h.fh.f_handle, &id, sizeof id);
	int fd = open_by_handle_at(m, &h.fh, O_RDONLY | O_CLOEXEC);
	int e = errno;
	close(m);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	return !(e == ESTALE || e == ENOENT);
}

/* Delete every key of the slot in a trie or hash whose key starts with (prefixlen,) slot. */
static void wipe_keys(int fd, size_t keylen, size_t slot_off, uint32_t slot)
{
	uint8_t cur[64], next[64];
	void *prev = NULL;
	/* deleting while walking restarts the walk: collect first (bounded by the map) */
	for (int round = 0; round < 64; round++) {
		size_t dels = 0;
		prev = NULL;
		while (bpf_map_get_next_key(fd, prev, next) == 0) {
			memcpy(cur, next, keylen);
			prev = cur;
			uint32_t s;
			memcpy(&s, cur + slot_off, sizeof s);
			if (s == slot && bpf_map_delete_elem(fd, cur) == 0) {
				dels++;
				break;          /* the walk's position is gone with the key: start again */
			}
		}
		if (!dels)
			return;
	}
}

/* Every key of the slot, found by walking the maps (a dead run's, whose list of keys died with it). */
static void slot_empty(const struct nf_fds *f, uint32_t slot)
{
	struct nf_config off = {0};
	uint64_t zero = 0;
	(void)bpf_map_update_elem(f->config, &slot, &off, BPF_ANY);
	wipe_keys(f->allow4, sizeof(struct nf_v4_key), offsetof(struct nf_v4_key, slot), slot);
	wipe_keys(f->allow6, sizeof(struct nf_v6_key), offsetof(struct nf_v6_key, slot), slot);
	wipe_keys(f->ports, sizeof(struct nf_port_key), offsetof(struct nf_port_key, slot), slot);
	(void)bpf_map_update_elem(f->lost, &slot, &zero, BPF_ANY);
}

/* Empty the slots of runs whose cgroup is gone. Returns the number freed. */
static int sweep_dead(const struct nf_fds *f)
{
	int freed = 0;
	uint64_t key, next, *prev = NULL;
	uint64_t dead[NF_SLOTS];
	size_t nd = 0;
	while (nd < NF_SLOTS && bpf_map_get_next_key(f->runs, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (!cgroup_alive(key))
			dead[nd++] = key;
	}
	for (size_t i = 0; i < nd; i++) {
		uint32_t slot;
		if (bpf_map_lookup_elem(f->runs, &dead[i], &slot) != 0)
			continue;
		slot_empty(f, slot);
		if (bpf_map_delete_elem(f->runs, &dead[i]) == 0)
			freed++;
	}
	return freed;
}

int nf_slot_claim(const struct nf_fds *f, uint64_t cgid, bool shared, int *slot, char *why, size_t whylen)
{
	bool used[NF_SLOTS] = {false};
	for (int pass = 0; pass < 2; pass++) {
		uint64_t key, next, *prev = NULL;
		memset(used, 0, sizeof used);
		while (bpf_map_get_next_key(f->runs, prev, &next) == 0) {
			key = next;
			prev = &key;
			uint32_t s;
			if (bpf_map_lookup_elem(f->runs, &key, &s) == 0 && s < NF_SLOTS)
				used[s] = true;
		}
		int n = shared ? NF_SLOTS : 1;
		for (int i = 0; i < n; i++) {
			if (used[i])
				continue;
			/* a free slot is empty: its last holder deleted its keys before freeing it
			 * (nf_slot_free), a dead one's were wiped by sweep_dead; config and counter
			 * are reset again here, the ring is drained by the caller */
			uint32_t s = (uint32_t)i;
			struct nf_config off = {0};
			uint64_t zero = 0;
			if (bpf_map_update_elem(f->config, &s, &off, BPF_ANY) != 0 ||
			    bpf_map_update_elem(f->lost, &s, &zero, BPF_ANY) != 0 ||
			    bpf_map_update_elem(f->runs, &cgid, &s, BPF_NOEXIST) != 0) {
				snprintf(why, whylen, "netfilter slot: %s", strerror(errno));
				return -1;
			}
			*slot = i;
			return 0;
		}
		if (pass == 0 && sweep_dead(f) == 0)
			break;
	}
	snprintf(why, whylen, "all %d slots of the shared netfilter set are held", NF_SLOTS);
	return 1;
}

void nf_slot_free(const struct nf_fds *f, int slot, uint64_t cgid, const struct nf_keys *k)
{
	if (slot < 0)
		return;
	uint32_t s = (uint32_t)slot;
	struct nf_config off = {0};
	bool missed = bpf_map_update_elem(f->config, &s, &off, BPF_ANY) != 0;
	for (size_t i = 0; k && i < k->n4; i++)
		missed |= bpf_map_delete_elem(f->allow4, &k->k4[i]) != 0 && errno != ENOENT;
	for (size_t i = 0; k && i < k->n6; i++)
		missed |= bpf_map_delete_elem(f->allow6, &k->k6[i]) != 0 && errno != ENOENT;
	if (k && k->np) {
		uint32_t cnt = (uint32_t)k->np;
		LIBBPF_OPTS(bpf_map_batch_opts, o);
		if (bpf_map_delete_batch(f->ports, k->kp, &cnt, &o) != 0)
			for (size_t i = 0; i < k->np; i++)
				missed |= bpf_map_delete_elem(f->ports, &k->kp[i]) != 0 && errno != ENOENT;
	}
	if (missed || !k)
		slot_empty(f, s);          /* the next holder must find nothing of this run's */
	uint64_t zero = 0;
	(void)bpf_map_update_elem(f->lost, &s, &zero, BPF_ANY);
	(void)bpf_map_delete_elem(f->runs, &cgid);  /* last: the slot is free from here */
}

/* --- the shared set (bpf_share.h) ------------------------------------------------------------- */

static const char *const ring_pin_fmt = "%s/map_sbx_events%d";

static void nf_unpin(const char *dir)
{
	char p[256];
	for (size_t i = 0; i < NF_NMAPS; i++) {
		snprintf(p, sizeof p, "%s/map_%s", dir, map_names[i]);
		(void)unlink(p);
	}
	for (int i = 0; i < NF_SLOTS; i++) {
		snprintf(p, sizeof p, ring_pin_fmt, dir, i);
		(void)unlink(p);
	}
	for (int i = 0; i < NF_NPROGS; i++) {
		snprintf(p, sizeof p, "%s/prog_%s", dir, nf_prog_names[i]);
		(void)unlink(p);
	}
	(void)rmdir(dir);
}

/* In the loader child: load the object (the one verification of the set's lifetime) and pin its
 * maps and programs. */
static int nf_load_pin(const char *dir, char *why, size_t whylen)
{
	struct bpf_object *obj = NULL;
	struct nf_fds f;
	nf_fds_reset(&f);
	int rc = -1;
	if (nf_object_open(&obj, why, whylen) != 0)
		return -1;
	int err = nf_size_maps(obj, true, 0);
	if (!err)
		err = bpf_object__load(obj);
	if (err) {
		snprintf(why, whylen, "BPF load: %s", strerror(-err));
		goto out;
	}
	if (nf_fds_from_obj(obj, &f, why, whylen) != 0)
		goto out;
	if (mkdir("/sys/fs/bpf/sbxsup", 0700) != 0 && errno != EEXIST) {
		snprintf(why, whylen, "mkdir /sys/fs/bpf/sbxsup: %s", strerror(errno));
		goto out;
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		snprintf(why, whylen, "mkdir %s: %s", dir, strerror(errno));
		goto out;
	}
	char p[256];
	for (size_t i = 0; i < NF_NMAPS; i++) {
		snprintf(p, sizeof p, "%s/map_%s", dir, map_names[i]);
		if (bpf_obj_pin(*map_slot(&f, i), p) != 0)
			goto pin_fail;
	}
	for (int i = 0; i < NF_SLOTS; i++) {
		snprintf(p, sizeof p, ring_pin_fmt, dir, i);
		if (bpf_obj_pin(f.ring[i], p) != 0)
			goto pin_fail;
	}
	/* the programs last: their pins say the set is complete */
	for (int i = 0; i < NF_NPROGS; i++) {
		snprintf(p, sizeof p, "%s/prog_%s", dir, nf_prog_names[i]);
		if (bpf_obj_pin(f.prog[i], p) != 0)
			goto pin_fail;
	}
	rc = 0;
	goto out;
pin_fail:
	snprintf(why, whylen, "pin %s: %s", p, strerror(errno));
	nf_unpin(dir);
out:
	nf_fds_close(&f);
	bpf_object__close(obj);
	return rc;
}

static int get_pin(const char *p, int *fd)
{
	*fd = bpf_obj_get(p);
	return *fd < 0 ? -1 : 0;
}

static int nf_open(const char *dir, void *arg, bool fresh, char *why, size_t whylen)
{
	(void)fresh;
	struct nf_fds *f = arg;
	nf_fds_reset(f);
	if (access(dir, F_OK) != 0)
		return 1;
	char p[256];
	for (size_t i = 0; i < NF_NMAPS; i++) {
		snprintf(p, sizeof p, "%s/map_%s", dir, map_names[i]);
		if (get_pin(p, map_slot(f, i)) != 0)
			goto fail;
	}
	for (int i = 0; i < NF_SLOTS; i++) {
		snprintf(p, sizeof p, ring_pin_fmt, dir, i);
		if (get_pin(p, &f->ring[i]) != 0)
			goto fail;
	}
	for (int i = 0; i < NF_NPROGS; i++) {
		snprintf(p, sizeof p, "%s/prog_%s", dir, nf_prog_names[i]);
		if (get_pin(p, &f->prog[i]) != 0)
			goto fail;
	}
	return 0;
fail:
	snprintf(why, whylen, "open %s: %s (a set half pinned)", p, strerror(errno));
	nf_fds_close(f);
	return -1;
}

/* The run's links are its own (closed before release): nothing of the set stays attached. */
static void nf_drop(void *arg)
{
	(void)arg;
}

static const struct bs_ops nf_ops = {
	.dir = NF_AUTO_DIR,
	.idle_env = "SBXSUP_NETFILTER_IDLE",
	.load_pin = nf_load_pin,
	.open = nf_open,
	.drop = nf_drop,
	.detach = NULL,
	.unpin = nf_unpin,
};

struct claim_arg {
	struct nf_share *s;
	int rc;
	char *why;
	size_t whylen;
};

static void claim_locked(void *p)
{
	struct claim_arg *c = p;
	c->rc = nf_slot_claim(&c->s->f, c->s->cgid, true, &c->s->slot, c->why, c->whylen);
}

int nf_share_acquire(struct nf_share *s, uint64_t cgid, char *why, size_t whylen)
{
	s->slot = -1;
	s->cgid = cgid;
	nf_fds_reset(&s->f);
	if (bs_acquire(&nf_ops, &s->ref, &s->f, why, whylen) != 0)
		return -1;
	struct claim_arg c = {.s = s, .rc = -1, .why = why, .whylen = whylen};
	if (bs_locked(claim_locked, &c) != 0)
		snprintf(why, whylen, "lock /sys/fs/bpf to claim a netfilter slot");
	if (c.rc != 0) {
		s->slot = -1;
		nf_share_release(s, NULL);
		return c.rc < 0 ? -1 : 1;
	}
	return 0;
}

void nf_share_release(struct nf_share *s, const struct nf_keys *k)
{
	if (s->ref.dirfd < 0)
		return;
	nf_slot_free(&s->f, s->slot, s->cgid, k);
	s->slot = -1;
	nf_fds_close(&s->f);
	bs_release(&nf_ops, &s->ref, &s->f);
}

static void sweep_locked(void *p)
{
	struct nf_fds *f = p;
	(void)sweep_dead(f);
}

int nf_share_reclaim(void)
{
	if (access(NF_AUTO_DIR, F_OK) != 0)
		return 0;
	struct nf_fds f;
	char w[256];
	if (nf_open(NF_AUTO_DIR, &f, false, w, sizeof w) == 0) {
		(void)bs_locked(sweep_locked, &f);
		nf_fds_close(&f);
	}
	return bs_reclaim(&nf_ops);
}

long nf_share_idle_secs(void)
{
	return bs_idle_secs(&nf_ops);
}

int nf_share_expire(bool force)
{
	return bs_expire(&nf_ops, force);
}

time_t nf_share_idle_until(void)
{
	return bs_idle_until(&nf_ops);
}

int nf_share_holders(void)
{
	return bs_holders(&nf_ops);
}
