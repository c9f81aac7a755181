/* sandbox_paths.h — the fixed paths every sandbox of a run has, whichever wrapper made it (bwrap's
 * argv, the direct sandbox's init: run/sd_fixed.c) and whoever reads them inside (the exec stage,
 * the preload: preload/pl.h keeps the same text).
 *
 * Promise: constants only; the one place these paths are spelled on the supervisor's side.
 */
#ifndef SBX_SANDBOX_PATHS_H
#define SBX_SANDBOX_PATHS_H

#define SBX_RUN_DIR      "/run/sbxsup"
#define SBX_RUN_SBXSUP   SBX_RUN_DIR "/sbxsup"
#define SBX_RUN_PRELOAD  SBX_RUN_DIR "/libsbxpreload.so"
#define SBX_LDSO_PRELOAD "/etc/ld.so.preload" /* the preload library named for ld.so */
/* The run's report socket (SBXSUP_REPORT_ADDR) inside the sandbox; the preload falls back to this
 * fixed path when its environment was stripped (preload/pl.h SBX_PL_REPORT_FIXED, same text). */
#define SBX_RUN_REPORT   SBX_RUN_DIR "/report"
/* The sealed policy inside the sandbox (fixed channel: preload/pl.h SBX_PL_POLICY_FIXED, same text). */
#define SBX_RUN_POLICY   SBX_RUN_DIR "/policy"

/* bwrap as root (bwrap_layer.h bwrap_in.stage_dir): sbxsup and the preload library as the child
 * stages them there (run/sd_child.c; bwrap looks its sources up as the executor's host identity,
 * which may not reach their paths) */
#define SBX_STAGE_SBXSUP  "sbxsup"
#define SBX_STAGE_PRELOAD "libsbxpreload.so"

#endif
