/* Raw openat system call (no libc wrapper): the preload cannot see it.
// profile: fs-raw
*/
#include "esc.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_read_path_raw(esc_arg("ssh")); }
