/* stage_main.c — `sbxsup-stage`: the exec stage alone, the binary bwrap runs inside the sandbox.
 *
 * Promise: `sbxsup-stage __stage ARGS...` is exactly `sbxsup __stage ARGS...` (stage.c cmd_stage,
 * the same code): it is linked from the same objects with unused sections dropped (Makefile
 * STAGE_BIN; it shrinks to libc and libseccomp once the stage's op table is apart from the
 * layers' other ops). sbxsup binds it at /run/sbxsup/sbxsup when it lies beside the sbxsup binary
 * (layers.c detect_stage), else sbxsup itself. Anything but `__stage` is refused (125): the full
 * command line is not in the sandbox.
 */
#include <stdio.h>
#include <string.h>
#include "stage.h"

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "__stage") != 0) {
		fprintf(stderr, "sbxsup-stage: the exec stage of sbxsup run (only `__stage`); run sbxsup "
				"itself for anything else\n");
		return 125;
	}
	return cmd_stage(argc - 1, argv + 1);
}
