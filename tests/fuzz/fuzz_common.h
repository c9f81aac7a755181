/* fuzz_common.h — shared bits of the libFuzzer targets (tests/fuzz/fuzz_*.c), which link every
 * policy/audit/common/supervisor source except supervisor/cli/main.c (sbx_msg is common/msg.c). */
#ifndef SBX_FUZZ_COMMON_H
#define SBX_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* NUL-terminated heap copy of data[0..n) (the caller frees). */
static inline char *fz_strndup(const uint8_t *d, size_t n)
{
	char *s = malloc(n + 1);
	if (!s)
		abort();
	memcpy(s, d, n);
	s[n] = 0;
	return s;
}

#endif
