/* result.c — see result.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dest_guard.h"
#include "quote.h"
#include "result.h"
#include "severity.h"

int result_open(const char *dest, int *fd, char *err, size_t errlen)
{
	*fd = -1;
	if (!dest || !*dest) {
		snprintf(err, errlen, "--result needs a descriptor number or a file");
		return -1;
	}
	if (strspn(dest, "0123456789") == strlen(dest)) {
		char *end;
		errno = 0;
		long n = strtol(dest, &end, 10);
		if (errno || n < 0 || n > 65535) {
			snprintf(err, errlen, "--result %s: not a descriptor number", dest);
			return -1;
		}
		int fl = fcntl((int)n, F_GETFL);
		if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
			snprintf(err, errlen, "--result %s: descriptor %ld is not open for writing", dest, n);
			return -1;
		}
		/* A CLOEXEC duplicate; the original (above 2) is made CLOEXEC in the child like every
		 * inherited descriptor, so neither reaches the executor. 0-2 stay the executor's stdio. */
		*fd = fcntl((int)n, F_DUPFD_CLOEXEC, 3);
		if (*fd < 0) {
			snprintf(err, errlen, "--result %s: %s", dest, strerror(errno));
			return -1;
		}
		return 0;
	}
	/* the audit destination's rules (dest_guard.h): never a symlink, never a wait on a FIFO or a
	 * device, a regular file of ours; emptied only once it is known to be one */
	struct stat st;
	char why[256], q[SBX_Q_MAX];
	*fd = dest_open(dest, 0, &st, why, sizeof why);
	if (*fd < 0) {
		snprintf(err, errlen, "--result %s: %s", sbx_q(dest, q, sizeof q), why);
		return -1;
	}
	if (ftruncate(*fd, 0) < 0) {
		snprintf(err, errlen, "--result %s: %s", sbx_q(dest, q, sizeof q), strerror(errno));
		result_close(fd);
		return -1;
	}
	return 0;
}

bool result_named(int fd)
{
	struct stat st;
	return fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 0;
}

int result_check(const char *dest, int fd, const struct policy *pol, bool private_tmp, char *err, size_t errlen)
{
	char why[PATH_MAX + 300], q[SBX_Q_MAX];
	if (!dest || !pol)
		return 0;
	bool number = strspn(dest, "0123456789") == strlen(dest);
	if (!number && dest_refuse_writable(pol, dest, private_tmp, "the result record", why, sizeof why) < 0) {
		snprintf(err, errlen, "--result %s: %s", sbx_q(dest, q, sizeof q), why);
		return -1;
	}
	/* the file the descriptor names (a descriptor number, or the FILE through a directory symlink) */
	char link[64], path[PATH_MAX];
	ssize_t k;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if (result_named(fd) && (k = readlink(link, path, sizeof path - 1)) > 0 && path[0] == '/') {
		path[k] = '\0';
		if (dest_refuse_writable(pol, path, private_tmp, "the result record", why, sizeof why) < 0) {
			snprintf(err, errlen, "--result %s: %s", sbx_q(dest, q, sizeof q), why);
			return -1;
		}
	}
	return 0;
}

static void add_str_or_null(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static const char *status_of(const struct result_in *in)
{
	if (in->reason_code)
		return "refused";
	if (in->timeout)
		return "timeout";
	return in->signal ? "signaled" : "exited";
}

static const char *verdict_of(const struct result_in *in)
{
	if (in->breaches)
		return "breach";
	for (int s = SBX_SEV_LOW; in->sev && s <= SBX_SEV_CRITICAL; s++)
		if (in->sev[s])
			return "contained";
	return "clean";
}

cJSON *result_build(const struct result_in *in)
{
	cJSON *o = cJSON_CreateObject(), *c;
	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "v", 1);
	add_str_or_null(o, "run", in->run);
	add_str_or_null(o, "tag", in->tag);
	add_str_or_null(o, "executor", in->executor);
	cJSON_AddStringToObject(o, "status", status_of(in));
	cJSON_AddNumberToObject(o, "exit", in->exit);
	if (in->signal)
		cJSON_AddNumberToObject(o, "signal", in->signal);
	else
		cJSON_AddNullToObject(o, "signal");
	cJSON_AddBoolToObject(o, "timeout", in->timeout);
	if (in->reason_code) {
		cJSON *r = cJSON_AddObjectToObject(o, "reason");
		cJSON_AddStringToObject(r, "code", in->reason_code);
		add_str_or_null(r, "message", in->reason_msg);
	} else {
		cJSON_AddNullToObject(o, "reason");
	}
	cJSON *lay = cJSON_AddObjectToObject(o, "layers"), *why = cJSON_AddObjectToObject(o, "why");
	for (int l = 0; in->L && l < SBX_L__N; l++) {
		cJSON_AddBoolToObject(lay, sbx_layer_name(l), sbx_layer_on(in->L, l));
		if (!sbx_layer_on(in->L, l) && in->L->why[l][0])
			cJSON_AddStringToObject(why, sbx_layer_name(l), in->L->why[l]);
	}
	cJSON_AddStringToObject(o, "verdict", verdict_of(in));
	c = cJSON_AddObjectToObject(o, "counts");
	for (int s = SBX_SEV_CRITICAL; s >= SBX_SEV_INFO; s--)
		cJSON_AddNumberToObject(c, sbx_sev_name(s), in->sev ? (double)in->sev[s] : 0);
	if (in->events)
		cJSON_AddItemToObject(o, "events", cJSON_Duplicate(in->events, 1));
	else
		cJSON_AddObjectToObject(o, "events");
	cJSON_AddNumberToObject(o, "lost", (double)in->lost);
	cJSON_AddNumberToObject(o, "duration_ms", (double)in->duration_ms);
	cJSON *au = cJSON_AddObjectToObject(o, "audit");
	add_str_or_null(au, "dest", in->audit_dest);
	add_str_or_null(au, "key", in->key);
	if (in->shadow) /* --shadow: the change set kept for `sbxsup shadow diff|commit|discard` */
		cJSON_AddItemToObject(o, "shadow", cJSON_Duplicate(in->shadow, 1));
	return o;
}

int result_write(int fd, const cJSON *rec)
{
	char *s = cJSON_PrintUnformatted(rec);
	if (!s) {
		errno = ENOMEM;
		return -1;
	}
	size_t n = strlen(s);
	char *line = realloc(s, n + 2);
	if (!line) {
		free(s);
		errno = ENOMEM;
		return -1;
	}
	line[n] = '\n';
	line[n + 1] = 0;
	ssize_t w;
	do
		w = write(fd, line, n + 1);
	while (w < 0 && errno == EINTR);
	int saved = errno;
	free(line);
	errno = saved;
	return w == (ssize_t)(n + 1) ? 0 : -1;
}

void result_close(int *fd)
{
	if (*fd >= 0)
		(void)close(*fd);
	*fd = -1;
}
