/* STUB — to be replaced by: issue 3 (run). */
#include "cmd.h"
int cmd_run(int argc, char **argv)
{
	(void)argc; (void)argv;
	sbx_msg("cmd_run: not implemented yet");
	return SBX_EXIT_INTERNAL;
}
