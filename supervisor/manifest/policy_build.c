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
#include <dirent.h>
#include <glob.h>
#include <sys/stat.h>
#include <limits.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "elfcheck.h"
#include "policy.h"
#include "audit_key.h"
#include "policy_build.h"
#include "policy_write.h"
#include "syspaths.h"

#define PB_PATH_MAX 4352 /* POL_GLOB_MAX plus room for the home prefix */

/* The system paths (read-only) are syspaths.h's list, shared with validation, explain and learn. */
/* /etc is readable as a whole (contract v2) except the secrets below. */
static const char *const etc_paths[] = { "/etc", NULL };
/* Directories whose listing (the directory itself, nothing below) is harmless and that ordinary
 * programs list: "/" (os.listdir("/"), shells completing "/", find / -maxdepth 1). */
static const char *const list_paths[] = { "/", NULL };
static const char *const dev_paths[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
	"/dev/ptmx", "/dev/pts", "/dev/shm", "/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr",
	NULL,
};
static const char *const proc_globs[] = { "/proc/self/**", "/proc/thread-self/**", "/proc/*", NULL };
/* With a pid namespace of its own (pol_build_opts.own_pidns) every /proc/<pid> is one of the run's
 * processes: listing /proc and the files ps, top and pgrep read, per process and per thread. Their
 * magic links and descriptors (root, cwd, exe, fd/, map_files/), memory (mem, maps, pagemap, ...),
 * environ (another process's environment is a secret's usual hiding place: reading it stays an
 * attempt the audit reports; ps reads it and goes on without it) and the rest stay refused.
 * "ctty" does not exist in Linux; procps asks. */
static const char *const pidns_files[] = {
	"stat", "statm", "status", "cmdline", "comm", "cgroup", "ctty", "wchan",
	"oom_score", "oom_score_adj", NULL,
};
/* Read-only kernel facts that libc and language runtimes read on their own (sysconf, malloc,
 * libcap, uuid): without them every run would log harmless libc-internal "violations". */
static const char *const runtime_paths[] = {
	"/proc/sys/kernel/ngroups_max", "/proc/sys/kernel/osrelease", "/proc/sys/kernel/ostype",
	"/proc/sys/kernel/pid_max", "/proc/sys/kernel/cap_last_cap", "/proc/sys/kernel/random",
	"/proc/sys/kernel/overflowuid", "/proc/sys/kernel/overflowgid", /* bwrap (sbxsup in sbxsup) */
	"/proc/sys/vm/overcommit_memory", "/sys/kernel/mm/transparent_hugepage",
	"/sys/devices/system/cpu", "/sys/devices/system/node", /* procps: NUMA nodes */ NULL,
};
/* System-wide secrets under /etc (the one built-in list; `explain` shows it): hard-deny globs, and
 * how bwrap masks them — `mask` names literal paths masked when they exist; `expand` asks for the
 * glob itself to be expanded on the host at build time (each existing match masked). */
static const struct { const char *glob; const char *mask; bool expand; } etc_secrets[] = {
	{ "/etc/shadow*", "/etc/shadow", true },
	{ "/etc/gshadow*", "/etc/gshadow", true },
	{ "/etc/sudoers*", "/etc/sudoers", true },
	{ "/etc/sudoers.d", "/etc/sudoers.d", false },
	{ "/etc/security/opasswd", "/etc/security/opasswd", false },
	{ "/etc/ssh/ssh_host_*_key", NULL, true },            /* host private keys (.pub stays) */
	{ "/etc/ssl/private", "/etc/ssl/private", false },
	{ "/etc/pki/tls/private", "/etc/pki/tls/private", false },
	{ "/etc/letsencrypt", "/etc/letsencrypt", false },
	{ "/etc/*.keytab", NULL, true },
	{ "/etc/NetworkManager/system-connections", "/etc/NetworkManager/system-connections", false },
	{ "/etc/wireguard", "/etc/wireguard", false },
	{ "/etc/openvpn", "/etc/openvpn", false },
	{ "/etc/wpa_supplicant", "/etc/wpa_supplicant", false },
	{ "/etc/ppp/chap-secrets", "/etc/ppp/chap-secrets", false },
	{ "/etc/ppp/pap-secrets", "/etc/ppp/pap-secrets", false },
	{ "/etc/ppp/peers", "/etc/ppp/peers", false },
	{ "/etc/ipsec.secrets", "/etc/ipsec.secrets", false },
	{ "/etc/ipsec.d/private", "/etc/ipsec.d/private", false },
	{ "/etc/swanctl/private", "/etc/swanctl/private", false },
	{ "/etc/credstore", "/etc/credstore", false },
	{ "/etc/credstore.encrypted", "/etc/credstore.encrypted", false },
	{ "/etc/postfix/sasl_passwd*", NULL, true },
	{ "/etc/samba/private", "/etc/samba/private", false },
	{ "/etc/libvirt/secrets", "/etc/libvirt/secrets", false },
	{ "/etc/docker/key.json", "/etc/docker/key.json", false },
	{ "/var/lib/sbxsup", "/var/lib/sbxsup", false },         /* root's audit key, shadow stores */
};
/* Per-user secrets, relative to the invoking user's home ("~/.ssh"): subtree rules. */
static const char *const home_secrets[] = {
	".ssh", ".gnupg", ".aws", ".config/gcloud", ".netrc", ".docker/config.json",
	".local/state/sbxsup", /* a user's audit key (audit/audit_key.h), shadow stores (shadow_store.h) */
	NULL,
};

struct pb {
	struct pol_writer *w;
	struct dx_deny *dx;        /* the manifest's denies, for deny_expand (o->deny_walk) */
	char **dx_globs;
	size_t ndx;
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

/* builtin:proc-pidns (pidns_files[]): /proc listed, and for every /proc/<pid> and its threads the
 * listing files. Globs, one component each: "/proc/ *" + "/stat" matches a pid directory, self and
 * thread-self (granted anyway) and no other procfs file of that name. */
static int pb_pidns(struct pb *b)
{
	if (pb_builtin(b, POL_R_GRANT, POL_READ | POL_W_EXACT, 0, "proc-pidns", "/proc", NULL) < 0 ||
	    pb_builtin(b, POL_R_GRANT, POL_READ, 0, "proc-pidns", "/proc/*/task", NULL) < 0 ||
	    pb_builtin(b, POL_R_GRANT, POL_READ, 0, "proc-pidns", "/proc/*/task/*", NULL) < 0)
		return -1;
	for (size_t i = 0; pidns_files[i]; i++) {
		char g[64];
		snprintf(g, sizeof g, "/proc/*/%s", pidns_files[i]);
		if (pb_builtin(b, POL_R_GRANT, POL_READ, 0, "proc-pidns", g, NULL) < 0)
			return -1;
		snprintf(g, sizeof g, "/proc/*/task/*/%s", pidns_files[i]);
		if (pb_builtin(b, POL_R_GRANT, POL_READ, 0, "proc-pidns", g, NULL) < 0)
			return -1;
	}
	return 0;
}

/* Readable dirs get exec in the dir table under code:exec. */
static unsigned rdir(const struct pb *b)
{
	return POL_READ | (b->code_exec ? POL_EXEC : 0);
}

/* Does a secret glob cover `path` itself (then it is left out), or lie below it (then `path` is
 * entered and its entries listed one by one)? */
static bool secret_covers(const char *path)
{
	for (size_t i = 0; i < sizeof etc_secrets / sizeof etc_secrets[0]; i++) {
		const char *g = etc_secrets[i].glob;
		/* cheap reject first (this runs for every entry of /etc): "*" and "?" are the only
		 * magic characters, the ones before them match only themselves */
		if (strncmp(g, path, strcspn(g, "*?")) != 0)
			continue;
		size_t n = pol_glob_literal_prefix(g);
		if (pol_glob_match(g, path) ||
		    (!pol_glob_has_magic(g) && strncmp(g, path, n) == 0 && path[n] == '/'))
			return true;
	}
	return false;
}

static bool secret_below(const char *path)
{
	size_t pl = strlen(path);
	for (size_t i = 0; i < sizeof etc_secrets / sizeof etc_secrets[0]; i++) {
		const char *g = etc_secrets[i].glob;
		size_t n = pol_glob_literal_prefix(g);
		if (n >= pl && strncmp(g, path, pl) == 0 && (n == pl || g[pl] == '/'))
			return true;
	}
	return false;
}

/* Directory-table entries for a tree readable "except its secrets" (/etc): the directory-level
 * layers cannot subtract a file from a granted directory, so the tree is listed entry by entry
 * on the host at build time, entering only the directories that hold a secret and leaving the
 * secrets themselves out (bwrap binds each entry; Landlock grants each one; each directory entered
 * gets a POL_LIST entry so that listing it still works under Landlock — READ_DIR is hierarchical
 * there, so names below it, not contents, are listable). The tree's root entry also carries POL_TREE:
 * bwrap binds the tree once and relies on the masks (every secret below has one: a literal mask or
 * its glob expanded on the host), since one bind per entry costs bwrap a mountinfo parse each. Links into /proc,
 * /sys or /dev (/etc/mtab) are left out: their targets are not this tree's. The policy rule itself
 * stays the whole tree (files created later are readable through the preload). */
static int pb_dirs_except_secrets(struct pb *b, const char *dir, unsigned access, uint32_t rule,
				  int depth)
{
	if (!secret_below(dir) || depth > 4) {
		if (pol_writer_dir(b->w, dir, access, rule) < 0)
			return pb_writer_failed(b);
		return 0;
	}
	DIR *d = opendir(dir);
	if (d == NULL)
		return 0; /* absent or unreadable: nothing for the directory layers */
	/* ls /etc still works under Landlock; the root of the tree is marked POL_TREE for bwrap, which
	 * binds it whole and masks the secrets (policy.h) */
	if (pol_writer_dir(b->w, dir, POL_LIST | (depth == 0 ? POL_TREE : 0), rule) < 0) {
		closedir(d);
		return pb_writer_failed(b);
	}
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char path[PB_PATH_MAX], t[64];
		if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
			continue;
		if (secret_covers(path))
			continue;
		/* d_type spares a readlink and an lstat per entry where the file system fills it */
		ssize_t tl = e->d_type == DT_LNK || e->d_type == DT_UNKNOWN
				     ? readlink(path, t, sizeof t - 1) : -1;
		if (tl > 0) {
			t[tl] = 0;
			if (strstr(t, "/proc/") || strstr(t, "/sys/") || strstr(t, "/dev/"))
				continue;
		}
		struct stat st;
		bool isdir = e->d_type == DT_DIR ||
			     (e->d_type == DT_UNKNOWN && lstat(path, &st) == 0 && S_ISDIR(st.st_mode));
		if (isdir)
			rc = pb_dirs_except_secrets(b, path, access, rule, depth + 1);
		else if (pol_writer_dir(b->w, path, access, rule) < 0)
			rc = pb_writer_failed(b);
	}
	closedir(d);
	return rc;
}

/* The command named after "--": readable and executable whatever the manifest says (rule
 * "builtin:command: PATH", that file only), as given and with its symbolic links resolved (the
 * preload and the probes decide on the resolved file). */
static bool under_dir(const char *path, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;
	return n > 0 && strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static int pb_command(struct pb *b, const char *cmd)
{
	if (cmd == NULL || cmd[0] != '/')
		return 0;
	unsigned acc = POL_READ | POL_EXEC | POL_W_EXACT;
	char real[PATH_MAX];
	bool have_real = realpath(cmd, real) != NULL;
	/* The directory layers get the resolved file, unless a directory they already bind holds it
	 * (binding /bin/sh over the sandbox's /bin -> usr/bin link would fail). */
	const char *f = have_real ? real : cmd;
	bool covered = under_dir(f, b->m->workspace) || under_dir(f, b->m->code_dir) ||
		       under_dir(f, "/etc");
	for (size_t i = 0; sys_path(i) && !covered; i++)
		covered = under_dir(f, sys_path(i));
	unsigned da = covered ? 0 : POL_READ | POL_EXEC;
	if (pb_builtin(b, POL_R_GRANT, acc, have_real && strcmp(real, cmd) ? 0 : da, "command", cmd,
		       NULL) < 0)
		return -1;
	if (have_real && strcmp(real, cmd) != 0 &&
	    pb_builtin(b, POL_R_GRANT, acc, da, "command", real, NULL) < 0)
		return -1;
	return 0;
}

static int pb_grants(struct pb *b, const struct pol_build_opts *o)
{
	const struct manifest *m = b->m;
	unsigned rx = POL_READ | POL_EXEC, rw = POL_READ | POL_WRITE;
	const char *tmp = o->tmp_dir ? o->tmp_dir : "/tmp";

	for (size_t i = 0; sys_path(i); i++)
		if (pb_builtin(b, POL_R_GRANT, POL_READ, rx, "system", sys_path(i), NULL) < 0)
			return -1;
	if (m->code_dir != NULL &&
	    pb_builtin(b, POL_R_GRANT, POL_READ, rx, "code", m->code_dir, NULL) < 0)
		return -1;
	for (size_t i = 0; etc_paths[i]; i++) {
		char text[PB_PATH_MAX + 64];
		uint32_t idx;
		snprintf(text, sizeof text, "builtin:etc: %s", etc_paths[i]);
		if (pb_rule(b, POL_R_GRANT, POL_READ, 0, etc_paths[i], text, &idx) < 0 ||
		    pb_dirs_except_secrets(b, etc_paths[i], rdir(b), idx, 0) < 0)
			return -1;
		/* bwrap creates /etc/ld.so.preload inside the sandbox; Landlock must let ld.so read it */
		if (pol_writer_dir(b->w, "/etc/ld.so.preload", POL_READ, idx) < 0)
			return pb_writer_failed(b);
	}
	for (size_t i = 0; list_paths[i]; i++)
		if (pb_builtin(b, POL_R_GRANT, POL_READ | POL_W_EXACT, o->private_root ? POL_LIST : 0,
			       "list", list_paths[i], NULL) < 0)
			return -1;
	if (pb_command(b, o->command) < 0)
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
	if (o->own_pidns && pb_pidns(b) < 0)
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
			char nw[256];
			if (s == 0 && sys_write_conflicts(h->abs, m->workspace, nw, sizeof nw))
				return pb_fail(b, "%s: fs:write would include %s, never writable", text, nw);
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

/* Masks for every existing host file a secret glob matches (bwrap cannot match globs). */
static int pb_mask_glob(struct pb *b, const char *pattern, const char *already, uint32_t rule)
{
	glob_t g;
	if (glob(pattern, GLOB_NOSORT, NULL, &g) != 0)
		return 0; /* no match (or unreadable dir): nothing to mask */
	int rc = 0;
	for (size_t i = 0; i < g.gl_pathc && rc == 0; i++)
		if ((already == NULL || strcmp(g.gl_pathv[i], already) != 0) &&
		    pol_writer_mask(b->w, g.gl_pathv[i], rule) < 0)
			rc = pb_writer_failed(b);
	globfree(&g);
	return rc;
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
		if (etc_secrets[i].mask != NULL && pol_writer_mask(b->w, etc_secrets[i].mask, idx) < 0)
			return pb_writer_failed(b);
		if (etc_secrets[i].expand && pb_mask_glob(b, etc_secrets[i].glob, etc_secrets[i].mask,
							  idx) < 0)
			return -1;
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
	/* sbxsup's own state directory where $XDG_STATE_HOME moves it elsewhere (audit_key.h): the
	 * audit key and the shadow workspaces' stores (shadow_store.h) */
	char sdir[PB_PATH_MAX], serr[160];
	size_t hl = strlen(m->home);
	if (audit_key_dir(sdir, sizeof sdir, serr, sizeof serr) == 0 && sdir[0] == '/' &&
	    !(!strncmp(sdir, m->home, hl) && !strcmp(sdir + hl, "/.local/state/sbxsup")) &&
	    strcmp(sdir, "/var/lib/sbxsup")) {
		snprintf(text, sizeof text, "builtin:secret: %s", "$XDG_STATE_HOME/sbxsup");
		if (pb_rule(b, POL_R_HARD_DENY, 0, 0, sdir, text, &idx) < 0 ||
		    pb_norm(b, text, sdir, norm) < 0 || pb_mask_for(b, norm, idx) < 0)
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
		if (b->dx && (b->dx_globs[b->ndx] = strdup(norm)) == NULL)
			return pb_fail(b, "out of memory");
		if (b->dx) {
			b->dx[b->ndx].glob = b->dx_globs[b->ndx];
			b->dx[b->ndx++].rule = idx;
		}
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
	if (resolve && h->name[0] != '*') { /* a wildcard names no address: the gateway resolves its names */
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

/* The run's own network namespace (docs/network.md): every TCP connect on a granted port reaches
 * the gateway, which decides by name (DNS answers it gave, TLS SNI, HTTP Host) and reports; so
 * every layer lets any address through on a granted port ("builtin:gateway: *:PORT", 0.0.0.0/0 and
 * ::/0), and the names the gateway answers may change during the run. Other ports stay refused
 * and reported by the layers. DNS goes to the run's own stub (its loopback, pol_own_netns): no
 * host resolver is granted. */
static int pb_gateway(struct pb *b, bool every_port)
{
	static const uint8_t zero[16];
	uint16_t seen[64];
	size_t ns = 0;
	bool portless = false;
	for (size_t i = 0; i < b->m->nhosts; i++)
		portless |= b->m->hosts[i].port == 0;
	for (size_t i = 0; i < b->m->nhosts + 1; i++) {
		/* (the last round: a host granted without a port, where nftables redirects every port) */
		uint16_t port = i < b->m->nhosts ? b->m->hosts[i].port : 0;
		size_t j;
		for (j = 0; j < ns && seen[j] != port; j++)
			;
		if (i == b->m->nhosts ? !(portless && every_port)
				      : (!port || j < ns || ns == sizeof seen / sizeof seen[0]))
			continue;
		if (port)
			seen[ns++] = port;
		char text[64], shown[16];
		uint32_t rule;
		if (port)
			snprintf(shown, sizeof shown, "*:%u", port);
		else
			snprintf(shown, sizeof shown, "*:*");
		snprintf(text, sizeof text, "builtin:gateway: %s", shown);
		if (pol_writer_net_rule(b->w, shown, text, &rule) < 0)
			return pb_writer_failed(b);
		if (pb_net_entry(b, AF_INET, zero, 0, port, NULL, rule) < 0 ||
		    pb_net_entry(b, AF_INET6, zero, 0, port, NULL, rule) < 0)
			return -1;
	}
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
	if (o->own_netns)
		return pb_gateway(b, o->gw_every_port);
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
	struct stat sst;
	if (o->stage_exe != NULL && stat(o->stage_exe, &sst) == 0)
		pol_writer_stage(b.w, (uint64_t)sst.st_dev, (uint64_t)sst.st_ino);
	pol_writer_abstract_inside(b.w, o->own_netns);
	pol_writer_own_pidns(b.w, o->own_pidns);
	if (o->deny_walk && m->ndenies &&
	    (!(b.dx = calloc(m->ndenies, sizeof *b.dx)) || !(b.dx_globs = calloc(m->ndenies, sizeof *b.dx_globs)))) {
		pb_fail(&b, "out of memory");
		goto out;
	}
	if (pb_grants(&b, o) < 0 || pb_denies(&b) < 0)
		goto out;
	if (o->deny_walk && deny_expand(b.w, b.dx, b.ndx, ws, DX_BUDGET, o->deny_walk) < 0) {
		pb_writer_failed(&b);
		goto out;
	}
	if (mode == POL_NET_LIST && pb_net(&b, o) < 0)
		goto out;
	if (pol_writer_finish(b.w, blob, len, NULL, 0) < 0) {
		pb_writer_failed(&b);
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; b.dx_globs && i < b.ndx; i++)
		free(b.dx_globs[i]);
	free(b.dx_globs);
	free(b.dx);
	pol_writer_free(b.w);
	if (rc < 0)
		errno = EINVAL;
	return rc;
}

const char *pol_build_secret(size_t i, char *buf, size_t len)
{
	size_t ne = sizeof etc_secrets / sizeof etc_secrets[0], nh = 0;
	while (home_secrets[nh] != NULL)
		nh++;
	if (i < ne)
		return etc_secrets[i].glob;
	if (i - ne < nh && buf != NULL && len > 0) {
		snprintf(buf, len, "~/%s", home_secrets[i - ne]);
		return buf;
	}
	return NULL;
}

int pol_command_path(const char *cmd, const char *path_env, char *out, size_t outlen)
{
	struct sbx_elf_info *ei = calloc(1, sizeof *ei);
	int rc = -1;
	if (out == NULL || outlen == 0 || cmd == NULL || ei == NULL)
		goto done;
	out[0] = '\0';
	if (sbx_elf_inspect_env(cmd, path_env, ei) < 0)
		goto done;
	if (ei->path[0] == '/') {
		if (strlen(ei->path) < outlen) {
			strcpy(out, ei->path);
			rc = 0;
		}
	} else {
		char real[PATH_MAX];
		if (realpath(ei->path, real) != NULL && strlen(real) < outlen) {
			strcpy(out, real);
			rc = 0;
		}
	}
done:
	free(ei);
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

int pol_check(const struct manifest *m, uid_t uid, char *err, size_t errlen)
{
	void *blob = NULL;
	size_t len = 0;
	const char *why = NULL;
	char e[512] = "";
	struct pol_build_opts bo = {.resolve = false, .uid = uid};
	int rc = 0;
	if (pol_build(m, &bo, &blob, &len, e, sizeof e) < 0) {
		snprintf(err, errlen, "cannot compile the policy: %s", e);
		rc = -1;
	} else if (!pol_open(blob, len, &why)) {
		snprintf(err, errlen, "the compiled policy does not verify: %s", why ? why : "?");
		rc = -1;
	}
	free(blob);
	return rc;
}
