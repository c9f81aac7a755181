/* sd_fixed.h — the preload's fixed channel (/run/sbxsup, /etc/ld.so.preload) in direct mode's
 * private mount namespace. See sd_fixed.c for the promise. */
#ifndef SBX_SD_FIXED_H
#define SBX_SD_FIXED_H

#include <stdbool.h>
#include <stddef.h>

struct sd_fixed {
	bool on;                   /* set it up (run.c: layer_ctx.fixed_channel) */
	const void *blob;          /* the sealed policy's bytes (the run's plan owns them) */
	size_t bloblen;
	const char *report_sock;   /* host path of the run's report socket (visible in the namespace) */
	const char *preload_lib;   /* host path of libsbxpreload.so */
	int lib_fd;                /* sd_fixed_open_lib(): a detached read-only mount of it, or -1 */
};

/* Parent, before the spawn (root: the run's identity may not traverse the library's directories):
 * f->lib_fd = a detached read-only clone of the library's mount (open_tree), bound at
 * SBX_RUN_PRELOAD by sd_fixed_setup, so only the file's own mode decides whether the executor can
 * read it. -1 where that is refused (a normal user): the host path is used. */
void sd_fixed_open_lib(struct sd_fixed *f);
/* Close f->lib_fd (the parent after the spawn; the child when done). */
void sd_fixed_close_lib(struct sd_fixed *f);

/* In the run's init, inside its own mount namespace, before the identity change. 0, or -1 with
 * errno and a "run setup:" message on stderr. */
int sd_fixed_setup(const struct sd_fixed *f);

struct etc_identity_text;
/* In the run's init, inside its own mount namespace: /etc/passwd and /etc/group (and, t->resolv,
 * /etc/resolv.conf) show the
 * executor's own entries (`t`, from etc_identity_make: SBX_EXEC_USER with its uid, gid and
 * home), as read-only binds of files in a tmpfs mounted over /tmp only while they are written (one
 * descriptor at a time). 0, or -1 with errno and a message. */
int sd_fixed_identity(const struct etc_identity_text *t);

#endif
