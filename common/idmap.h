/* idmap.h — read a user namespace's id map (/proc/<pid>/uid_map, gid_map) as text.
 *
 * Promise: pure parsing of the map's text (lines "inside outside count"); no I/O, no allocation,
 * so the supervisor and the preload (which reads the file with its own raw system calls) share it.
 */
#ifndef SBX_IDMAP_H
#define SBX_IDMAP_H

#include <stdbool.h>
#include <stdint.h>

/* Does the map text (NUL-terminated) map the id `id` of its namespace, i.e. does some line's
 * inside range contain it? An empty or unparsable text maps nothing. */
bool sbx_idmap_has(const char *map, uint32_t id);

/* The id `id` of the map's namespace as the reader of the map numbers it (the map's second field
 * is relative to the namespace of whoever opened it): true and *out set, or false (unmapped). */
bool sbx_idmap_out(const char *map, uint32_t id, uint32_t *out);

#endif
