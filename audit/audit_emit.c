/* audit_emit.c — what reaches the stream and how it ends (audit.h): audit_emit counts and ranks an
 * event, then hands it to flow control (audit_flow.c) or straight to the line writer
 * (audit_write_event, audit.c); audit_close flushes what flow control holds. The writer below
 * knows neither: flow control writes its summaries through it as well.
 */
#include "audit.h"
#include "audit_int.h"
#include "msg.h"
#include "severity.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void count_event(struct audit *a, const char *name, uint64_t weight)
{
	size_t i;
	for (i = 0; i < a->nkinds; i++)
		if (strncmp(a->kind[i], name, sizeof a->kind[i] - 1) == 0)
			break;
	if (i == a->nkinds) {
		if (a->nkinds == AUDIT_MAX_EVENT_KINDS) {
			/* table full: the last slot becomes "other" (never silently dropped) */
			i = AUDIT_MAX_EVENT_KINDS - 1;
			snprintf(a->kind[i], sizeof a->kind[i], "other");
		} else {
			snprintf(a->kind[i], sizeof a->kind[i], "%s", name);
			a->nkinds++;
		}
	}
	a->count[i] += weight;
}

void audit_close(struct audit *a)
{
	if (a->flow) {
		if (a->fd >= 0 && !a->failed)
			(void)audit_flow_flush(a);
		audit_flow_free(a->flow);
		a->flow = NULL;
	}
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	free(a->path);
	a->path = NULL;
	sodium_memzero(&a->key, sizeof a->key);
	sodium_memzero(&a->mac0, sizeof a->mac0);
	a->keyed = false;
}

int audit_set_flow(struct audit *a, long budget_mb)
{
	audit_flow_free(a->flow);
	a->flow = audit_flow_new(budget_mb);
	return a->flow ? 0 : -1;
}

void audit_set_urgent_cap(struct audit *a, uint64_t cap)
{
	if (a->flow)
		audit_flow_set_cap(a->flow, cap);
}

int audit_tick(struct audit *a)
{
	return a->flow && a->fd >= 0 && !a->failed ? audit_flow_tick(a) : 0;
}

int audit_poll_ms(const struct audit *a)
{
	return a->flow && a->fd >= 0 && !a->failed ? audit_flow_poll_ms(a) : -1;
}

/* run.end: does the path still name the file written to (audit_dest.h)? */
static void dest_end(struct audit *a, cJSON *run_end)
{
	if (!a->path)
		return;
	struct stat st;
	bool same = lstat(a->path, &st) == 0 && st.st_dev == a->dev && st.st_ino == a->ino;
	cJSON_AddBoolToObject(run_end, "audit_replaced", !same);
	if (!same)
		sbx_msg("warning: the audit file %s was replaced, removed or renamed during the "
			"run: this run's lines went to the original file, not to what the path names now",
			a->path);
}

int audit_emit(struct audit *a, cJSON *ev)
{
	if (!ev)
		return -1; /* the caller's event could not be built: treat as a failed write */
	if (a->failed) {
		cJSON_Delete(ev);
		return -1;
	}
	cJSON *evname = cJSON_GetObjectItemCaseSensitive(ev, "event");
	const char *name = cJSON_IsString(evname) ? evname->valuestring : "unknown";
	/* a sensor's summary (the probes' ring overflow) stands for `count` events */
	const cJSON *cnt = cJSON_GetObjectItemCaseSensitive(ev, "count");
	uint64_t weight = cJSON_IsNumber(cnt) && cnt->valuedouble >= 1 ? (uint64_t)cnt->valuedouble : 1;
	count_event(a, name, weight);
	bool is_end = strcmp(name, "run.end") == 0, is_start = strcmp(name, "run.start") == 0;
	enum sbx_sev sev = sbx_sev_classify(ev);
	if (sev != SBX_SEV_NONE) {
		/* a stamp the emitter set (a raced name: critical) raises the table's severity, as
		 * the readers do (audit_model.c with_stamp) */
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(ev, "sev");
		int stamped = cJSON_IsString(st) ? sbx_sev_parse(st->valuestring) : -1;
		if (stamped > (int)sev)
			sev = (enum sbx_sev)stamped;
		a->sev_count[sev] += weight;
		const cJSON *oc = cJSON_GetObjectItemCaseSensitive(ev, "outcome");
		if (cJSON_IsString(oc) && !strcmp(oc->valuestring, "breach"))
			a->breaches += weight;
		if (!cJSON_GetObjectItemCaseSensitive(ev, "sev") &&
		    !cJSON_AddStringToObject(ev, "sev", sbx_sev_name(sev))) {
			cJSON_Delete(ev);
			a->failed = true;
			return -1;
		}
	}
	if (a->fd < 0) { /* no stream: count and move on */
		a->seq++;
		cJSON_Delete(ev);
		return 0;
	}
	if (a->flow && sev != SBX_SEV_NONE)
		return audit_flow_security(a, ev, (int)sev);
	if (a->flow && (is_end ? audit_flow_end(a, ev) : audit_flow_flush(a)) < 0) {
		cJSON_Delete(ev);
		return -1;
	}
	if (is_end)
		dest_end(a, ev);
	if (is_start && a->keyed && !cJSON_GetObjectItemCaseSensitive(ev, "key") &&
	    !cJSON_AddStringToObject(ev, "key", a->key.id)) {
		cJSON_Delete(ev);
		a->failed = true;
		return -1;
	}
	return audit_write_event(a, ev, NULL);
}
