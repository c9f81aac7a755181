/* policy_write.h — the writer that lays out a compiled policy blob (layout: policy_format.h).
 * Used by the manifest's compiler (supervisor/manifest/policy_build.c, deny_expand.c) and tests;
 * private to sbxsup (the preload only reads blobs: policy.h).
 *
 * Promise: see each call; the writer owns every string it was given a copy of, and the blob it
 * returns is the caller's to free.
 */
#ifndef SBX_POLICY_WRITE_H
#define SBX_POLICY_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "policy_format.h"

/* ---- writer (policy_write.c) ------------------------------------------------------------------
 * Accumulates rules, then lays out one blob. Every call returns 0 or -1; after the first failure
 * the writer is poisoned and pol_writer_finish() reports the first error message. */
struct pol_writer;

struct pol_writer *pol_writer_new(void);
void pol_writer_free(struct pol_writer *w);
int pol_writer_meta(struct pol_writer *w, const char *name, const char *workspace,
		    const char *home, bool code_exec, enum pol_net_mode mode);
/* The identity (st_dev, st_ino) of sbxsup's binary, whose "__stage" runs behind the preload. */
void pol_writer_stage(struct pol_writer *w, uint64_t dev, uint64_t ino);
/* After pol_writer_meta: mark the policy POL_F_ABSTRACT_INSIDE. */
void pol_writer_abstract_inside(struct pol_writer *w, bool on);
/* After pol_writer_meta: mark the policy POL_F_OWN_PIDNS. */
void pol_writer_own_pidns(struct pol_writer *w, bool on);
/* Adds a path rule. `glob` is absolute (a leading "**" component makes it floating); a glob
 * without magic characters is a subtree rule. Returns the rule index in *idx (may be NULL). */
int pol_writer_rule(struct pol_writer *w, enum pol_rule_kind kind, unsigned access,
		    const char *glob, const char *text, uint32_t *idx);
/* Adds a NET rule (text only, referenced by net entries). */
int pol_writer_net_rule(struct pol_writer *w, const char *host, const char *text, uint32_t *idx);
/* Directory entry; an existing entry with the same path gets its access OR-ed. */
int pol_writer_dir(struct pol_writer *w, const char *path, unsigned access, uint32_t rule);
int pol_writer_mask(struct pol_writer *w, const char *path, uint32_t rule);
/* The i-th directory entry so far (path valid until the next writer call): 0, or -1 past the end. */
int pol_writer_dir_at(const struct pol_writer *w, size_t i, const char **path, unsigned *access);
/* Net entry (n->rule must come from pol_writer_net_rule). */
int pol_writer_net(struct pol_writer *w, const struct pol_net *n);
/* Lays out the blob (malloc'd, 8-byte aligned, passes pol_open). */
int pol_writer_finish(struct pol_writer *w, void **blob, size_t *len, char *err, size_t errlen);
/* The first error, or NULL. */
const char *pol_writer_error(const struct pol_writer *w);

#endif
