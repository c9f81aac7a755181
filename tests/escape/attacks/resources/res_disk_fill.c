/* Disk fill, bounded: writes 64 MiB into the workspace (limits.fsize_mb is 8). SIGXFSZ is ignored,
 * so the rlimit refuses silently (EFBIG): run.start naming the fsize rlimit names the layer.
// profile: limits
// silent-ok: RLIMIT_FSIZE refuses with EFBIG, which no layer observes (the attack ignores SIGXFSZ); run.start level.limits names the limit
// expect-limits: blocked; events: limit.hit(limit~fsize)|run.start(level.limits~fsize)
// expect-preload-only: blocked; events: limit.hit(limit~fsize)|run.start(level.limits~fsize)
// expect-no-bwrap: blocked; events: limit.hit(limit~fsize)|run.start(level.limits~fsize)
// manifest: limits
// expect-full: blocked; events: limit.hit(limit~fsize)|run.start(level.limits~fsize)
*/
#include <signal.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	signal(SIGXFSZ, SIG_IGN); /* get EFBIG instead of dying: the attacker's best chance */
	char p[4096];
	static char buf[1 << 20];
	memset(buf, 'f', sizeof buf);
	int fd = open(esc_join(p, sizeof p, esc_arg("ws"), "fill.bin"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return esc_result(0, "create");
	int mb = 0;
	for (; mb < 64; mb++)
		if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
			break;
	close(fd);
	unlink(p);
	fprintf(stderr, "attack: wrote %d MiB\n", mb);
	return esc_result(mb >= 64, "disk fill");
}
