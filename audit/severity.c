/* severity.c — the one severity table (see severity.h). Ordered: the first matching entry decides.
 * Patterns are fnmatch(3) globs without FNM_PATHNAME ('*' also matches '/'); a list is
 * NULL-terminated; a NULL list matches anything. Rule texts are those of policy/policy.h
 * pol_rule_text() (manifest rules "deny[N]: GLOB", "builtin:secret: ...", "builtin:home-blanket:
 * ...", "default: not granted", "network: no capability", "no code:exec capability", ...) and of
 * the probes (probes_decode.h: "escape-class syscall", "signal outside the run", "abstract unix
 * socket", "probes: ... (unverifiable)").
 */
#include <fnmatch.h>
#include <string.h>
#include "severity.h"

static const char *const names[] = { NULL, "info", "low", "medium", "high", "critical" };

const char *sbx_sev_name(enum sbx_sev s)
{
	return (s > SBX_SEV_NONE && s <= SBX_SEV_CRITICAL) ? names[s] : NULL;
}

int sbx_sev_parse(const char *name)
{
	for (int i = SBX_SEV_INFO; name && i <= SBX_SEV_CRITICAL; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})
/* accesses that only look: a benign probe never writes or executes */
#define LOOK L("read", "connect")

struct entry {
	const char *id;
	enum sbx_sev sev;
	const char *why;
	const char *const *events;   /* event names */
	const char *const *rules;    /* rule text globs */
	const char *const *paths;    /* path globs (an event without "path" does not match) */
	const char *const *access;   /* access values */
	const char *const *ops;      /* "op" (preload) values */
	const char *outcome;
	int net;                     /* 1: the event names a network peer (addr, port or host) */
	const char *const *addrs;    /* "addr" globs (an event without "addr" does not match) */
	int port0;                   /* 1: only an event whose "port" is 0 (an ephemeral port) */
};

/* The home-relative secrets of the built-in never-readable list, and the /etc ones, by path: a
 * stream from an older writer or another rule text still ranks a secret read first. */
#define SECRET_PATHS                                                                                  \
	L("/etc/shadow*", "/etc/gshadow*", "/etc/sudoers*", "/etc/ssh/ssh_host_*key",                 \
	  "/etc/ssl/private", "/etc/ssl/private/*", "*.keytab", "/root/.ssh", "/root/.ssh/*",           \
	  "*/.ssh", "*/.ssh/*", "*/.gnupg", "*/.gnupg/*", "*/.aws", "*/.aws/*", "*/.config/gcloud",      \
	  "*/.config/gcloud/*", "*/.netrc", "*/.docker/config.json", "/etc/NetworkManager/system-connections/*")

static const struct entry table[] = {
	{"breach", SBX_SEV_CRITICAL, "a policy-violating call succeeded in the kernel",
	 NULL, NULL, NULL, NULL, NULL, "breach", 0, NULL, 0},
	/* contract version 3: nothing the executor leaves behind may gain privilege (policy.h
	 * POL_PRIV_*); refused in every mode, an attempt is an alarm */
	{"privilege", SBX_SEV_CRITICAL, "tried to create a setuid/setgid bit, a device node or a file capability",
	 NULL, L("privilege:*"), NULL, NULL, NULL, NULL, 0, NULL, 0},
	/* a directory walk (pip's distro probe lists /etc and stats every entry): the name and the
	 * metadata of a secret, never its content — a denial worth a line, not an alarm */
	{"secret-metadata", SBX_SEV_LOW, "looked at a secret's metadata (stat/access/readlink), not its content",
	 NULL, L("builtin:secret:*", "deny[[]*"), NULL, L("read"), L("stat", "access", "readlink"), NULL, 0, NULL, 0},
	{"secret-rule", SBX_SEV_CRITICAL, "stopped by the built-in never-readable list",
	 NULL, L("builtin:secret:*"), NULL, NULL, NULL, NULL, 0, NULL, 0},
	{"manifest-deny", SBX_SEV_CRITICAL, "stopped by a deny rule of the manifest",
	 NULL, L("deny[[]*"), NULL, NULL, NULL, NULL, 0, NULL, 0},
	{"secret-path", SBX_SEV_CRITICAL, "a secret path (shadow, ssh/gpg/cloud credentials, ...)",
	 NULL, NULL, SECRET_PATHS, NULL, NULL, NULL, 0, NULL, 0},
	/* issue 27: a second thread rewrote the name during the call (neither name denied; a denied
	 * one is stamped critical by the probes) */
	{"raced", SBX_SEV_HIGH, "the name a call passed changed while the kernel used it (raced by another thread)",
	 NULL, L("probes:*(raced)"), NULL, NULL, NULL, NULL, 0, NULL, 0},
	{"unverifiable", SBX_SEV_HIGH, "the probes could not read the path the call named",
	 NULL, L("probes:*unverifiable*", "probes:*undecidable*"), NULL, NULL, NULL, NULL, 0, NULL, 0},
	{"benign-nscd-socket", SBX_SEV_INFO, "libc asks the name service cache daemon (nscd)",
	 NULL, NULL, L("/var/run/nscd/socket", "/run/nscd/socket"), LOOK, NULL, NULL, 0, NULL, 0},
	{"benign-userdb-socket", SBX_SEV_INFO, "libc/nss asks systemd-userdb for users and groups",
	 NULL, NULL, L("/run/systemd/userdb", "/run/systemd/userdb/*", "/var/run/systemd/userdb",
		       "/var/run/systemd/userdb/*"), LOOK, NULL, NULL, 0, NULL, 0},
	{"benign-uuidd-socket", SBX_SEV_INFO, "libuuid asks uuidd for a time-based UUID",
	 NULL, NULL, L("/run/uuidd/request", "/var/run/uuidd/request"), LOOK, NULL, NULL, 0, NULL, 0},
	{"benign-utmp", SBX_SEV_INFO, "libc reads the login records (utmp: top, w, uptime count users)",
	 NULL, NULL, L("/var/run/utmp", "/run/utmp", "/var/log/wtmp"), L("read"), NULL, NULL, 0, NULL, 0},
	{"benign-user-site", SBX_SEV_INFO, "Python looks for user site-packages under ~/.local",
	 NULL, NULL, L("*/.local/lib/python*"), L("read"), NULL, NULL, 0, NULL, 0},
	{"benign-locale", SBX_SEV_INFO, "libc/gettext look up locale and message catalogues",
	 NULL, NULL, L("/usr/lib/locale/*", "/usr/share/locale/*", "/usr/share/locale-langpack/*",
		       "/etc/locale.alias", "/etc/default/locale", "/usr/share/i18n/*", "*/.locale"),
	 L("read"), NULL, NULL, 0, NULL, 0},
	{"benign-git-config", SBX_SEV_INFO, "git reads its optional per-user and system config files",
	 NULL, NULL, L("*/.gitconfig", "*/.config/git/config", "*/.config/git/attributes",
		       "*/.config/git/ignore", "/etc/gitconfig", "/etc/gitattributes"),
	 L("read"), NULL, NULL, 0, NULL, 0},
	/* urllib3 (requests, pip) tests IPv6 support by binding ("::1", 0): an ephemeral port on
	 * loopback, nothing listens — a client's probe, not a server */
	{"benign-loopback-bind-probe", SBX_SEV_INFO, "a bind of an ephemeral loopback port (IPv6 support probe)",
	 NULL, NULL, NULL, NULL, L("bind"), NULL, 0, L("::1", "127.*", "::ffff:127.*"), 1},
	{"escape-syscall", SBX_SEV_HIGH, "an escape-class system call (ptrace, io_uring, bpf, unshare, ...)",
	 NULL, L("escape-class syscall"), NULL, NULL, NULL, NULL, 0, NULL, 0},
	{"seccomp", SBX_SEV_HIGH, "the seccomp filter refused a dangerous system call",
	 L("seccomp.deny"), NULL, NULL, NULL, NULL, NULL, 0, NULL, 0},
	{"signal-outside", SBX_SEV_HIGH, "a signal to a process outside the run",
	 NULL, L("signal outside the run"), NULL, NULL, NULL, NULL, 0, NULL, 0},
	{"exec", SBX_SEV_HIGH, "a program execution the manifest does not grant",
	 NULL, NULL, NULL, L("exec"), NULL, NULL, 0, NULL, 0},
	{"write", SBX_SEV_HIGH, "a write outside the granted paths",
	 NULL, NULL, NULL, L("write"), NULL, NULL, 0, NULL, 0},
	{"name-lookup", SBX_SEV_MEDIUM, "a name lookup the manifest does not grant (nothing was sent)",
	 NULL, NULL, NULL, NULL, L("resolve"), NULL, 0, NULL, 0},
	{"dns-deny", SBX_SEV_MEDIUM, "a DNS lookup of a name not granted (refused by the run's DNS stub: nothing left the run)",
	 L("dns.deny"), NULL, NULL, NULL, NULL, NULL, 0, NULL, 0},
	{"gateway-deny", SBX_SEV_HIGH, "a connection the gateway refused (name not granted, no name, HTTP rule)",
	 L("net.deny"), NULL, NULL, NULL, NULL, NULL, 0, NULL, 0},
	{"flow", SBX_SEV_INFO, "a connection the manifest grants, through the gateway (recorded, not refused)",
	 L("net.flow"), NULL, NULL, NULL, NULL, NULL, 0, NULL, 0},
	{"dns-answer", SBX_SEV_INFO, "a lookup of a granted name, resolved on the host side for the run (recorded, not refused)",
	 L("dns.answer"), NULL, NULL, NULL, NULL, NULL, 0, NULL, 0},
	{"network", SBX_SEV_HIGH, "a network connection the manifest does not grant",
	 L("netfilter.deny"), NULL, NULL, NULL, NULL, NULL, 0, NULL, 0},
	{"network-peer", SBX_SEV_HIGH, "a network connection the manifest does not grant",
	 NULL, NULL, NULL, NULL, NULL, NULL, 1, NULL, 0},
	{"abstract-socket", SBX_SEV_MEDIUM, "a connect to an abstract unix socket",
	 NULL, L("abstract unix socket"), NULL, NULL, NULL, NULL, 0, NULL, 0},
	{"unix-socket", SBX_SEV_MEDIUM, "a connect to a unix socket outside the grants",
	 NULL, NULL, NULL, L("connect", "bind"), NULL, NULL, 0, NULL, 0},
	{"read-outside", SBX_SEV_LOW, "a read outside the granted paths (not a secret)",
	 NULL, NULL, NULL, L("read"), NULL, NULL, 0, NULL, 0},
	{"other-denial", SBX_SEV_MEDIUM, "another denial of a policy rule",
	 NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0},
};
#define NTABLE (sizeof table / sizeof table[0])

/* The members the table looks at, found in one pass over the event (the first member of each name,
 * as cJSON_GetObjectItemCaseSensitive would find it): the table has ~25 entries and each asks for up
 * to seven members, so looking each one up again by name cost most of the classification. */
static void fields_of(const cJSON *ev, struct sbx_sev_fields *f)
{
	enum { F_EVENT, F_RULE, F_PATH, F_ACCESS, F_OP, F_OUTCOME, F_ADDR, F_PORT, F_HOST, NFIELDS };
	static const char *const fnames[NFIELDS] = {"event", "rule", "path", "access", "op", "outcome",
						   "addr", "port", "host"};
	const cJSON *item[NFIELDS] = {0};
	for (const cJSON *it = ev ? ev->child : NULL; it; it = it->next) {
		if (!it->string)
			continue;
		int i; /* the one or two names that start with the member's first letter */
		switch (it->string[0]) {
		case 'e': i = F_EVENT; break;
		case 'r': i = F_RULE; break;
		case 'p': i = strcmp(it->string, "path") == 0 ? F_PATH : F_PORT; break;
		case 'a': i = strcmp(it->string, "access") == 0 ? F_ACCESS : F_ADDR; break;
		case 'o': i = strcmp(it->string, "op") == 0 ? F_OP : F_OUTCOME; break;
		case 'h': i = F_HOST; break;
		default: continue;
		}
		if (!item[i] && strcmp(it->string, fnames[i]) == 0)
			item[i] = it;
	}
#define S(i) (cJSON_IsString(item[i]) ? item[i]->valuestring : NULL)
	*f = (struct sbx_sev_fields){
		.event = S(F_EVENT), .rule = S(F_RULE), .path = S(F_PATH), .access = S(F_ACCESS),
		.op = S(F_OP), .outcome = S(F_OUTCOME), .addr = S(F_ADDR),
		.has_addr = item[F_ADDR] != NULL, .has_port = item[F_PORT] != NULL, .has_host = item[F_HOST] != NULL,
		.port_zero = cJSON_IsNumber(item[F_PORT]) && item[F_PORT]->valuedouble == 0,
	};
#undef S
}

static int in_list(const char *const *list, const char *s, int glob)
{
	if (!list)
		return 1;
	if (!s)
		return 0;
	for (size_t i = 0; list[i]; i++)
		if (glob ? fnmatch(list[i], s, 0) == 0 : strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

static int matches(const struct entry *e, const struct sbx_sev_fields *f)
{
	if (!in_list(e->events, f->event, 0) || !in_list(e->rules, f->rule, 1) ||
	    !in_list(e->paths, f->path, 1) || !in_list(e->access, f->access, 0) || !in_list(e->ops, f->op, 0))
		return 0;
	if (e->outcome && !(f->outcome && strcmp(f->outcome, e->outcome) == 0))
		return 0;
	if (!in_list(e->addrs, f->addr, 1))
		return 0;
	if (e->port0 && !f->port_zero)
		return 0;
	if (e->net && !f->has_addr && !f->has_port && !f->has_host)
		return 0;
	return 1;
}

/* Only what the executor tried is ranked. run.start, env.drop, limit.hit, run.end and
 * shadow.commit (the invoking user applying a --shadow run's changes, docs/audit-keys.md §7: what it
 * refused is listed in the event, the executor's attempts were ranked when they happened) carry no
 * severity. */
int sbx_sev_is_security_event(const char *event)
{
	static const char *const sec[] = {"preload.deny", "kernel.violation", "netfilter.deny", "seccomp.deny",
					  "landlock.deny", "dns.deny", "dns.answer", "net.deny", "net.flow"};
	for (size_t i = 0; event && i < sizeof sec / sizeof sec[0]; i++)
		if (strcmp(event, sec[i]) == 0)
			return 1;
	return 0;
}

enum sbx_sev sbx_sev_explain_fields(const struct sbx_sev_fields *f, const char **id, const char **why)
{
	if (id)
		*id = NULL;
	if (why)
		*why = NULL;
	if (!sbx_sev_is_security_event(f->event))
		return SBX_SEV_NONE;
	for (size_t i = 0; i < NTABLE; i++)
		if (matches(&table[i], f)) {
			if (id)
				*id = table[i].id;
			if (why)
				*why = table[i].why;
			return table[i].sev;
		}
	return SBX_SEV_MEDIUM; /* not reached: the last entry matches every security event */
}

enum sbx_sev sbx_sev_explain(const cJSON *ev, const char **id, const char **why)
{
	struct sbx_sev_fields f;
	fields_of(ev, &f);
	return sbx_sev_explain_fields(&f, id, why);
}

enum sbx_sev sbx_sev_classify(const cJSON *ev)
{
	return sbx_sev_explain(ev, NULL, NULL);
}

const char *sbx_sev_entry(size_t i, enum sbx_sev *sev, const char **why)
{
	if (i >= NTABLE)
		return NULL;
	if (sev)
		*sev = table[i].sev;
	if (why)
		*why = table[i].why;
	return table[i].id;
}
