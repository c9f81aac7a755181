/* serve_proto.c — see serve_proto.h. */
#include "serve_proto.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int bad(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *why, size_t whylen, const char *fmt, ...)
{
	if (why && whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* The next NUL-terminated string at *off inside [b, b+len): its start, *off past its NUL; NULL
 * when it runs past the end. */
static const char *next_str(const unsigned char *b, size_t len, size_t *off)
{
	if (*off >= len)
		return NULL;
	const unsigned char *nul = memchr(b + *off, 0, len - *off);
	if (!nul)
		return NULL;
	const char *s = (const char *)b + *off;
	*off = (size_t)(nul - b) + 1;
	return s;
}

int serve_req_parse(const void *buf, size_t len, unsigned nfds_got, struct serve_req *out,
		    char *why, size_t whylen)
{
	const unsigned char *b = buf;
	memset(out, 0, offsetof(struct serve_req, argv));
	out->argv[0] = out->envp[0] = NULL;
	if (!b || len < SBX_SERVE_HDR_LEN)
		return bad(why, whylen, "request shorter than its header (%zu bytes)", len);
	if (len > SBX_SERVE_REQ_MAX)
		return bad(why, whylen, "request longer than %u bytes", SBX_SERVE_REQ_MAX);
	if (memcmp(b, "SBXQ", 4))
		return bad(why, whylen, "not an sbxsup serve request (bad magic)");
	uint32_t ver = get_u32(b + 4), flags = get_u32(b + 8);
	if (ver != SBX_SERVE_VERSION)
		return bad(why, whylen, "protocol version %u, this server speaks %u", ver, SBX_SERVE_VERSION);
	if (flags)
		return bad(why, whylen, "unknown request flags 0x%x", flags);
	out->argc = get_u32(b + 12);
	out->envc = get_u32(b + 16);
	out->nfds = get_u32(b + 20);
	if (out->argc < 2 || out->argc > SBX_SERVE_MAX_ARGS)
		return bad(why, whylen, "argc %u out of range 2..%u", out->argc, SBX_SERVE_MAX_ARGS);
	if (out->envc > SBX_SERVE_MAX_ENV)
		return bad(why, whylen, "envc %u above %u", out->envc, SBX_SERVE_MAX_ENV);
	if (out->nfds < 1 || out->nfds > SBX_SERVE_MAX_FDS)
		return bad(why, whylen, "nfds %u out of range 1..%u", out->nfds, SBX_SERVE_MAX_FDS);
	if (out->nfds != nfds_got)
		return bad(why, whylen, "the request names %u descriptors, %u arrived", out->nfds, nfds_got);
	size_t off = SBX_SERVE_HDR_LEN;
	if (len - off < (size_t)out->nfds * 4)
		return bad(why, whylen, "descriptor table runs past the request");
	bool seen[SBX_SERVE_FD_TARGET_MAX + 1] = {false}, cwd = false;
	for (uint32_t i = 0; i < out->nfds; i++, off += 4) {
		int32_t t;
		memcpy(&t, b + off, sizeof t);
		if (t == -1) {
			if (cwd)
				return bad(why, whylen, "two working directories");
			cwd = true;
			out->cwd_index = i;
		} else if (t < 0 || t > SBX_SERVE_FD_TARGET_MAX) {
			return bad(why, whylen, "descriptor target %d out of range 0..%d", t, SBX_SERVE_FD_TARGET_MAX);
		} else if (seen[t]) {
			return bad(why, whylen, "descriptor target %d given twice", t);
		} else {
			seen[t] = true;
		}
		out->target[i] = t;
	}
	if (!cwd)
		return bad(why, whylen, "no working directory descriptor");
	for (uint32_t i = 0; i < out->argc; i++)
		if (!(out->argv[i] = next_str(b, len, &off)))
			return bad(why, whylen, "argument %u runs past the request", i);
	out->argv[out->argc] = NULL;
	if (strcmp(out->argv[0], "run"))
		return bad(why, whylen, "argv[0] is not \"run\"");
	for (uint32_t i = 0; i < out->envc; i++) {
		const char *e = next_str(b, len, &off);
		if (!e)
			return bad(why, whylen, "environment entry %u runs past the request", i);
		if (e[0] == '=' || !strchr(e, '='))
			return bad(why, whylen, "environment entry %u is not NAME=value", i);
		out->envp[i] = e;
	}
	out->envp[out->envc] = NULL;
	if (off != len)
		return bad(why, whylen, "%zu bytes after the last string", len - off);
	return 0;
}

static bool put(char *out, size_t cap, size_t *off, const void *p, size_t n)
{
	if (n > cap - *off)
		return false;
	memcpy(out + *off, p, n);
	*off += n;
	return true;
}

long serve_req_encode(char *out, size_t cap, char *const *argv, char *const *envp,
		      const int32_t *target, unsigned nfds)
{
	uint32_t argc = 0, envc = 0, ver = SBX_SERVE_VERSION, flags = 0, nf = nfds;
	while (argv && argv[argc])
		argc++;
	while (envp && envp[envc])
		envc++;
	if (cap > SBX_SERVE_REQ_MAX)
		cap = SBX_SERVE_REQ_MAX;
	size_t off = 0;
	bool ok = argc <= SBX_SERVE_MAX_ARGS && envc <= SBX_SERVE_MAX_ENV && nfds <= SBX_SERVE_MAX_FDS &&
		  put(out, cap, &off, "SBXQ", 4) && put(out, cap, &off, &ver, 4) &&
		  put(out, cap, &off, &flags, 4) && put(out, cap, &off, &argc, 4) &&
		  put(out, cap, &off, &envc, 4) && put(out, cap, &off, &nf, 4) &&
		  put(out, cap, &off, target, (size_t)nfds * 4);
	for (uint32_t i = 0; ok && i < argc; i++)
		ok = put(out, cap, &off, argv[i], strlen(argv[i]) + 1);
	for (uint32_t i = 0; ok && i < envc; i++)
		ok = put(out, cap, &off, envp[i], strlen(envp[i]) + 1);
	if (!ok) {
		errno = E2BIG;
		return -1;
	}
	return (long)off;
}

long serve_rep_encode(char *out, size_t cap, int exit_status, const char *record, size_t reclen)
{
	uint32_t ver = SBX_SERVE_VERSION, rl = (uint32_t)reclen;
	int32_t ex = exit_status;
	size_t off = 0;
	if (cap > SBX_SERVE_REP_MAX)
		cap = SBX_SERVE_REP_MAX;
	if (reclen > SBX_SERVE_REP_MAX || !put(out, cap, &off, "SBXR", 4) || !put(out, cap, &off, &ver, 4) ||
	    !put(out, cap, &off, &ex, 4) || !put(out, cap, &off, &rl, 4) || !put(out, cap, &off, record, reclen)) {
		errno = E2BIG;
		return -1;
	}
	return (long)off;
}

int serve_rep_parse(const void *buf, size_t len, int *exit_status, const char **record, size_t *reclen,
		    char *why, size_t whylen)
{
	const unsigned char *b = buf;
	if (!b || len < SBX_SERVE_REP_HDR_LEN || memcmp(b, "SBXR", 4))
		return bad(why, whylen, "not an sbxsup serve reply");
	if (get_u32(b + 4) != SBX_SERVE_VERSION)
		return bad(why, whylen, "reply of protocol version %u, this client speaks %u", get_u32(b + 4),
			   SBX_SERVE_VERSION);
	int32_t ex;
	memcpy(&ex, b + 8, sizeof ex);
	uint32_t rl = get_u32(b + 12);
	if (rl != len - SBX_SERVE_REP_HDR_LEN)
		return bad(why, whylen, "reply record length %u does not match the message", rl);
	if (ex < 0 || ex > 255)
		return bad(why, whylen, "reply exit status %d out of range", ex);
	*exit_status = ex;
	*record = (const char *)b + SBX_SERVE_REP_HDR_LEN;
	*reclen = rl;
	return 0;
}
