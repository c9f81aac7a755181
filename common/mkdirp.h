/* mkdirp.h — `mkdir -p`: the one helper that makes a directory and every missing parent.
 *
 * Promise: each missing component is made with `mode` (as umask leaves it); existing ones are kept
 * as they are (EEXIST is no error, whatever they are). No allocation, nothing kept open (fit for a
 * forked child). */
#ifndef SBX_MKDIRP_H
#define SBX_MKDIRP_H

#include <sys/types.h>

/* 0, or -1 with errno (ENAMETOOLONG: path longer than PATH_MAX). */
int sbx_mkdir_p(const char *path, mode_t mode);

#endif
