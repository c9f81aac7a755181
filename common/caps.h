/* caps.h — make the executor powerless before exec: no capabilities, no_new_privs.
 *
 * Promise: sbx_caps_drop() leaves the calling thread (the single-threaded exec stage, just before
 * execve of the command) with no_new_privs set, an empty capability bounding set, no ambient
 * capabilities and empty effective/permitted/inheritable sets; when privileged, it also sets and
 * locks SECBIT_NOROOT / SECBIT_NO_SETUID_FIXUP / SECBIT_KEEP_CAPS_OFF so uid 0 never regains
 * capabilities through exec. The executor may stay uid 0, but powerless (like bwrap's default):
 * it cannot raise hard rlimits (CAP_SYS_RESOURCE), open_by_handle_at (CAP_DAC_READ_SEARCH),
 * bypass file modes (CAP_DAC_OVERRIDE) or gain anything from a setuid or file-capability binary.
 *
 * An unprivileged caller (no CAP_SETPCAP: a normal user, or inside bwrap, which already dropped
 * everything) cannot shrink the bounding set; that is fine — it holds no capability and
 * no_new_privs keeps exec from granting any — and is not an error. Every other failure is.
 * The result is verified with capget/PR_CAPBSET_READ before returning 0.
 *
 * Order: call it AFTER the Landlock and seccomp installation (they open files and read /proc with
 * the stage's privileges) and before execve. No libcap: raw capget/capset, version 3.
 */
#ifndef SBX_CAPS_H
#define SBX_CAPS_H

#include <stdbool.h>
#include <stddef.h>

/* Returns 0 (and, in `why`, a short level text: "dropped (bounding set emptied)" or "none held
 * (unprivileged; no_new_privs set)"), or -1 with the reason in `why`. */
int sbx_caps_drop(char *why, size_t whylen);

/* The highest capability number the running kernel knows (cap_last_cap), or -1 (why). */
int sbx_caps_last(char *why, size_t whylen);

/* Empty effective, permitted, inheritable and ambient sets (the bounding set and no_new_privs are
 * left alone): before exec of a program that refuses to run with capabilities (bwrap, not
 * setuid, run by a non-root sbxsup that holds some). 0, or -1 with errno. */
int sbx_caps_clear(void);

/* True when the calling thread holds `cap` in its effective set (raw capget). */
bool sbx_caps_effective(int cap);

#endif
