/* privilege.c — what can never be created in anything the executor can write (policy.h
 * pol_priv_mode / pol_priv_xattr): a setuid or setgid bit, a device node, a file capability or
 * another security attribute. One predicate for every layer: the always-on seccomp filter is built
 * from the same bits (seccomp_layer.c), the seccomp supervisor, the preload and the probes' decoder
 * call these functions. Pure: registers and strings only. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "policy.h"

#define PRIV_O_TMPFILE_BIT 020000000u /* the kernel's __O_TMPFILE bit alone (glibc's adds O_DIRECTORY) */

const char *pol_priv_mode(enum pol_priv_call call, uint64_t flags, uint32_t mode)
{
	switch (call) {
	case POL_PRIV_CREATE:
		/* the mode is used only when a file is created */
		if (!(flags & (O_CREAT | PRIV_O_TMPFILE_BIT)))
			return NULL;
		break;
	case POL_PRIV_MKNOD:
		if ((mode & S_IFMT) == S_IFCHR || (mode & S_IFMT) == S_IFBLK)
			return POL_PRIV_DEVICE;
		break;
	case POL_PRIV_CHMOD:
		break;
	}
	if (mode & S_ISUID)
		return POL_PRIV_SETUID;
	if (mode & S_ISGID)
		return POL_PRIV_SETGID;
	return NULL;
}

const char *pol_priv_xattr(const char *name, uint32_t obj_mode)
{
	if (!name)
		return NULL;
	if (!strcmp(name, "security.capability"))
		return POL_PRIV_FCAPS;
	if (!strncmp(name, "security.", 9))
		return POL_PRIV_SECATTR;
	/* an ACL rewrites the group bits (its mask): on a setuid/setgid file it could give a setgid
	 * file group-exec back (the kernel keeps S_ISGID for a member of the file's group) */
	if ((obj_mode & (S_ISUID | S_ISGID)) && !strcmp(name, "system.posix_acl_access"))
		return (obj_mode & S_ISUID) ? POL_PRIV_SETUID : POL_PRIV_SETGID;
	return NULL;
}

static const char *const priv_texts[] = {POL_PRIV_SETUID, POL_PRIV_SETGID, POL_PRIV_DEVICE, POL_PRIV_FCAPS,
					 POL_PRIV_SECATTR};
#define NPRIV (sizeof priv_texts / sizeof priv_texts[0])

uint32_t pol_priv_rule_id(const char *text)
{
	for (uint32_t i = 0; text && i < NPRIV; i++)
		if (!strcmp(text, priv_texts[i]))
			return POL_RULE_PRIV_FIRST + i;
	return POL_RULE_DEFAULT;
}

const char *pol_priv_rule_text(uint32_t rule)
{
	return rule >= POL_RULE_PRIV_FIRST && rule - POL_RULE_PRIV_FIRST < NPRIV ? priv_texts[rule - POL_RULE_PRIV_FIRST]
										  : NULL;
}
