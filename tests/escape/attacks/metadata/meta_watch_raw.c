/* Raw inotify_add_watch on ~/.ssh and on a directory nothing grants, and fanotify_mark (unprivileged
 * inode marks, 5.13+) on ~/.ssh: learn when the user touches their keys.
// manifest: base
// profile: fs-raw
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation(outcome=contained,sensor=seccomp-notify)
// expect-no-bwrap: blocked; events: kernel.violation(outcome=contained,sensor=seccomp-notify)
// expect-seccomp: blocked; events: kernel.violation(outcome=contained,sensor=seccomp-notify)
// expect-preload-only: blocked-or-reported; events: kernel.violation
// expect-preload-only-user: none   (no kernel layer in preload-only mode and no probes without root: the static binary changes the user's own file unreported — README Known gaps, preload-only)
// expect-landlock: none   (Landlock has no right for metadata changes)
// expect-probes: blocked-or-reported; events: kernel.violation
*/
#include <sys/inotify.h>
#include "esc.h"
#ifndef SYS_fanotify_init
#define SYS_fanotify_init 300
#endif
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	long in = ESC_SYS(SYS_inotify_init1, IN_CLOEXEC);
	if (in >= 0 && ESC_SYS(SYS_inotify_add_watch, in, esc_arg("sshdir"), IN_ALL_EVENTS) >= 0)
		ok = 1, fprintf(stderr, "attack: inotify ~/.ssh SUCCEEDED\n");
	if (in >= 0 && ESC_SYS(SYS_inotify_add_watch, in, esc_arg("outside"), IN_ALL_EVENTS) >= 0)
		ok = 1, fprintf(stderr, "attack: inotify outside SUCCEEDED\n");
	/* FAN_CLASS_NOTIF | FAN_REPORT_FID, O_RDONLY; FAN_MARK_ADD, FAN_OPEN | FAN_ACCESS */
	long fa = ESC_SYS(SYS_fanotify_init, 0x200, O_RDONLY);
	if (fa >= 0 && ESC_SYS(SYS_fanotify_mark, fa, 0x1, 0x21, AT_FDCWD, esc_arg("sshdir")) == 0)
		ok = 1, fprintf(stderr, "attack: fanotify ~/.ssh SUCCEEDED\n");
	return esc_result(ok, "raw watches on denied paths");
}
