/* elfcheck.h — will libsbxpreload.so be able to see this command's libc calls?
 *
 * Promise: sbx_elf_inspect() looks at the command before launch (no execution, no libelf state:
 * the ELF header and program headers are read directly, both ELF classes, both byte orders) and
 * says whether the preload can work on it: a dynamically linked ELF whose PT_INTERP is glibc's
 * dynamic loader (ld-linux*.so.*). A static binary (no PT_INTERP), another loader (musl, ...), a
 * non-ELF file, or a script whose `#!` interpreter is one of those (followed one level, and through
 * `/usr/bin/env NAME` on PATH) are reported with a reason for run.start.why.preload.
 */
#ifndef SBX_ELFCHECK_H
#define SBX_ELFCHECK_H

#include <limits.h>
#include <linux/limits.h>
#include <stdbool.h>
#include <stddef.h>

struct sbx_elf_info {
	char path[PATH_MAX];      /* the file inspected (found on PATH when no '/' was given) */
	bool is_script;           /* "#!" file: the fields below describe its interpreter */
	char script_interp[PATH_MAX]; /* the interpreter program inspected ("" when not a script) */
	bool is_elf;
	bool is_static;           /* ELF without PT_INTERP */
	char interp[PATH_MAX];    /* PT_INTERP ("" when static / not ELF) */
	bool glibc;               /* PT_INTERP is glibc's ld-linux* */
	bool preload_ok;          /* the preload will be loaded and see libc calls */
	char why[512];            /* when !preload_ok: "static binary: /x/y", ... */
};

/* Inspect `cmd` (a path, or a name searched on `path_env` like execvp; NULL path_env: $PATH, else
 * "/usr/local/bin:/usr/bin:/bin"). Returns 0 with *out filled, or -1 with errno (ENOENT not found,
 * EACCES...) and out->why set. */
int sbx_elf_inspect_env(const char *cmd, const char *path_env, struct sbx_elf_info *out);
int sbx_elf_inspect(const char *cmd, struct sbx_elf_info *out);

#endif
