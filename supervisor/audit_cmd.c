/* STUB — to be replaced by: issue 8 (audit review). */
#include "cmd.h"
int cmd_audit(int argc, char **argv)
{
	(void)argc; (void)argv;
	sbx_msg("cmd_audit: not implemented yet");
	return SBX_EXIT_INTERNAL;
}
