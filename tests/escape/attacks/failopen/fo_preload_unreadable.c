/* The preload library exists but the executor's identity cannot read it (a checkout under a 0700
 * home, a 0600 install): ld.so would only warn and run the command with no preload at all. Read a
 * world-readable file that only a manifest deny protects: the run must refuse (preload_unavailable,
 * run.start saying layers.preload false and why) — never run with layers.preload true and no preload.
// profile: fs
// manifest: deny
// preload: unreadable
// refusal: preload unavailable
// silent-ok: the run is refused before the command starts; run.start says why (layers.preload false)
// expect-full: blocked; events: preload.deny|run.start(layers.preload=false,why.preload~cannot load)
// expect-preload-only: blocked; events: run.start(layers.preload=false,why.preload~cannot load)
// expect-no-bwrap: blocked; events: run.start(layers.preload=false,why.preload~cannot load)
// expect-preload: blocked; events: run.start(layers.preload=false,why.preload~cannot load)
// expect-landlock: none (the preload is not selected: a deny below libc is the kernel layers' job)
// expect-probes: none (the preload is not selected)
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_read_path(esc_arg("secret"));
}
