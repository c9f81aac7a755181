/* fuzz_auditline.c — libFuzzer target: the audit-line helpers a verifier runs on untrusted files
 * (audit_split_hash + audit_sha256_hex: the prefix length must stay within the line and the hash
 * must be 64 hex digits; audit_line_check strict and lax, audit_line_hash_ok, the jsonlite object
 * parser and string decoder, audit_parse_time, audit_printable) and the preload->supervisor
 * record decoder (sbx_rec_decode: every byte
 * from inside the sandbox is hostile; a decoded record must be NUL-terminated and in range). */
#include <ctype.h>
#include <stdio.h>

#include "audit.h"
#include "audit_read.h"
#include "jsonlite.h"
#include "fuzz_common.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* audit line: exact-size copy, no terminator */
	char *line = malloc(size ? size : 1);
	if (!line)
		abort();
	memcpy(line, data, size);
	size_t pl = 0;
	char hash[65] = {0};
	if (audit_split_hash(line, size, &pl, hash) == 0) {
		if (pl > size)
			abort();
		for (int i = 0; i < 64; i++)
			if (!isxdigit((unsigned char)hash[i]))
				abort();
		if (hash[64])
			abort();
		char mine[65];
		audit_sha256_hex(line, pl, mine);
		if (strlen(mine) != 64)
			abort();
	}
	/* the reader's line check (spans must stay inside the line) */
	struct audit_line *al = malloc(sizeof *al);
	if (!al)
		abort();
	char msg[256];
	for (int strict = 0; strict < 2; strict++) {
		if (audit_line_check(line, size, al, strict, msg, sizeof msg) == NULL) {
			const struct jl_span *sp[] = {&al->ts, &al->run, &al->executor, &al->event, &al->src,
						      &al->prev, &al->hash};
			for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++)
				if (sp[i]->p && (sp[i]->p < line || sp[i]->p + sp[i]->n > line + size))
					abort();
			char ev[64];
			(void)jl_str(&al->event, ev, sizeof ev);
			int64_t us;
			(void)audit_parse_time(al->ts.p, al->ts.n, &us);
		}
	}
	(void)audit_line_hash_ok(line, size);
	free(al);
	struct jl_obj *o = malloc(sizeof *o);
	if (!o)
		abort();
	const char *jerr = NULL;
	size_t joff = 0;
	if (jl_object(line, size, o, &jerr, &joff) == 0) {
		char out[128];
		for (size_t i = 0; i < o->n; i++) {
			(void)jl_str(&o->m[i].val, out, sizeof out);
			uint64_t u;
			int64_t x;
			(void)jl_u64(&o->m[i].val, &u);
			(void)jl_i64(&o->m[i].val, &x);
		}
		(void)jl_get(o, "hash");
	} else if (joff > size) {
		abort();
	}
	free(o);
	int64_t us;
	(void)audit_parse_time(line, size, &us);
	char *pr = fz_strndup(data, size);
	audit_printable(pr, size + 1);
	pr = audit_printable_take(pr);
	free(pr);
	free(line);

	/* preload record */
	struct sbx_rec *r = malloc(sizeof *r);
	if (!r)
		abort();
	if (sbx_rec_decode(data, size, r) == 0) {
		if (strnlen(r->subject, sizeof r->subject) == sizeof r->subject ||
		    strnlen(r->comm, sizeof r->comm) == sizeof r->comm)
			abort();
		if (r->h.type != SBX_REC_ACK && r->h.type != SBX_REC_DENY)
			abort();
		if (r->h.type == SBX_REC_DENY && !sbx_op_name(r->h.op))
			abort();
		(void)sbx_access_name(r->h.access);
		/* round trip */
		uint8_t buf[SBX_REC_MAX];
		size_t n = sbx_rec_encode(buf, &r->h, r->subject, r->comm);
		if (n > sizeof buf)
			abort();
	}
	free(r);
	return 0;
}
