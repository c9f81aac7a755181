/* elfcheck.c — see elfcheck.h. Direct, bounded parsing of the ELF and program headers. */
#include "elfcheck.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_PHNUM 512

static int search_path(const char *name, const char *path_env, char *out, size_t outlen)
{
	if (strchr(name, '/')) {
		snprintf(out, outlen, "%s", name);
		return access(out, F_OK) == 0 ? 0 : -1;
	}
	const char *p = path_env ? path_env : getenv("PATH");
	if (!p || !*p)
		p = "/usr/local/bin:/usr/bin:/bin";
	int err = ENOENT;
	for (;;) {
		const char *e = strchrnul(p, ':');
		int dl = (int)(e - p);
		int n = snprintf(out, outlen, "%.*s%s%s", dl, p, dl ? "/" : "", name);
		if (n > 0 && (size_t)n < outlen) {
			struct stat st;
			if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
				if (access(out, X_OK) == 0)
					return 0;
				err = EACCES;
			}
		}
		if (!*e)
			break;
		p = e + 1;
	}
	errno = err;
	return -1;
}

static uint16_t u16(const unsigned char *p, bool be)
{
	return be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static uint32_t u32(const unsigned char *p, bool be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t u64(const unsigned char *p, bool be)
{
	return be ? (uint64_t)u32(p, true) << 32 | u32(p + 4, true)
		  : (uint64_t)u32(p + 4, false) << 32 | u32(p, false);
}

static bool pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	ssize_t r = pread(fd, buf, n, (off_t)off);
	return r == (ssize_t)n;
}

/* Fills is_elf/is_static/interp from an open file. Returns 0, or -1 (not ELF / malformed). */
static int parse_elf(int fd, struct sbx_elf_info *o)
{
	unsigned char eh[64];
	if (!pread_all(fd, eh, 16, 0) || memcmp(eh, ELFMAG, SELFMAG) != 0)
		return -1;
	bool is64 = eh[EI_CLASS] == ELFCLASS64, be = eh[EI_DATA] == ELFDATA2MSB;
	if ((eh[EI_CLASS] != ELFCLASS32 && !is64) || (eh[EI_DATA] != ELFDATA2LSB && !be))
		return -1;
	size_t ehsize = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if (!pread_all(fd, eh, ehsize, 0))
		return -1;
	o->is_elf = true;
	uint64_t phoff = is64 ? u64(eh + 32, be) : u32(eh + 28, be);
	uint16_t phentsize = u16(eh + (is64 ? 54 : 42), be);
	uint16_t phnum = u16(eh + (is64 ? 56 : 44), be);
	size_t want = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	if (phnum > MAX_PHNUM || (phnum && phentsize < want))
		return -1;
	o->is_static = true;
	for (unsigned i = 0; i < phnum; i++) {
		unsigned char ph[64];
		if (!pread_all(fd, ph, want, phoff + (uint64_t)i * phentsize))
			return -1;
		if (u32(ph, be) != PT_INTERP)
			continue;
		uint64_t off = is64 ? u64(ph + 8, be) : u32(ph + 4, be);
		uint64_t sz = is64 ? u64(ph + 32, be) : u32(ph + 16, be);
		if (sz == 0 || sz >= sizeof o->interp)
			return -1;
		if (!pread_all(fd, o->interp, (size_t)sz, off))
			return -1;
		o->interp[sz] = 0;
		o->is_static = false;
		break;
	}
	return 0;
}

static bool glibc_loader(const char *interp)
{
	const char *b = strrchr(interp, '/');
	b = b ? b + 1 : interp;
	return strncmp(b, "ld-linux", 8) == 0 && strstr(b, ".so") != NULL;
}

/* "#!interp [arg]" -> interpreter program to inspect (through env NAME). 0 or -1. */
static int script_interp(int fd, const char *path_env, char *out, size_t outlen)
{
	char line[PATH_MAX];
	ssize_t n = pread(fd, line, sizeof line - 1, 0);
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return -1;
	line[n] = 0;
	char *nl = strchr(line, '\n');
	if (nl)
		*nl = 0;
	char *s = line + 2;
	while (*s == ' ' || *s == '\t')
		s++;
	char *interp = s;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	char *arg = NULL;
	if (*s) {
		*s++ = 0;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s) {
			arg = s;
			while (*s && *s != ' ' && *s != '\t')
				s++;
			*s = 0;
		}
	}
	const char *b = strrchr(interp, '/');
	b = b ? b + 1 : interp;
	if (strcmp(b, "env") == 0 && arg && arg[0] != '-')
		return search_path(arg, path_env, out, outlen);
	snprintf(out, outlen, "%s", interp);
	return 0;
}

static int inspect_file(const char *file, struct sbx_elf_info *o)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(o->why, sizeof o->why, "cannot read %.200s: %.200s", file, strerror(errno));
		return -1;
	}
	int r = parse_elf(fd, o);
	close(fd);
	return r;
}

int sbx_elf_inspect_env(const char *cmd, const char *path_env, struct sbx_elf_info *o)
{
	memset(o, 0, sizeof *o);
	if (!cmd || !*cmd) {
		snprintf(o->why, sizeof o->why, "empty command");
		errno = ENOENT;
		return -1;
	}
	if (search_path(cmd, path_env, o->path, sizeof o->path) != 0) {
		int e = errno;
		snprintf(o->why, sizeof o->why, "%.200s: not found", cmd);
		errno = e;
		return -1;
	}
	int fd = open(o->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(o->why, sizeof o->why, "cannot read %.200s: %.200s", o->path, strerror(e));
		errno = e;
		return -1;
	}
	const char *target = o->path;
	if (script_interp(fd, path_env, o->script_interp, sizeof o->script_interp) == 0) {
		o->is_script = true;
		target = o->script_interp;
		close(fd);
		if (inspect_file(target, o) != 0 && !o->is_elf) {
			if (!o->why[0])
				snprintf(o->why, sizeof o->why, "script interpreter %.200s is not an ELF program", target);
			return 0;
		}
	} else {
		int r = parse_elf(fd, o);
		close(fd);
		if (r != 0) {
			snprintf(o->why, sizeof o->why, "%.200s is not a dynamically linked ELF program", o->path);
			return 0;
		}
	}
	if (o->is_static) {
		snprintf(o->why, sizeof o->why, "static binary: %.200s (the preload cannot see its calls)", target);
		return 0;
	}
	o->glibc = glibc_loader(o->interp);
	if (!o->glibc) {
		snprintf(o->why, sizeof o->why, "%.200s uses the non-glibc loader %.200s (LD_PRELOAD is not honoured)",
			 target, o->interp);
		return 0;
	}
	o->preload_ok = true;
	return 0;
}

int sbx_elf_inspect(const char *cmd, struct sbx_elf_info *out)
{
	return sbx_elf_inspect_env(cmd, NULL, out);
}
