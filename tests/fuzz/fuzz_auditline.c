/* fuzz_auditline.c — libFuzzer target: the audit-line helpers a verifier runs on untrusted files
 * (audit_split_hash + audit_sha256_hex: the prefix length must stay within the line and the hash
 * must be 64 hex digits) and the preload->supervisor record decoder (sbx_rec_decode: every byte
 * from inside the sandbox is hostile; a decoded record must be NUL-terminated and in range). */
#include <ctype.h>
#include <stdio.h>

#include "audit.h"
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
