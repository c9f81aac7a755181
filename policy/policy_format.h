/* policy_format.h — the compiled policy's byte layout (the writer that produces it: policy_write.h).
 *
 * Promise: this is the one definition of the blob format (version POL_VERSION) shared by the
 * reader (policy.c: pol_open + decisions) and the writer (policy_write.c). Users of the policy
 * never include this header: they use policy.h. The supervisor's builder (policy_build.c) uses
 * the writer (policy_write.h), never the structs. This header includes no other of the policy's.
 *
 * Layout (all integers native-endian, the blob never leaves the host; every table 8-byte aligned):
 *   struct pol_hdr                      magic, version, total size, flags, offsets/counts
 *   struct pol_rule_rec   [nrules]      kind, access, flags, glob (string), literal prefix length,
 *                                       text (string), next rule in hash chain, prefix hash
 *   uint32_t              [nbuckets]    hash of literal prefix -> first rule of its chain
 *   uint32_t              [nfloat]      rules with an empty literal prefix (scanned every decision)
 *   struct pol_dir_rec    [ndirs]       directory-level grants
 *   struct pol_dir_rec    [nmasks]      paths fully covered by a hard deny
 *   struct pol_net_rec    [nnet]        network rules
 *   char                  [str_len]     string table: NUL-terminated strings, ends with NUL
 * A rule's literal prefix is the first prefix_len bytes of its glob. Hash chains only go forward
 * (next > index), so a chain can never cycle; pol_open() checks that and every offset.
 *
 * libc only (linked into libsbxpreload.so).
 */
#ifndef SBX_POLICY_FORMAT_H
#define SBX_POLICY_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


#define POL_NONE        0xffffffffu  /* no rule / no string */
#define POL_GLOB_MAX    4096u        /* longest glob or path stored in a rule */

enum pol_hdr_flags {
	POL_F_CODE_EXEC = 1u,
	POL_F_ABSTRACT_INSIDE = 2u,  /* the run has a network namespace of its own: abstract unix
				      * socket names cannot reach or squat the host's (pol_abstract_inside) */
	POL_F_OWN_PIDNS = 4u,        /* the run's /proc is the procfs of a pid namespace of its own:
				      * every /proc/<pid> in it is one of the run's processes (pol_own_pidns) */
};
enum pol_rule_flags {
	POL_RF_SUBTREE = 1u,  /* literal rule: the path and everything below */
	POL_RF_EXACT = 2u,    /* literal rule: that one path only (listing "/", the command file) */
};
/* Writer-only bit for pol_writer_rule's `access`: store a literal path as POL_RF_EXACT. */
#define POL_W_EXACT 0x100u

struct pol_hdr {
	uint32_t magic, version, total_size, flags;
	uint32_t net_mode;
	uint32_t name, workspace, home;          /* string offsets */
	uint32_t rule_off, nrules;
	uint32_t bucket_off, nbuckets;           /* nbuckets: power of two */
	uint32_t float_off, nfloat;
	uint32_t dir_off, ndirs;
	uint32_t mask_off, nmasks;
	uint32_t net_off, nnet;
	uint32_t str_off, str_len;
	uint32_t reserved[2];
	uint64_t stage_dev, stage_ino;           /* sbxsup's own binary (0, 0: none): the preload is
						  * passive only in a "__stage" process running it */
};

struct pol_rule_rec {
	uint8_t kind;        /* enum pol_rule_kind */
	uint8_t access;      /* enum pol_access bits (grants) */
	uint8_t flags;       /* enum pol_rule_flags */
	uint8_t pad;
	uint32_t glob;       /* string: absolute expanded glob (NET rules: the host as written) */
	uint32_t prefix_len; /* literal prefix = glob[0..prefix_len) ; 0 = floating */
	uint32_t text;       /* string: "deny[0]: ~/.ssh/ **" */
	uint32_t next;       /* next rule in the same hash bucket, > this index, or POL_NONE */
	uint32_t hash;       /* pol_prefix_hash(literal prefix) */
};

struct pol_dir_rec {
	uint32_t path;       /* string */
	uint32_t access;
	uint32_t rule;
	uint32_t pad;
};

struct pol_net_rec {
	uint32_t family;     /* AF_INET, AF_INET6, 0 (unresolved name) */
	uint8_t addr[16];
	uint8_t prefix;
	uint8_t is_name;
	uint16_t port;
	uint32_t name;       /* string or POL_NONE */
	uint32_t rule;
};

/* FNV-1a over the prefix bytes. */
uint32_t pol_prefix_hash(const char *s, size_t n);

#endif
