/* dirnames.h — the sorted names of a directory's entries, as a NULL-terminated vector.
 *
 * Promise: sbx_dir_names() reads the directory open at `dirfd` (a duplicate: the caller keeps and
 * closes its fd) and returns the names other than "." and ".." that `keep` accepts (NULL: all),
 * sorted with strcmp; the caller frees the vector with sbx_names_free(). NULL with errno set when
 * the directory cannot be read or memory runs out (never a partial list). sbx_names_has() is a
 * binary search of such a vector.
 */
#ifndef SBX_DIRNAMES_H
#define SBX_DIRNAMES_H

#include <stdbool.h>

char **sbx_dir_names(int dirfd, bool (*keep)(const char *name));
void sbx_names_free(char **v);
bool sbx_names_has(char *const *v, const char *name);

#endif
