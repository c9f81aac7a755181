/* msg.h — how sbxsup speaks: one line on stderr, and the exit codes of the SPEC.
 *
 * Promise: sbx_msg() writes "sbxsup: " + the message + "\n" with one write on the calling thread's
 * message descriptor: stderr (2) unless sbx_msg_set_fd() chose another for this thread (the library,
 * supervisor/lib/sbxsup.h, points it at its caller's descriptor for one run; a child forked during
 * that run inherits the choice, an exec does not matter: it is a descriptor number); the SBX_EXIT_*
 * codes are the SPEC's (124 timeout, 125 sbxsup's own failure, 126 not executable, 127 not found).
 * The message holds no control byte: a name in it is quoted by the caller (sbx_q, quote.h); what a
 * caller left unquoted (a module's error text) is escaped as sbx_escape_json does, so no newline,
 * ESC, CR or bidi control reaches the terminal. Every module that speaks includes this, never the
 * CLI's headers.
 */
#ifndef SBX_MSG_H
#define SBX_MSG_H

#include <stdarg.h>
#include <stddef.h>

#define SBX_EXIT_TIMEOUT  124
#define SBX_EXIT_INTERNAL 125
#define SBX_EXIT_NOEXEC   126
#define SBX_EXIT_NOTFOUND 127

/* "sbxsup: " + message on stderr. */
void sbx_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The calling thread's message descriptor (2 unless set); sbx_msg_set_fd() sets it (fd < 0: back
 * to 2) and returns the previous one. Also for text sbxsup passes on verbatim (bwrap's warnings). */
int sbx_msg_fd(void);
int sbx_msg_set_fd(int fd);

/* err = the formatted message [+ ": " + strerror(e) when e != 0]; nothing when err is NULL or
 * errlen is 0. For modules that return their errors in a caller's buffer. */
void sbx_verrf(char *err, size_t errlen, int e, const char *fmt, va_list ap);

#endif
