/* serve_client.c — see serve_client.h. */
#include "serve_client.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fdpass.h"
#include "serve_proto.h"

static int send_req(int s, const char *buf, size_t len, const int *fds, unsigned nfds)
{
	return sbx_send_fds(s, buf, len, fds, (int)nfds) == (ssize_t)len ? 0 : -1;
}

int serve_call(const char *sock, char *const *argv, char *const *envp, const int *fds,
	       const int32_t *target, unsigned nfds, char **record, size_t *reclen, char *why, size_t whylen)
{
	*record = NULL;
	*reclen = 0;
	int allfd[SBX_SERVE_MAX_FDS];
	int32_t alltg[SBX_SERVE_MAX_FDS];
	if (nfds + 1 > SBX_SERVE_MAX_FDS) {
		snprintf(why, whylen, "more than %u descriptors to pass", SBX_SERVE_MAX_FDS - 1);
		return -1;
	}
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (!sock || strlen(sock) >= sizeof a.sun_path) {
		snprintf(why, whylen, "server socket path empty or longer than %zu bytes", sizeof a.sun_path - 1);
		return -1;
	}
	snprintf(a.sun_path, sizeof a.sun_path, "%s", sock);
	int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0) {
		snprintf(why, whylen, "cannot open the working directory: %s", strerror(errno));
		return -1;
	}
	allfd[0] = cwd;
	alltg[0] = -1;
	for (unsigned i = 0; i < nfds; i++) {
		allfd[i + 1] = fds[i];
		alltg[i + 1] = target[i];
	}
	char *buf = malloc(SBX_SERVE_REQ_MAX > SBX_SERVE_REP_MAX ? SBX_SERVE_REQ_MAX : SBX_SERVE_REP_MAX);
	int s = -1, rc = -1;
	if (!buf) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	long len = serve_req_encode(buf, SBX_SERVE_REQ_MAX, argv, envp, alltg, nfds + 1);
	if (len < 0) {
		snprintf(why, whylen, "the call (arguments + environment) is larger than %u bytes", SBX_SERVE_REQ_MAX);
		goto out;
	}
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
		snprintf(why, whylen, "cannot connect to the server at %s: %s", sock, strerror(errno));
		goto out;
	}
	/* a server that refuses the peer replies and closes at once: the send may then fail (EPIPE)
	 * while its reply is still queued for us, so the reply is read either way */
	int sent = send_req(s, buf, (size_t)len, allfd, nfds + 1), send_errno = errno;
	ssize_t n;
	do
		n = recv(s, buf, SBX_SERVE_REP_MAX, 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0 && sent < 0) {
		snprintf(why, whylen, "cannot send the call to %s: %s", sock, strerror(send_errno));
		goto out;
	}
	if (n <= 0) {
		snprintf(why, whylen, "the server at %s closed the call without a reply%s%s", sock,
			 n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
		goto out;
	}
	int code;
	const char *rec;
	size_t rl;
	if (serve_rep_parse(buf, (size_t)n, &code, &rec, &rl, why, whylen) < 0)
		goto out;
	*record = malloc(rl + 1);
	if (!*record) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	memcpy(*record, rec, rl);
	(*record)[rl] = 0;
	*reclen = rl;
	rc = code;
out:
	if (s >= 0)
		close(s);
	close(cwd);
	free(buf);
	return rc;
}
