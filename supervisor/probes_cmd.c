/* STUB — to be replaced by: issue 6 (probes). */
#include "cmd.h"
int cmd_probes(int argc, char **argv)
{
	(void)argc; (void)argv;
	sbx_msg("cmd_probes: not implemented yet");
	return SBX_EXIT_INTERNAL;
}
