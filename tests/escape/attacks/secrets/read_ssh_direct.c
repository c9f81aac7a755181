/* Read the canary private key ~/.ssh/id_rsa with open(2) through libc.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_read_path(esc_arg("ssh")); }
