/* smallfile.c — see smallfile.h. */
#include "smallfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t sbx_read_small(const char *path, char *buf, size_t len)
{
	if (!len) {
		errno = EINVAL;
		return -1;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	int e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return -1;
	}
	buf[n] = 0;
	return n;
}

int sbx_read_long(const char *path, long *out)
{
	char buf[32], *end;
	ssize_t n = sbx_read_small(path, buf, sizeof buf);
	if (n < 0)
		return -1;
	errno = 0;
	long v = strtol(buf, &end, 10);
	if (end == buf || errno || (*end && *end != '\n')) {
		errno = EINVAL;
		return -1;
	}
	*out = v;
	return 0;
}

int sbx_write_small(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = strlen(s);
	ssize_t n = write(fd, s, len);
	int e = errno;
	close(fd);
	if (n == (ssize_t)len)
		return 0;
	errno = n < 0 ? e : EIO;
	return -1;
}
