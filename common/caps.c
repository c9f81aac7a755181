/* caps.c — see caps.h. Raw syscalls only (no libcap). */
#include "caps.h"
#include "smallfile.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* Highest capability number a capability set can hold (2 x 32 bits, version 3). */
#define CAPS_MAX 63

static int caps_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	memset(d, 0, 2 * sizeof d[0]);
	return (int)syscall(SYS_capget, &h, d);
}

static int caps_set(const struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	return (int)syscall(SYS_capset, &h, d);
}

/* /proc/sys/kernel/cap_last_cap, else (no /proc, or Landlock already hides it) the first number
 * PR_CAPBSET_READ refuses with EINVAL, minus one: both are the kernel's own answer. */
int sbx_caps_last(char *why, size_t whylen)
{
	long v;
	if (sbx_read_long("/proc/sys/kernel/cap_last_cap", &v) == 0 && v >= 0 && v <= CAPS_MAX)
		return (int)v;
	for (int c = 0; c <= CAPS_MAX + 1; c++) {
		if (prctl(PR_CAPBSET_READ, (unsigned long)c, 0, 0, 0) >= 0)
			continue;
		if (errno == EINVAL && c > 0)
			return c - 1;
		snprintf(why, whylen, "PR_CAPBSET_READ %d: %s", c, strerror(errno));
		return -1;
	}
	snprintf(why, whylen, "cannot find the last capability (cap_last_cap unreadable, no EINVAL)");
	return -1;
}

static bool has_cap(const struct __user_cap_data_struct d[2], int cap, bool effective)
{
	uint32_t w = effective ? d[cap / 32].effective : d[cap / 32].permitted;
	return (w >> (cap % 32)) & 1u;
}

int sbx_caps_clear(void)
{
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof d);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -1;
	return caps_set(d);
}

bool sbx_caps_effective(int cap)
{
	struct __user_cap_data_struct d[2];
	return cap >= 0 && cap <= CAPS_MAX && caps_get(d) == 0 && has_cap(d, cap, true);
}

int sbx_caps_drop(char *why, size_t whylen)
{
	struct __user_cap_data_struct d[2];
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		snprintf(why, whylen, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
		return -1;
	}
	int last = sbx_caps_last(why, whylen);
	if (last < 0)
		return -1;
	if (caps_get(d) < 0) {
		snprintf(why, whylen, "capget: %s", strerror(errno));
		return -1;
	}
	bool setpcap = has_cap(d, CAP_SETPCAP, true);
	if (setpcap) {
		/* uid 0 must not regain capabilities at exec, nor keep them across a setuid() */
		unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
				     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED;
		if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0) {
			snprintf(why, whylen, "PR_SET_SECUREBITS: %s", strerror(errno));
			return -1;
		}
	}
	unsigned kept = 0;
	for (int c = 0; c <= last; c++) {
		int in = prctl(PR_CAPBSET_READ, (unsigned long)c, 0, 0, 0);
		if (in < 0) {
			snprintf(why, whylen, "PR_CAPBSET_READ %d: %s", c, strerror(errno));
			return -1;
		}
		if (!in)
			continue;
		if (prctl(PR_CAPBSET_DROP, (unsigned long)c, 0, 0, 0) == 0)
			continue;
		if (errno != EPERM || setpcap) {
			snprintf(why, whylen, "PR_CAPBSET_DROP %d: %s", c, strerror(errno));
			return -1;
		}
		kept++; /* unprivileged: cannot shrink the bounding set, holds nothing (checked below) */
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) {
		/* EINVAL: kernel < 4.3, no ambient set at all */
		snprintf(why, whylen, "PR_CAP_AMBIENT_CLEAR_ALL: %s", strerror(errno));
		return -1;
	}
	memset(d, 0, sizeof d);
	if (caps_set(d) < 0) {
		snprintf(why, whylen, "capset (clear all): %s", strerror(errno));
		return -1;
	}
	/* verify: a drop that did not happen must not be reported as done */
	if (caps_get(d) < 0) {
		snprintf(why, whylen, "capget: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < 2; i++)
		if (d[i].effective || d[i].permitted || d[i].inheritable) {
			snprintf(why, whylen, "capabilities still held after capset (word %d: eff %#x prm %#x inh %#x)",
				 i, d[i].effective, d[i].permitted, d[i].inheritable);
			return -1;
		}
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) {
		snprintf(why, whylen, "no_new_privs not set after PR_SET_NO_NEW_PRIVS");
		return -1;
	}
	if (kept)
		snprintf(why, whylen, "none held (unprivileged: %u bounding-set capabilities kept, no_new_privs set)",
			 kept);
	else
		snprintf(why, whylen, "dropped (bounding set emptied, no_new_privs set)");
	return 0;
}
