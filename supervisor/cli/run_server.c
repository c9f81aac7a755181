/* run_server.c — `sbxsup run --server PATH`: the call sent to `sbxsup serve` (serve/serve_client.h).
 *
 * Promise: run_via_server() passes its stdio, the descriptors its own -a fd:N / --result N name,
 * its working directory and environment, and returns the run's exit status; when the server cannot
 * be reached it says why and exits 125 (the --result record says server_unavailable); when the
 * server refused the call before running it, it writes the refusal record to --result itself.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "result.h"
#include "serve_client.h"

extern char **environ;

/* The descriptor number DEST names ("N" for --result, "fd:N" for -a), or -1. */
static int named_fd(const char *dest, bool audit)
{
	if (!dest)
		return -1;
	if (audit) {
		if (strncmp(dest, "fd:", 3))
			return -1;
		dest += 3;
	}
	if (!*dest || strspn(dest, "0123456789") != strlen(dest) || strlen(dest) > 4)
		return -1;
	int n = atoi(dest);
	return n <= 1023 ? n : -1;
}

int run_via_server(int argc, char **argv, const struct run_opts *o)
{
	int fds[8];
	int32_t tg[8];
	unsigned nf = 0;
	char **av = calloc((size_t)argc + 1, sizeof *av);
	if (!av) {
		sbx_msg("out of memory");
		return SBX_EXIT_INTERNAL;
	}
	for (int i = 0; i < argc; i++)
		av[i] = argv[i];
	int named[2] = {named_fd(o->audit, true), named_fd(o->result, false)};
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			fds[nf] = fd, tg[nf++] = fd;
	for (int k = 0; k < 2; k++) {
		bool dup = false;
		for (unsigned i = 0; i < nf; i++)
			dup = dup || tg[i] == named[k];
		if (named[k] >= 0 && !dup && fcntl(named[k], F_GETFD) >= 0)
			fds[nf] = named[k], tg[nf++] = named[k];
	}
	char *rec = NULL, why[400];
	size_t rl = 0;
	int code = serve_call(o->server, av, environ, fds, tg, nf, &rec, &rl, why, sizeof why);
	free(av);
	/* the server refused the call before running it: it could not write --result, we do */
	cJSON *r = code >= 0 && rec ? cJSON_Parse(rec) : NULL;
	const cJSON *rc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "reason"), "code");
	bool refused = cJSON_IsString(rc) && !strcmp(rc->valuestring, SBX_REASON_SERVER_REFUSED);
	if (refused) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "reason"), "message");
		sbx_msg("run: --server: the server refused the call: %s", cJSON_IsString(m) ? m->valuestring : "(no reason)");
		int rfd = -1;
		char err[300];
		if (o->result && result_open(o->result, &rfd, err, sizeof err) == 0) {
			(void)result_write(rfd, r);
			result_close(&rfd);
		}
	}
	cJSON_Delete(r);
	free(rec);
	if (code >= 0)
		return code;
	sbx_msg("run: --server: %s", why);
	int rfd = -1;
	char err[300];
	if (o->result && result_open(o->result, &rfd, err, sizeof err) == 0) {
		struct result_in in = {.tag = o->tag, .exit = SBX_EXIT_INTERNAL,
				       .reason_code = SBX_REASON_SERVER_UNAVAILABLE, .reason_msg = why};
		cJSON *u = result_build(&in);
		if (u)
			(void)result_write(rfd, u);
		cJSON_Delete(u);
		result_close(&rfd);
	}
	return SBX_EXIT_INTERNAL;
}
