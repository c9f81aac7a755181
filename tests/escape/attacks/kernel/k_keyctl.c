/* add_key into the session keyring (kernel keyrings are shared state outside the sandbox).
// profile: syscall
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	long k = ESC_SYS(SYS_add_key, "user", "sbxesc", "x", 1, -3 /* KEY_SPEC_SESSION_KEYRING */);
	return esc_result(k >= 0, "add_key");
}
