/* STUB — to be replaced by: issue 2 (foundation). */
#include "cmd.h"
int cmd_validate(int argc, char **argv)
{
	(void)argc; (void)argv;
	sbx_msg("cmd_validate: not implemented yet");
	return SBX_EXIT_INTERNAL;
}
