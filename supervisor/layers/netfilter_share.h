/* netfilter_share.h — one loaded netfilter set (bpf/netfilter.bpf.c) for every run, as a
 * bpf_share.h set pinned under NF_AUTO_DIR (versioned by NF_ABI: a set of an older layout is never
 * opened, it is removed when idle and loaded again).
 *
 * Promise: nf_share_acquire() gives the run the set's fds (loaded, verified and pinned once, by the
 * first run of a boot or after an idle period) and a slot of its own: sbx_runs maps the run
 * cgroup's id to the slot, and the slot was emptied before it was handed out (its entries, config,
 * ring records and lost counter are none of a previous holder's). Slots are claimed under the
 * bpffs gate; a slot whose run cgroup no longer exists (a killed supervisor) is emptied and given
 * out again — by the next claim or by nf_share_reclaim() (the janitor). nf_share_release() removes
 * the run's entries (nf_share_forget first: the keys it was given), frees the slot and drops the
 * reference (the last holder leaves the set idle for SBXSUP_NETFILTER_IDLE seconds, or unpins it).
 * An idle set has no program attached anywhere: each run attaches the pinned programs to its own
 * cgroup with links it owns (closed at the end of the run, or by the kernel when it dies).
 * Returns 1 from nf_share_acquire when every slot is held (the caller loads a private set).
 */
#ifndef SBX_NETFILTER_SHARE_H
#define SBX_NETFILTER_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "bpf_share.h"
#include "bpf/netfilter.h"

#define NF_STR_(x) #x
#define NF_STR(x) NF_STR_(x)
#define NF_AUTO_DIR "/sys/fs/bpf/sbxsup/netfilter-warm-v" NF_STR(NF_ABI)
#define NF_NPROGS 7

/* The set's fds, from a private load (the skeleton's) or from the pins. -1: none. */
struct nf_fds {
	int allow4, allow6, ports, runs, config, lost;
	int ring[NF_SLOTS];
	int prog[NF_NPROGS];
};
extern const char *const nf_prog_names[NF_NPROGS];
extern const int nf_prog_attach[NF_NPROGS];    /* enum bpf_attach_type of each */

struct nf_share {
	struct bs_ref ref;
	struct nf_fds f;
	int slot;               /* -1: none held */
	uint64_t cgid;
};

void nf_fds_reset(struct nf_fds *f);
void nf_fds_close(struct nf_fds *f);
/* The cgroup v2 mount point and the root it shows (/proc/self/mountinfo). 0, or -1 (why). */
int nf_cgroup2_mount(char *mnt, size_t mlen, char *root, size_t rlen, char *why, size_t whylen);
/* The cgroup id of a cgroup v2 directory fd. 0, or -1 (why). */
int nf_cgroup_id(int cgfd, uint64_t *id, char *why, size_t whylen);
struct bpf_object;
/* Open (not load) the netfilter object. 0, or -1 (why). */
int nf_object_open(struct bpf_object **obj, char *why, size_t whylen);
/* Size the private object's rings (every slot but 0 to one page) and the port hash. */
int nf_size_maps(struct bpf_object *obj, bool shared, uint32_t port_keys);
/* The fds of a loaded object (dup'ed: the caller closes them with nf_fds_close). */
int nf_fds_from_obj(struct bpf_object *obj, struct nf_fds *f, char *why, size_t whylen);
/* Claim a slot on the fds (under the gate for the shared set): empty it, map cgid to it.
 * 0, 1 (every slot held), -1 (why). */
int nf_slot_claim(const struct nf_fds *f, uint64_t cgid, bool shared, int *slot, char *why, size_t whylen);

/* 0 (s->f opened, s->slot claimed), 1 (every slot held, nothing held), -1 (why, nothing held). */
int nf_share_acquire(struct nf_share *s, uint64_t cgid, char *why, size_t whylen);
/* Delete the keys the run put (allowlist keys of both tries, port keys), then free the slot and
 * drop the reference. Safe on a struct that acquired nothing. */
struct nf_keys;
void nf_share_release(struct nf_share *s, const struct nf_keys *k);
/* The janitor: empty the slots of runs whose cgroup is gone, then a dead holder's release. */
int nf_share_reclaim(void);
long nf_share_idle_secs(void);
int nf_share_expire(bool force);
time_t nf_share_idle_until(void);
int nf_share_holders(void);

/* The keys a run put into the maps, to delete them at its end. */
struct nf_keys {
	struct nf_v4_key *k4;
	size_t n4;
	struct nf_v6_key *k6;
	size_t n6;
	struct nf_port_key *kp;
	size_t np;
};
/* Delete k's keys and the slot's config, lost counter and sbx_runs entry (the slot is free after). */
void nf_slot_free(const struct nf_fds *f, int slot, uint64_t cgid, const struct nf_keys *k);

#endif
