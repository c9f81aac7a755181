/* serve_client.h — the client side of `sbxsup serve` (`sbxsup run --server PATH`,
 * the bench client).
 *
 * Promise: serve_call() connects to the server at `sock`, sends one request (serve_proto.h) with
 * the caller's working directory (an O_PATH descriptor of ".") and the descriptors fds[i] to take
 * the numbers target[i] in the run, waits for the reply and returns the run's exit status with the
 * result record (*record, malloc'd, NUL-terminated, may be empty; the caller frees it). Returns -1
 * with a one-line `why` when the server could not be reached or answered nothing readable (the
 * run's own refusals are replies: exit 125 and a record with a reason). Nothing is kept between
 * calls; the caller's descriptors stay the caller's.
 */
#ifndef SBX_SERVE_CLIENT_H
#define SBX_SERVE_CLIENT_H

#include <stddef.h>
#include <stdint.h>

int serve_call(const char *sock, char *const *argv, char *const *envp, const int *fds,
	       const int32_t *target, unsigned nfds, char **record, size_t *reclen, char *why, size_t whylen);

#endif
