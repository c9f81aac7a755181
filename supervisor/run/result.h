/* result.h — the result record of `sbxsup run --result FD|FILE` (docs/result-record.md).
 *
 * Promise: result_open() resolves the destination before anything runs (a descriptor number that is
 * open for writing, or a file opened by the audit destination's rules, dest_guard.h: 0600, never
 * through a symlink, never waiting on a FIFO or device, a regular file of the invoking uid only,
 * emptied once it is known to be one), so a bad destination is a refusal, never a run whose result
 * is lost; the descriptor is close-on-exec and never reaches the executor. result_check() refuses,
 * once the policy is known, a destination the executor could replace (sbxsup writes the record
 * once, at the end: a destination outside everything the executor can write cannot be raced). result_build() makes the one JSON object from what the run knows at its end (or at its
 * refusal); result_write() writes it with one write(2) and a newline. The caller owns the fd (it
 * is closed by result_close()) and the cJSON object result_build() returns.
 */
#ifndef SBX_RESULT_H
#define SBX_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "layer_set.h"
#include "policy.h"

/* Machine-readable reasons a run was refused or failed (docs/result-record.md). */
#define SBX_REASON_BAD_ARGUMENTS      "bad_arguments"
#define SBX_REASON_BAD_MANIFEST       "bad_manifest"
#define SBX_REASON_LAYER_REQUIRED     "layer_required"
#define SBX_REASON_AUDIT_UNWRITABLE   "audit_unwritable"
#define SBX_REASON_AUDIT_DESTINATION  "audit_destination"
#define SBX_REASON_RESULT_DESTINATION "result_destination"
#define SBX_REASON_NOT_FOUND          "command_not_found"
#define SBX_REASON_NOT_EXECUTABLE     "command_not_executable"
#define SBX_REASON_NOT_VISIBLE        "command_not_visible"
#define SBX_REASON_SETUP_FAILED       "setup_failed"
#define SBX_REASON_SHADOW_UNAVAILABLE "shadow_unavailable"
/* "preload_unavailable": found, but the executor cannot load it (the preload entry's refuse_lost,
 * layer.h: a layer the stage turned off gives its own code) */
#define SBX_REASON_IDENTITY           "identity_unavailable" /* the executor would keep uid 0 */
#define SBX_REASON_GATEWAY            "gateway_unavailable" /* the run's network gateway could not start */
#define SBX_REASON_INTERNAL           "internal"
/* sbxsup serve / run --server (docs/serve.md) */
#define SBX_REASON_SERVER_REFUSED     "server_refused"     /* peer uid, busy, malformed request */
#define SBX_REASON_SERVER_UNAVAILABLE "server_unavailable" /* the client could not reach the server */

struct result_in {
	const char *run;             /* run id, NULL when none was made */
	const char *tag;             /* --tag, NULL when none */
	const char *executor;        /* manifest name, NULL when unknown */
	int exit;                    /* sbxsup's exit status */
	int signal;                  /* the signal that killed the executor, 0 when none */
	bool timeout;
	const char *reason_code;     /* SBX_REASON_*, NULL when sbxsup did not refuse or fail */
	const char *reason_msg;      /* one line, NULL when none */
	const struct sbx_layers *L;  /* NULL when the layers were never decided */
	const cJSON *events;         /* {event: count} (audit_counts), NULL when none; not taken */
	const uint64_t *sev;         /* counts by enum sbx_sev (6 entries), NULL when none */
	uint64_t breaches;           /* kernel.violation events with outcome breach */
	uint64_t lost;
	long duration_ms;
	const char *audit_dest;      /* NULL when no stream */
	const char *key;             /* key id of the stream's MACs, NULL when none */
	const cJSON *shadow;         /* --shadow: {run, store, mechanism, hash, count, bytes}, NULL; not taken */
};

/* Resolve DEST ("N" = an open fd, else a path). Returns 0 (*fd set, CLOEXEC) or -1 (err set). */
int result_open(const char *dest, int *fd, char *err, size_t errlen);
/* Once the run's policy is known (before anything runs): 0, or -1 (err set; the run is refused with
 * SBX_REASON_RESULT_DESTINATION) when the executor could write the FILE (dest_guard.h: the file,
 * its directory or an ancestor), or the named regular file the opened descriptor fd is. pol NULL
 * (SBXSUP_SANDBOX=0): nothing is confined, nothing is checked. */
int result_check(const char *dest, int fd, const struct policy *pol, bool private_tmp, char *err, size_t errlen);
/* fd is a regular file with a name (one the executor could rename something over). */
bool result_named(int fd);
cJSON *result_build(const struct result_in *in);
/* Write rec + "\n" with one write(2). Returns 0 or -1 (errno set). Does not free rec. */
int result_write(int fd, const cJSON *rec);
void result_close(int *fd);

#endif
