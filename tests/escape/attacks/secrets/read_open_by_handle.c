/* name_to_handle_at + open_by_handle_at: opens a file by its handle, without path checks.
// profile: syscall
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct { struct file_handle fh; unsigned char buf[128]; } h;
	h.fh.handle_bytes = 128;
	int mnt;
	if (ESC_SYS(SYS_name_to_handle_at, AT_FDCWD, esc_arg("secret"), &h.fh, &mnt, 0) < 0)
		return esc_result(0, "name_to_handle_at");
	int mfd = open(esc_arg("ws"), O_RDONLY | O_DIRECTORY);
	if (mfd < 0)
		return esc_result(0, "open mount fd");
	long fd = ESC_SYS(SYS_open_by_handle_at, mfd, &h.fh, O_RDONLY);
	if (fd < 0)
		return esc_result(0, "open_by_handle_at");
	return esc_result(esc_dump_fd((int)fd) > 0, "open_by_handle_at");
}
