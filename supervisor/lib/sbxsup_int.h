/* sbxsup_int.h — what the sbxsup command line needs of the library beyond sbxsup.h. Not installed,
 * not exported from libsbxsup.so (hidden like every internal symbol); the sbxsup binary links the
 * library's objects statically and calls these.
 *
 * Promise: sbx_opts_set_layer_masks() takes --layers/--require already parsed (run_args.c);
 * sbx_opts_set_temp_workspace() names the temporary workspace the command line made for a run
 * from "/" (the run announces it to its clean-up helper; the caller removes it afterwards);
 * sbx_refuse_arguments() is the run for bad arguments: nothing runs, the result record (when
 * o has a result destination) says bad_arguments; returns 125. sbx_opts_set_warm() makes sbx_run()
 * a pre-created run (run/run.h struct run_warm; `sbxsup serve` only): `w` must outlive the run.
 * sbx_opts_set_result_extra() names the call's own --result that `sbxsup serve` opened as fd (the
 * run refuses it as it refuses its own destination, run.h result_extra); dest must outlive the run.
 */
#ifndef SBX_SBXSUP_INT_H
#define SBX_SBXSUP_INT_H

#include "sbxsup.h"

/* The options as the run takes them (run/run.h), for what only the command line has: its reads
 * (serve's floor: want, require, disabled, sensor_off; --server's descriptors) and its own fields
 * (cmd, dry_run, server), which sbx_plan/sbx_run do not take from here. */
struct run_opts;
struct run_opts *sbx_opts_run(struct sbx_opts *o);
int sbx_opts_set_layer_masks(struct sbx_opts *o, unsigned want, unsigned require);
int sbx_opts_set_temp_workspace(struct sbx_opts *o, const char *dir);
int sbx_refuse_arguments(const struct sbx_opts *o);
struct run_warm;
int sbx_opts_set_warm(struct sbx_opts *o, const struct run_warm *w);
int sbx_opts_set_result_extra(struct sbx_opts *o, const char *dest, int fd);

#endif
