/* utf8.h — strict UTF-8 validation and repair for strings that go into the audit stream.
 *
 * Promise: utf8_valid accepts exactly well-formed UTF-8 (no overlongs, no surrogates, nothing
 * above U+10FFFF; NUL is not special). utf8_sanitize returns a malloc'd NUL-terminated copy in
 * which each byte that does not start a well-formed sequence is replaced by U+FFFD, cut at a
 * character boundary to at most maxlen bytes. utf8_boundary never splits a character.
 */
#ifndef SBX_UTF8_H
#define SBX_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length (1..4) of the well-formed sequence at s[0..n), or 0 if it is not one. */
size_t utf8_seq_len(const unsigned char *s, size_t n);
bool utf8_valid(const char *s, size_t n);
/* NULL only when out of memory. */
char *utf8_sanitize(const char *s, size_t maxlen);
/* Largest k <= n such that s[0..k) does not end inside a multi-byte character (s is valid UTF-8). */
size_t utf8_boundary(const char *s, size_t n);

#endif
