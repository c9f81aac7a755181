/* preload_stage.c — the preload entry's stage op (layer.h `stage`): after the capability drop, can
 * the command load the library? Opened as the loader will open it (the first entry of the command's
 * LD_PRELOAD, else the first line of /etc/ld.so.preload), with the command's identity, mount tree
 * and Landlock domain: a readable regular ELF file on a mount that allows executing it. Status
 * "preload=on", else "preload=off" and "preload_why" naming the path, the uid/gid and the error.
 */
#include "layer.h"
#include "preload_layer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

extern char **environ;

/* The library the loader will preload for the command: the first entry of its LD_PRELOAD (the
 * environment channel), else the first line of /etc/ld.so.preload (the fixed channel). 0 or -1. */
static int preload_path(char **envp, char *out, size_t outlen)
{
	const char *v = NULL;
	for (char **e = envp ? envp : environ; e && *e; e++)
		if (!strncmp(*e, "LD_PRELOAD=", 11))
			v = *e + 11;
	char line[4200] = "";
	if (!v || !*v) {
		int fd = open("/etc/ld.so.preload", O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, line, sizeof line - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return -1;
		line[n] = 0;
		v = line;
	}
	v += strspn(v, " \t\n:");
	size_t l = strcspn(v, " \t\n:");
	if (!l || l >= outlen)
		return -1;
	snprintf(out, outlen, "%.*s", (int)l, v);
	return 0;
}

/* Can the command load the preload? This process has the command's identity, mount tree and
 * Landlock domain, and no capabilities left. 0, or -1 (why). */
static int preload_loadable(char **envp, char *why, size_t whylen)
{
	char path[4096];
	if (preload_path(envp, path, sizeof path) < 0) {
		snprintf(why, whylen, "neither LD_PRELOAD nor /etc/ld.so.preload names the library (uid %u gid %u)",
			 (unsigned)getuid(), (unsigned)getgid());
		return -1;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	struct statvfs vfs;
	unsigned char magic[4];
	const char *err = NULL;
	if (fd < 0)
		err = strerror(errno);
	else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		err = "not a regular file";
	else if (pread(fd, magic, sizeof magic, 0) != (ssize_t)sizeof magic || memcmp(magic, "\177ELF", 4))
		err = "not an ELF file";
	else if (fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_NOEXEC))
		err = "on a noexec mount";
	if (fd >= 0)
		close(fd);
	if (!err)
		return 0;
	for (char *c = path; *c; c++) /* one status line */
		if (*c == '\n')
			*c = '?';
	snprintf(why, whylen, "%.300s: %s (uid %u gid %u)", path, err, (unsigned)getuid(), (unsigned)getgid());
	return -1;
}

int sbx_preload_stage(struct layer_stage *s, bool on)
{
	if (!on)
		return 0;
	char why[512] = "";
	if (preload_loadable(s->envp, why, sizeof why) < 0) {
		layer_stage_add(s, "preload", "off");
		layer_stage_add(s, "preload_why", why);
	} else {
		layer_stage_add(s, "preload", "on");
	}
	return 0;
}
