/* pidname.c — see pidname.h. */
#include "pidname.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>

bool sbx_pid_gone(long pid)
{
	return pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

long sbx_name_pid(const char *name, const char *prefix, const char **rest)
{
	size_t pl = strlen(prefix);
	if (strncmp(name, prefix, pl) != 0)
		return 0;
	const char *s = name + pl;
	long v = 0;
	if (*s < '1' || *s > '9')
		return 0;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((v = v * 10 + (*s - '0')) > 1L << 30)
			return 0;
	*rest = s;
	return v;
}
