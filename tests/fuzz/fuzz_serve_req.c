/* fuzz_serve_req.c — libFuzzer target: the `sbxsup serve` request parser (serve_proto.h). The
 * first input byte is the number of descriptors that "arrived" (0..15), the rest the request.
 * serve_req_parse must never crash or read outside the message; when it accepts, every string it
 * returns lies inside the message and is NUL-terminated there, argv/envp are NULL-terminated at
 * their counts, exactly one target is the working directory and the others are in range and
 * distinct; re-encoding what it accepted gives back the same message. Replies round-trip too. */
#include <stdio.h>

#include "fuzz_common.h"
#include "serve_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(const char *s, const char *b, size_t n)
{
	if (s < b || s >= b + n || !memchr(s, 0, (size_t)(b + n - s)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned nfds = data[0] & 15;
	size_t n = size - 1;
	char *b = malloc(n ? n : 1); /* exact size: ASan catches any read past the message */
	struct serve_req *rq = malloc(sizeof *rq);
	if (!b || !rq)
		abort();
	memcpy(b, data + 1, n);
	char why[256];
	if (serve_req_parse(b, n, nfds, rq, why, sizeof why) == 0) {
		if (rq->nfds != nfds || rq->argv[rq->argc] || rq->envp[rq->envc])
			abort();
		for (uint32_t i = 0; i < rq->argc; i++)
			inside(rq->argv[i], b, n);
		for (uint32_t i = 0; i < rq->envc; i++)
			inside(rq->envp[i], b, n);
		int cwd = 0;
		for (uint32_t i = 0; i < rq->nfds; i++) {
			cwd += rq->target[i] == -1;
			if (rq->target[i] < -1 || rq->target[i] > SBX_SERVE_FD_TARGET_MAX)
				abort();
			for (uint32_t j = 0; j < i; j++)
				if (rq->target[i] >= 0 && rq->target[i] == rq->target[j])
					abort();
		}
		if (cwd != 1 || rq->target[rq->cwd_index] != -1)
			abort();
		char *again = malloc(SBX_SERVE_REQ_MAX);
		if (!again)
			abort();
		long m = serve_req_encode(again, SBX_SERVE_REQ_MAX, (char *const *)rq->argv, (char *const *)rq->envp,
					  rq->target, rq->nfds);
		if (m != (long)n || memcmp(again, b, n))
			abort();
		free(again);
	}
	/* the reply parser on the same bytes, and a reply round trip */
	int ex;
	const char *rec;
	size_t rl;
	if (serve_rep_parse(b, n, &ex, &rec, &rl, why, sizeof why) == 0 &&
	    (ex < 0 || ex > 255 || rl != n - SBX_SERVE_REP_HDR_LEN))
		abort();
	char rep[256];
	long k = serve_rep_encode(rep, sizeof rep, data[0], (const char *)data, size < 64 ? size : 64);
	if (k < 0 || serve_rep_parse(rep, (size_t)k, &ex, &rec, &rl, why, sizeof why) != 0 || ex != data[0] ||
	    rl != (size < 64 ? size : 64) || memcmp(rec, data, rl))
		abort();
	free(rq);
	free(b);
	return 0;
}
