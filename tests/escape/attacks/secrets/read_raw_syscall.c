/* Raw openat system call (no libc wrapper): the preload cannot see it.
// profile: fs-raw
// silent-ok-container-root: container root: the probes, which report a raw open the preload cannot see, are off or do not see the run (README Known gaps); the seccomp file reporter runs only where the preload is blind, so Landlock, bwrap or the identity refuse it unreported
*/
#include "esc.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_read_path_raw(esc_arg("ssh")); }
