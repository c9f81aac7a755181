/* learn.h — from what a run tried to the smallest manifest that would have let it (`sbxsup learn`).
 *
 * Promise: learn_note() reads one audit event (as `sbxsup run` wrote it) and, when it is a denial a
 * manifest could lift, turns it into a proposed grant — fs:read / fs:write of the object, a network
 * host, code:exec — remembered with the events that asked for it (the evidence). learn_apply() adds
 * the proposals to a manifest (cJSON, the caller's) only after asking the compiled policy — the one
 * policy engine every layer asks — whether the manifest with that grant would allow the access: a
 * grant that cannot win (a secret, a manifest `deny`, a hard built-in rule) is never proposed and is
 * kept as a refusal with its rule instead. Paths inside the throw-away workspace copy a round ran in
 * are proposed relative to the workspace ("./out"). A path that does not exist on the host is not
 * proposed (the program saw ENOENT, as it would natively); nor is a file to be created in a
 * directory that does not exist.
 * Only what was seen, literally: a name from the executor goes into the manifest escaped
 * (pol_glob_escape: `*`, `?` and `\` match only themselves), so a file named "**" is never "**";
 * a grant is the object itself — the file, or for a file to be created its directory — never more.
 * A write of "/", of a never-writable path, or under /boot, /var/lib, /root, /lib* or another
 * user's home (syspaths.h: learn_write_refused) is listed as refused, never proposed.
 * The network gateway's refusals: `net.deny` of a name not granted proposes that name and port as the
 * client sent it (never a wildcard), one to an address proposes the address and port; `dns.deny`
 * proposes the name for resolution only (network:dns: no connection, no port).
 * learn_check() validates the final manifest as `sbxsup validate` does and records, for each
 * proposed grant, what `explain` says of its object under that manifest.
 * Ownership: struct learn owns its proposals; learn_free() releases them. No I/O but lstat(2).
 */
#ifndef SBX_LEARN_H
#define SBX_LEARN_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "manifest.h"

enum learn_kind { LEARN_READ, LEARN_WRITE, LEARN_EXEC, LEARN_HOST, LEARN_DNS };

struct learn_item {
	enum learn_kind kind;
	char *object;        /* the hint as the manifest gets it ("./out", "/etc/foo", "./a\\*b": escaped)
			      * or host ("127.0.0.1:8080"); NULL for code:exec */
	char *path;          /* the literal path the hint stands for ("./a*b"); NULL for hosts, code:exec */
	char *explain;       /* learn_check: "write ALLOWED by capabilities[2].hint: ./out" */
	char *evidence;      /* the first event that asked: "open /etc/foo (pid 12 python3)" */
	unsigned count;      /* events that asked for it */
	bool applied;        /* in the proposed manifest */
	bool covered;        /* needed no grant of its own: an earlier proposal already allows it */
	char *refused;       /* why it is not proposed (the rule that would still deny), else NULL */
};

struct learn {
	struct learn_item *v;
	size_t n, cap;
	const char *copy;    /* the workspace copy the rounds run in (its paths map to "./...") */
	const char *real_ws; /* the real workspace (existence checks) */
	const char *home;    /* the invoking user's home (another user's home is refused for writes) */
};

/* Note one audit line. Returns 1 when it asked for something new, 0 when not, -1 on ENOMEM. */
int learn_note(struct learn *l, const cJSON *ev);
/* Add every pending proposal to `proposed` (a cJSON manifest object) — and, when it is safe to
 * exercise, to `next` (the manifest of the next round) — checking each with the policy compiled for
 * ctx. Returns how many grants were proposed, or -1 (err set). */
int learn_apply(struct learn *l, cJSON *proposed, cJSON *next, const struct mf_ctx *ctx, char *err,
		size_t errlen);
/* Validate `manifest` (parse + compile, as `sbxsup validate`) and set each applied item's explain.
 * 0, or -1 with err (the proposed manifest is invalid: nothing is to be written). */
int learn_check(struct learn *l, const cJSON *manifest, const struct mf_ctx *ctx, char *err, size_t errlen);
void learn_free(struct learn *l);
const char *learn_kind_name(enum learn_kind k);   /* "fs:read", "fs:write", "code:exec", "network:tcp" */

#endif
