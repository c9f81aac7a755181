/* detect.h — the host facts the layer probes find (layer.h `probe`), shared with the run.
 *
 * Promise: plain data, filled by the probes (layers_detect for `run`, layers_probe_all for
 * `status`): the bwrap binary, the real path of the running sbxsup, the preload library, the
 * Landlock ABI; `cgroups` is filled by the caller (`status`) before the functional probes, for the
 * limits layer's report. Nothing here starts a process.
 */
#ifndef SBX_DETECT_H
#define SBX_DETECT_H

#include <linux/limits.h>

struct detect {
	char bwrap[PATH_MAX];      /* "" when none */
	char self[PATH_MAX];       /* real path of the running sbxsup */
	char stage[PATH_MAX];      /* what bwrap runs as the exec stage: sbxsup-stage beside self when
				    * it is there (same owner, not group/other-writable), else self */
	char preload[PATH_MAX];    /* real path of libsbxpreload.so, "" when none */
	int landlock_abi;          /* 0 when none */
	char cgroups[400];         /* which cgroup hierarchies are writable ("" unknown) */
};

#endif
