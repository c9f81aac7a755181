/* Read a canary file in a directory no rule grants (default deny).
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_read_path(esc_arg("secret")); }
