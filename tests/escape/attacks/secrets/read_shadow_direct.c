/* Read the real /etc/shadow (never readable, whoever runs sbxsup).
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_read_path(esc_arg("shadow")); }
