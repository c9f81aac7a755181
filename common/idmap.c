/* idmap.c — see idmap.h. */
#include "idmap.h"

#include <stdio.h>
#include <string.h>

bool sbx_idmap_out(const char *map, uint32_t id, uint32_t *out)
{
	for (const char *l = map; l && *l;) {
		unsigned long in, o, cnt;
		if (sscanf(l, "%lu %lu %lu", &in, &o, &cnt) == 3 && id >= in && id - in < cnt) {
			*out = (uint32_t)(o + (id - in));
			return true;
		}
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return false;
}

bool sbx_idmap_has(const char *map, uint32_t id)
{
	uint32_t o;
	return sbx_idmap_out(map, id, &o);
}
