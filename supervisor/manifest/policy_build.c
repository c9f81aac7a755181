/* policy_build.c — manifest -> compiled policy blob (contract: policy_build.h).
 *
 * Promise: one function turns a struct manifest into the rule set every layer evaluates: the
 * SPEC's built-in rules, then the manifest's hints, denies and hosts, laid out by the policy
 * writer (policy_write.c). Any rule that cannot be expressed (non-absolute path, glob over 4096
 * bytes) fails the build with a message naming it; nothing is silently dropped. Host names that
 * do not resolve keep their name rule (the preload gates resolution by name) but get no address
 * entry, so the kernel layers refuse them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "policy.h"
#include "policy_build.h"
#include "policy_format.h"

#define PB_PATH_MAX 4352 /* POL_GLOB_MAX plus room for the home prefix */

static const char *const sys_paths[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/opt", "/var/lib/python3", NULL,
};
static const char *const etc_paths[] = {
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload",
	"/etc/passwd", "/etc/group", "/etc/hosts", "/etc/host.conf", "/etc/resolv.conf",
	"/etc/nsswitch.conf", "/etc/gai.conf", "/etc/services", "/etc/protocols", "/etc/ssl",
	"/etc/ca-certificates", "/etc/localtime", "/etc/timezone", "/etc/alternatives",
	"/etc/locale.alias", "/etc/locale.conf", "/etc/default/locale", "/etc/mime.types", NULL,
};
static const char *const dev_paths[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
	"/dev/ptmx", "/dev/pts", "/dev/shm", "/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr",
	NULL,
};
static const char *const proc_globs[] = { "/proc/self/**", "/proc/thread-self/**", "/proc/*", NULL };
/* Read-only kernel facts that libc and language runtimes read on their own (sysconf, malloc,
 * libcap, uuid): without them every run would log harmless libc-internal "violations". */
static const char *const runtime_paths[] = {
	"/proc/sys/kernel/ngroups_max", "/proc/sys/kernel/osrelease", "/proc/sys/kernel/ostype",
	"/proc/sys/kernel/pid_max", "/proc/sys/kernel/cap_last_cap", "/proc/sys/kernel/random",
	"/proc/sys/kernel/overflowuid", "/proc/sys/kernel/overflowgid", /* bwrap (sbxsup in sbxsup) */
	"/proc/sys/vm/overcommit_memory", "/sys/kernel/mm/transparent_hugepage",
	"/sys/devices/system/cpu", NULL,
};
/* System-wide secrets: glob, and the literal paths bwrap masks when they exist. */
static const struct { const char *glob; const char *mask[2]; } etc_secrets[] = {
	{ "/etc/shadow*", { "/etc/shadow", NULL } },
	{ "/etc/gshadow*", { "/etc/gshadow", NULL } },
	{ "/etc/sudoers*", { "/etc/sudoers", NULL } },
	{ "/etc/sudoers.d", { "/etc/sudoers.d", NULL } },
};
/* Per-user secrets, relative to the invoking user's home ("~/.ssh"): subtree rules. */
static const char *const home_secrets[] = {
	".ssh", ".gnupg", ".aws", ".config/gcloud", ".netrc", ".docker/config.json", NULL,
};

struct pb {
	struct pol_writer *w;
	const struct manifest *m;
	bool code_exec;
	char *err;
	size_t errlen;
	bool failed;
};

static int pb_fail(struct pb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int pb_fail(struct pb *b, const char *fmt, ...)
{
	if (!b->failed && b->err != NULL && b->errlen > 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(b->err, b->errlen, fmt, ap);
		va_end(ap);
	}
	b->failed = true;
	return -1;
}

/* The writer's first error, as our error. */
static int pb_writer_failed(struct pb *b)
{
	const char *e = pol_writer_error(b->w);
	return pb_fail(b, "%s", e ? e : "policy writer failed");
}

/* Normalise an absolute path or glob into out (PB_PATH_MAX). */
static int pb_norm(struct pb *b, const char *what, const char *path, char *out)
{
	if (path == NULL || path[0] != '/')
		return pb_fail(b, "%s: not an absolute path: %s", what, path ? path : "(null)");
	if (pol_normalize("/", path, out, PB_PATH_MAX) < 0 || strlen(out) > POL_GLOB_MAX)
		return pb_fail(b, "%s: longer than %u bytes", what, POL_GLOB_MAX);
	return 0;
}

/* The directory-level truncation of an absolute glob: before its first glob component; "/" when
 * the first component already holds one (as the manifest's mf_hint_dir, which warns about it). */
static void glob_dir(const char *glob, char *out)
{
	size_t n = pol_glob_literal_prefix(glob);
	if (n == 0) {
		strcpy(out, "/");
		return;
	}
	memcpy(out, glob, n);
	out[n] = '\0';
}

/* Adds a path rule; for grants also the directory entry (dir_access). */
static int pb_rule(struct pb *b, enum pol_rule_kind kind, unsigned access, unsigned dir_access,
		   const char *path, const char *text, uint32_t *idx)
{
	char norm[PB_PATH_MAX], dir[PB_PATH_MAX];
	uint32_t i;
	if (pb_norm(b, text, path, norm) < 0)
		return -1;
	if (pol_writer_rule(b->w, kind, access, norm, text, &i) < 0)
		return pb_writer_failed(b);
	if (kind == POL_R_GRANT && dir_access != 0) {
		glob_dir(norm, dir);
		if (pol_writer_dir(b->w, dir, dir_access, i) < 0)
			return pb_writer_failed(b);
	}
	if (idx != NULL)
		*idx = i;
	return 0;
}

static int pb_builtin(struct pb *b, enum pol_rule_kind kind, unsigned access, unsigned dir_access,
		      const char *tag, const char *path, const char *shown)
{
	char text[PB_PATH_MAX + 64];
	snprintf(text, sizeof text, "builtin:%s: %s", tag, shown ? shown : path);
	return pb_rule(b, kind, access, dir_access, path, text, NULL);
}

/* Readable dirs get exec in the dir table under code:exec. */
static unsigned rdir(const struct pb *b)
{
	return POL_READ | (b->code_exec ? POL_EXEC : 0);
}

static int pb_grants(struct pb *b, const struct pol_build_opts *o)
{
	const struct manifest *m = b->m;
	unsigned rx = POL_READ | POL_EXEC, rw = POL_READ | POL_WRITE;
	const char *tmp = o->tmp_dir ? o->tmp_dir : "/tmp";

	for (size_t i = 0; sys_paths[i]; i++)
		if (pb_builtin(b, POL_R_GRANT, POL_READ, rx, "system", sys_paths[i], NULL) < 0)
			return -1;
	if (m->code_dir != NULL &&
	    pb_builtin(b, POL_R_GRANT, POL_READ, rx, "code", m->code_dir, NULL) < 0)
		return -1;
	for (size_t i = 0; etc_paths[i]; i++)
		if (pb_builtin(b, POL_R_GRANT, POL_READ, rdir(b), "etc", etc_paths[i], NULL) < 0)
			return -1;
	for (size_t i = 0; o->extra_read != NULL && o->extra_read[i] != NULL; i++)
		if (pb_builtin(b, POL_R_GRANT, POL_READ, rx, "sbxsup", o->extra_read[i], NULL) < 0)
			return -1;
	for (size_t i = 0; o->extra_write != NULL && o->extra_write[i] != NULL; i++)
		if (pb_builtin(b, POL_R_GRANT, POL_WRITE, 0, "report", o->extra_write[i], NULL) < 0)
			return -1;
	if (m->workspace == NULL)
		return pb_fail(b, "manifest has no workspace");
	if (pb_builtin(b, POL_R_GRANT, rw, rw | POL_EXEC, "workspace", m->workspace, NULL) < 0 ||
	    pb_builtin(b, POL_R_GRANT, rw, rw | (b->code_exec ? POL_EXEC : 0), "tmp", tmp, NULL) < 0)
		return -1;
	for (size_t i = 0; dev_paths[i]; i++)
		if (pb_builtin(b, POL_R_GRANT, rw, rw, "dev", dev_paths[i], NULL) < 0)
			return -1;
	for (size_t i = 0; proc_globs[i]; i++)
		if (pb_builtin(b, POL_R_GRANT, POL_READ, POL_READ, "proc", proc_globs[i], NULL) < 0)
			return -1;
	for (size_t i = 0; runtime_paths[i]; i++)
		if (pb_builtin(b, POL_R_GRANT, POL_READ, POL_READ, "runtime", runtime_paths[i], NULL) < 0)
			return -1;

	const struct { const struct mf_hint *h; size_t n; unsigned access; } sets[] = {
		{ m->writes, m->nwrites, rw }, { m->reads, m->nreads, POL_READ },
	};
	for (size_t s = 0; s < 2; s++) {
		for (size_t i = 0; i < sets[s].n; i++) {
			const struct mf_hint *h = &sets[s].h[i];
			char text[PB_PATH_MAX + 128];
			snprintf(text, sizeof text, "%s: %s", h->jpath ? h->jpath : "hint",
				 h->glob ? h->glob : (h->abs ? h->abs : ""));
			unsigned da = sets[s].access | (b->code_exec ? POL_EXEC : 0);
			if (pb_rule(b, POL_R_GRANT, sets[s].access, da, h->abs, text, NULL) < 0)
				return -1;
		}
	}
	return 0;
}

/* Mask entry for a hard deny that covers a whole directory/file: the literal path itself, or a
 * glob "LITERAL/" "**". Other globs cannot be masked (the preload and probes still match them). */
static int pb_mask_for(struct pb *b, const char *norm, uint32_t rule)
{
	size_t n = pol_glob_literal_prefix(norm);
	bool whole = !pol_glob_has_magic(norm) || strcmp(norm + n, "/**") == 0;
	if (!whole || n <= 1)
		return 0;
	char dir[PB_PATH_MAX];
	memcpy(dir, norm, n);
	dir[n] = '\0';
	if (pol_writer_mask(b->w, dir, rule) < 0)
		return pb_writer_failed(b);
	return 0;
}

static int pb_denies(struct pb *b)
{
	const struct manifest *m = b->m;
	char text[PB_PATH_MAX + 128], path[PB_PATH_MAX], norm[PB_PATH_MAX];
	uint32_t idx;

	for (size_t i = 0; i < sizeof etc_secrets / sizeof etc_secrets[0]; i++) {
		snprintf(text, sizeof text, "builtin:secret: %s", etc_secrets[i].glob);
		if (pb_rule(b, POL_R_HARD_DENY, 0, 0, etc_secrets[i].glob, text, &idx) < 0)
			return -1;
		for (size_t k = 0; k < 2 && etc_secrets[i].mask[k]; k++)
			if (pol_writer_mask(b->w, etc_secrets[i].mask[k], idx) < 0)
				return pb_writer_failed(b);
	}
	if (m->home == NULL || m->home[0] != '/')
		return pb_fail(b, "manifest has no absolute home directory");
	for (size_t i = 0; home_secrets[i]; i++) {
		snprintf(text, sizeof text, "builtin:secret: ~/%s", home_secrets[i]);
		if ((size_t)snprintf(path, sizeof path, "%s/%s", m->home, home_secrets[i]) >=
		    sizeof path)
			return pb_fail(b, "home directory path too long");
		if (pb_rule(b, POL_R_HARD_DENY, 0, 0, path, text, &idx) < 0 ||
		    pb_norm(b, text, path, norm) < 0 || pb_mask_for(b, norm, idx) < 0)
			return -1;
	}
	for (size_t i = 0; i < m->ndenies; i++) {
		const struct mf_hint *h = &m->denies[i];
		const char *g = h->glob ? h->glob : h->abs;
		snprintf(text, sizeof text, "%s: %s", h->jpath ? h->jpath : "deny", g ? g : "");
		const char *src = h->abs;
		/* "**" + "/.env" as written: anywhere, not only under the workspace. */
		if (g != NULL && g[0] == '*' && g[1] == '*' && (g[2] == '/' || g[2] == '\0')) {
			if ((size_t)snprintf(path, sizeof path, "/%s", g) >= sizeof path)
				return pb_fail(b, "%s: longer than %u bytes", text, POL_GLOB_MAX);
			src = path;
		}
		if (pb_rule(b, POL_R_HARD_DENY, 0, 0, src, text, &idx) < 0 ||
		    pb_norm(b, text, src, norm) < 0 || pb_mask_for(b, norm, idx) < 0)
			return -1;
	}
	if (pb_builtin(b, POL_R_SOFT_DENY, 0, 0, "home-blanket", "/root", NULL) < 0 ||
	    pb_builtin(b, POL_R_SOFT_DENY, 0, 0, "home-blanket", "/home/*/**", "/home/*") < 0)
		return -1;
	return 0;
}

/* ---- network --------------------------------------------------------------------------------- */

static void fmt_addr(int family, const uint8_t *a, uint16_t port, char *out, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	inet_ntop(family, a, ip, sizeof ip);
	if (family == AF_INET6)
		snprintf(out, len, "[%s]:%u", ip, port);
	else
		snprintf(out, len, "%s:%u", ip, port);
}

static int pb_net_entry(struct pb *b, int family, const uint8_t *addr, uint8_t prefix,
			uint16_t port, const char *name, uint32_t rule)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	struct pol_net n = { .family = family, .prefix = prefix, .port = port, .rule = rule,
			     .is_name = name != NULL, .name = name };
	if (family == AF_INET) {
		memcpy(n.addr, addr, 4);
	} else if (family == AF_INET6) {
		if (memcmp(addr, mapped, 12) == 0 && prefix >= 96) {
			/* Decided as IPv4 everywhere: store it as IPv4. */
			n.family = AF_INET;
			memcpy(n.addr, addr + 12, 4);
			n.prefix = (uint8_t)(prefix - 96);
		} else {
			memcpy(n.addr, addr, 16);
		}
	}
	if (pol_writer_net(b->w, &n) < 0)
		return pb_writer_failed(b);
	return 0;
}

static int pb_resolve(struct pb *b, const struct mf_host *h, uint32_t rule, bool resolve)
{
	size_t added = 0;
	if (resolve) {
		struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
		struct addrinfo *res = NULL;
		if (getaddrinfo(h->name, NULL, &hints, &res) == 0) {
			for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
				const uint8_t *a;
				uint8_t len;
				if (ai->ai_family == AF_INET) {
					a = (const uint8_t *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr;
					len = 32;
				} else if (ai->ai_family == AF_INET6) {
					a = (const uint8_t *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;
					len = 128;
				} else {
					continue;
				}
				if (pb_net_entry(b, ai->ai_family, a, len, h->port, h->name, rule) < 0) {
					freeaddrinfo(res);
					return -1;
				}
				added++;
			}
			freeaddrinfo(res);
		}
	}
	if (added == 0) {
		static const uint8_t zero[16];
		return pb_net_entry(b, 0, zero, 0, h->port, h->name, rule);
	}
	return 0;
}

static int pb_dns(struct pb *b, const char *resolv_conf)
{
	FILE *f = fopen(resolv_conf, "re");
	if (f == NULL)
		return 0; /* no resolvers: names simply cannot be resolved in the sandbox */
	char line[512];
	while (fgets(line, sizeof line, f) != NULL) {
		char ip[96]; /* %79s below: 80 bytes with the NUL */
		if (sscanf(line, " nameserver %79s", ip) != 1)
			continue;
		char *pct = strchr(ip, '%'); /* fe80::1%eth0 */
		if (pct != NULL)
			*pct = '\0';
		uint8_t a[16];
		int fam = inet_pton(AF_INET, ip, a) == 1 ? AF_INET
			: inet_pton(AF_INET6, ip, a) == 1 ? AF_INET6 : 0;
		if (fam == 0)
			continue;
		char text[128], shown[80];
		uint32_t rule;
		fmt_addr(fam, a, 53, shown, sizeof shown);
		snprintf(text, sizeof text, "builtin:dns: %s", shown);
		if (pol_writer_net_rule(b->w, shown, text, &rule) < 0) {
			fclose(f);
			return pb_writer_failed(b);
		}
		if (pb_net_entry(b, fam, a, fam == AF_INET ? 32 : 128, 53, NULL, rule) < 0) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

static int pb_net(struct pb *b, const struct pol_build_opts *o)
{
	const struct manifest *m = b->m;
	bool any_name = false;
	for (size_t i = 0; i < m->nhosts; i++) {
		const struct mf_host *h = &m->hosts[i];
		char text[600];
		uint32_t rule;
		snprintf(text, sizeof text, "%s: %s", h->jpath ? h->jpath : "host",
			 h->text ? h->text : "");
		if (pol_writer_net_rule(b->w, h->text ? h->text : "", text, &rule) < 0)
			return pb_writer_failed(b);
		switch (h->kind) {
		case MF_HOST_NAME:
			if (h->name == NULL || h->name[0] == '\0')
				return pb_fail(b, "%s: host name missing", text);
			any_name = true;
			if (pb_resolve(b, h, rule, o->resolve) < 0)
				return -1;
			break;
		case MF_HOST_V4:
			if (h->prefix > 32)
				return pb_fail(b, "%s: prefix length out of range", text);
			if (pb_net_entry(b, AF_INET, h->addr, h->prefix, h->port, NULL, rule) < 0)
				return -1;
			break;
		case MF_HOST_V6:
			if (h->prefix > 128)
				return pb_fail(b, "%s: prefix length out of range", text);
			if (pb_net_entry(b, AF_INET6, h->addr, h->prefix, h->port, NULL, rule) < 0)
				return -1;
			break;
		default:
			return pb_fail(b, "%s: unknown host kind", text);
		}
	}
	if (any_name)
		return pb_dns(b, o->resolv_conf ? o->resolv_conf : "/etc/resolv.conf");
	return 0;
}

int pol_build(const struct manifest *m, const struct pol_build_opts *o, void **blob, size_t *len,
	      char *err, size_t errlen)
{
	static const struct pol_build_opts defaults;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (blob == NULL || len == NULL) {
		errno = EINVAL;
		return -1;
	}
	*blob = NULL;
	*len = 0;
	if (o == NULL)
		o = &defaults;
	struct pb b = { .m = m, .err = err, .errlen = errlen };
	if (m == NULL)
		return pb_fail(&b, "no manifest");
	b.code_exec = m->code_exec;
	b.w = pol_writer_new();
	if (b.w == NULL)
		return pb_fail(&b, "out of memory");

	enum pol_net_mode mode = !m->net_granted ? POL_NET_NONE
			       : m->net_any ? POL_NET_ANY : POL_NET_LIST;
	char ws[PB_PATH_MAX], home[PB_PATH_MAX];
	int rc = -1;
	if (pb_norm(&b, "workspace", m->workspace, ws) < 0 ||
	    pb_norm(&b, "home", m->home, home) < 0)
		goto out;
	if (pol_writer_meta(b.w, m->name, ws, home, m->code_exec, mode) < 0) {
		pb_writer_failed(&b);
		goto out;
	}
	if (pb_grants(&b, o) < 0 || pb_denies(&b) < 0)
		goto out;
	if (mode == POL_NET_LIST && pb_net(&b, o) < 0)
		goto out;
	if (pol_writer_finish(b.w, blob, len, NULL, 0) < 0) {
		pb_writer_failed(&b);
		goto out;
	}
	rc = 0;
out:
	pol_writer_free(b.w);
	if (rc < 0)
		errno = EINVAL;
	return rc;
}

int pol_to_sealed_memfd(const void *blob, size_t len)
{
	int fd = memfd_create("sbxsup-policy", MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	const char *p = blob;
	size_t off = 0;
	while (off < len) {
		ssize_t n = write(fd, p + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			close(fd);
			errno = e;
			return -1;
		}
		off += (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0 ||
	    lseek(fd, 0, SEEK_SET) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}
