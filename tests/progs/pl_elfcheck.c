/* pl_elfcheck.c — prints what common/elfcheck.c says about a command (test driver; the module
 * is libc-only, so it is compiled in directly).
 *   usage: pl_elfcheck CMD
 * Prints "preload_ok=0|1 static=0|1 elf=0|1 script=0|1 glibc=0|1 interp=... why=..." */
#include "../../common/elfcheck.c"

int main(int argc, char **argv)
{
	struct sbx_elf_info i;
	if (argc != 2)
		return 2;
	if (sbx_elf_inspect(argv[1], &i) != 0) {
		printf("error errno=%d why=%s\n", errno, i.why);
		return 1;
	}
	printf("preload_ok=%d static=%d elf=%d script=%d glibc=%d interp=%s why=%s\n", i.preload_ok,
	       i.is_static, i.is_elf, i.is_script, i.glibc, i.interp, i.why);
	return 0;
}
