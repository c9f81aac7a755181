/* decide.c — every decision of the library, each through the one rule engine (policy.h).
 *
 * Promise:
 *   - paths: resolved as the kernel would (resolve.c), normalised (pol_normalize), then
 *     pol_path(). Content access (SBX_K_DATA) is decided as the policy says. Metadata access
 *     (SBX_K_META: stat, access, readlink, realpath, O_PATH) is refused only when a
 *     rule of the policy denies the path (secrets, deny globs, other homes), not when the path is
 *     merely outside every grant — so walking up to a granted directory keeps working while the
 *     existence and attributes of a denied file stay hidden.
 *   - exec: pol_path(POL_EXEC), and never without code:exec.
 *   - network peers: AF_INET/AF_INET6 by pol_net_addr(), or allowed because an allowed name
 *     resolution in this process returned the address (the name is then re-checked with the port);
 *     AF_UNIX paths as a write access to the socket path; abstract AF_UNIX names only when the
 *     network is unrestricted; other families are left to the kernel layers;
 *   - sockets: AF_PACKET and raw IP sockets only with an unrestricted network.
 *   - names: numeric addresses "resolve" freely (no query is made; the connect decides); any
 *     name, localhost included, must be allowed by pol_net_name() — a refused name is never
 *     looked up.
 * Failing closed (no valid policy): every decision denies, rule POL_RULE_DEFAULT.
 * Every denial is reported; the errno left for the caller is the kernel's (contract v2): for
 * paths EACCES when the path exists, ENOENT (ENOTDIR) when it does not; EPERM for the network.
 */
#include "pl.h"

#include <sys/stat.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>

static void report_path(unsigned op, const char *subject, unsigned access, uint32_t rule, int err,
			int family)
{
	struct sbx_rec_hdr h = {0};
	h.op = (uint16_t)op;
	h.access = (uint8_t)access;
	h.family = (uint8_t)family;
	h.err = err;
	h.rule = rule;
	sbx_report(&h, subject);
}

/* The errno the kernel would give for a denied path (contract v2): EACCES when it exists (or
 * cannot be looked at), ENOENT/ENOTDIR when it does not — as under bwrap, where a denied path is
 * not mounted. Creating (a write) a missing name in an existing directory stays EACCES: the kernel
 * refuses creation in a read-only directory the same way. readlinkat(2) only: the probes do not
 * count it as an access. */
static int path_errno(const char *abs, unsigned access)
{
	char t[8];
	int saved = errno;
	ssize_t n = sbx_readlinkat(AT_FDCWD, abs, t, sizeof t);
	int e = n >= 0 || errno == EINVAL ? 0 : errno;
	errno = saved;
	if (e != ENOENT && e != ENOTDIR)
		return EACCES;
	if (e == ENOENT && (access & POL_WRITE)) {
		char parent[PATH_MAX];
		size_t l = strlen(abs);
		while (l > 1 && abs[l - 1] != '/')
			l--;
		if (l > 1)
			l--;
		memcpy(parent, abs, l);
		parent[l] = 0;
		n = sbx_readlinkat(AT_FDCWD, parent, t, sizeof t);
		bool parent_exists = n >= 0 || errno == EINVAL;
		errno = saved;
		if (parent_exists)
			return EACCES;
	}
	return e;
}

/* Decide an absolute, resolved path. Sets errno to `err` on denial (EACCES: the kernel's
 * choice between EACCES and ENOENT, path_errno). */
static int decide_abs(unsigned op, const char *abs, unsigned access, enum sbx_kind kind, int err,
		      int family, bool exists)
{
	struct pol_decision d = { .verdict = POL_DENY, .rule = POL_RULE_DEFAULT };
	char norm[PATH_MAX];
	int mode = sbx_pl_mode();
	if (mode == SBX_PL_PASSIVE)
		return 0;
	if (mode == SBX_PL_ENFORCE) {
		if (pol_normalize("/", abs, norm, sizeof norm) != 0) {
			errno = ENAMETOOLONG;
			return -1;
		}
		sbx_pol_path(norm, access, &d);
		if (d.verdict == POL_ALLOW && (access & POL_EXEC) && !sbx_pl.code_exec) {
			d.verdict = POL_DENY;
			d.rule = POL_RULE_NO_EXEC;
		}
		if (d.verdict == POL_ALLOW)
			return 0;
		if (kind == SBX_K_META && d.rule == POL_RULE_DEFAULT && !(access & POL_EXEC))
			return 0;
		abs = norm;
		if (err == EACCES && !exists)
			err = path_errno(norm, access);
	}
	report_path(op, abs, access, d.rule, err, family);
	errno = err;
	return -1;
}

/* A relative path whose base (cwd or dirfd) is deeper than PATH_MAX: the kernel resolves it, we
 * cannot name it. Decided as "ancestor/<unknown>/tail" (pol_path_deep): the nearest ancestor of
 * the base that has a name (walked up with O_PATH ".." opens), and the relative path, which must be
 * plain (no "..", no symbolic link along it; "." and "" name the base itself — checked with readlinkat relative to the base).
 * Undecidable -> refused (EACCES), reported. Returns like check_path_err. */
static int check_deep(unsigned op, int dirfd, const char *path, unsigned access, unsigned rflags,
		      enum sbx_kind kind, int err, int family)
{
	char tail[PATH_MAX], anc[PATH_MAX], link[40], t[8];
	size_t tl = 0;
	bool ok = true;
	const char *p = path, *e;
	for (; ok && *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchrnul(p, '/');
		size_t n = (size_t)(e - p);
		if (n == 1 && p[0] == '.') {
			p = e;
			continue;
		}
		if ((n == 2 && p[0] == '.' && p[1] == '.') || tl + n + 2 >= sizeof tail) {
			ok = false;
			break;
		}
		if (tl)
			tail[tl++] = '/';
		memcpy(tail + tl, p, n);
		tl += n;
		tail[tl] = 0;
		bool last = !*e || !e[strspn(e, "/")];
		if (!(last && (rflags & SBX_R_NOFOLLOW)) && sbx_readlinkat(dirfd, tail, t, sizeof t) >= 0)
			ok = false;    /* a symbolic link: the kernel would go elsewhere */
		p = e;
	}
	int saved = errno;
	long fd = -1;
	bool found = false;
	tail[tl] = 0;
	if (ok) {
		fd = dirfd == AT_FDCWD ? sbx_sys(SYS_openat, AT_FDCWD, (long)".", O_PATH | O_DIRECTORY | O_CLOEXEC, 0, 0, 0)
				       : sbx_sys(SYS_fcntl, dirfd, F_DUPFD_CLOEXEC, 0, 0, 0, 0);
		for (int up = 0; fd >= 0 && up < 4096 && !found; up++) {
			snprintf(link, sizeof link, "/proc/self/fd/%ld", fd);
			ssize_t n = sbx_readlinkat(AT_FDCWD, link, anc, sizeof anc - 1);
			if (n > 0 && anc[0] == '/') {
				anc[n] = 0;
				found = true;
				break;
			}
			long nfd = sbx_sys(SYS_openat, fd, (long)"..", O_PATH | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
			sbx_sys(SYS_close, fd, 0, 0, 0, 0, 0);
			fd = nfd;
		}
		if (fd >= 0)
			sbx_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	}
	errno = saved;
	struct pol_decision d = { .verdict = POL_DENY, .rule = POL_RULE_DEFAULT };
	int v = -1;
	if (found && sbx_pl_mode() == SBX_PL_ENFORCE)
		v = pol_path_deep(sbx_pl.pol, anc, tail, access, &d);
	if (v == POL_ALLOW && sbx_pl.pol2)
		v = pol_path_deep(sbx_pl.pol2, anc, tail, access, &d);
	if (v == POL_ALLOW && !((access & POL_EXEC) && !sbx_pl.code_exec))
		return 0;
	if (v == POL_DENY && kind == SBX_K_META && d.rule == POL_RULE_DEFAULT && !(access & POL_EXEC))
		return 0;
	if (v == POL_DENY && err == EACCES) {
		ssize_t n = sbx_readlinkat(dirfd, path, t, sizeof t);
		if (n < 0 && (errno == ENOENT || errno == ENOTDIR) && !(access & POL_WRITE))
			err = errno;
		errno = saved;
	}
	char subj[PATH_MAX];
	snprintf(subj, sizeof subj, "%.2000s/.../%.2000s", found ? anc : "(deep cwd)", tl ? tail : path);
	report_path(op, subj, access, d.rule, err, family);
	errno = err;
	return -1;
}

static int check_path_err(unsigned op, int dirfd, const char *path, unsigned access, unsigned rflags,
			  enum sbx_kind kind, int err, int family)
{
	if (sbx_pl_mode() == SBX_PL_PASSIVE || !path || !path[0])
		return 0;   /* NULL: EFAULT; "": ENOENT or AT_EMPTY_PATH on an object already open */
	int saved = errno;
	char abs[PATH_MAX];
	int r = sbx_resolve(dirfd, path, rflags, abs);
	if (r == 2)
		return check_deep(op, dirfd, path, access, rflags, kind, err, family);
	if (r == 1 && !(access & POL_EXEC)) {
		errno = saved;
		return 0;
	}
	if (r != 0) {
		if (r < 0 && (errno == ELOOP || errno == ENAMETOOLONG))
			return -1;   /* the kernel would fail the same way */
		report_path(op, path, access, POL_RULE_DEFAULT, err, family);
		errno = err;
		return -1;
	}
	/* through an open descriptor the object exists, whatever its (deleted, memfd) name says */
	bool via_fd = strncmp(path, "/proc/self/fd/", 14) == 0 ||
		      strncmp(path, "/proc/thread-self/fd/", 21) == 0;
	if (decide_abs(op, abs, access, kind, err, family, via_fd) != 0)
		return -1;
	errno = saved;
	return 0;
}

int sbx_check_path(unsigned op, int dirfd, const char *path, unsigned access, unsigned rflags,
		   enum sbx_kind kind)
{
	return check_path_err(op, dirfd, path, access, rflags, kind, EACCES, 0);
}

int sbx_check_fd(unsigned op, int fd, unsigned access)
{
	if (sbx_pl_mode() == SBX_PL_PASSIVE)
		return 0;
	if (fd == AT_FDCWD)
		return sbx_check_path(op, AT_FDCWD, ".", access, 0, SBX_K_DATA);
	if (fd < 0 || !sbx_fd_valid(fd))
		return 0;   /* EBADF from the kernel */
	char link[40];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	return sbx_check_path(op, AT_FDCWD, link, access, 0, SBX_K_DATA);
}

int sbx_check_at(unsigned op, int dirfd, const char *path, unsigned access, unsigned rflags,
		 int at_flags)
{
	path = sbx_launder(path);
	if (path == NULL || (path[0] == 0 && (at_flags & AT_EMPTY_PATH)))
		return sbx_check_fd(op, dirfd, access);
	return sbx_check_path(op, dirfd, path, access, rflags, SBX_K_DATA);
}

/* ---- the privilege guard (contract version 3: policy.h pol_priv_mode / pol_priv_xattr) ------ */

/* Refuse (EPERM) and report `rule` (a POL_PRIV_* text) for the object (dirfd, path) or, path NULL
 * or "", the descriptor dirfd. */
static int priv_refuse(unsigned op, int dirfd, const char *path, const char *rule)
{
	char abs[PATH_MAX], link[40];
	const char *subject = path;
	if (!path || !path[0]) {
		snprintf(link, sizeof link, dirfd == AT_FDCWD ? "." : "/proc/self/fd/%d", dirfd);
		subject = link;
		if (sbx_resolve(AT_FDCWD, link, 0, abs) == 0)
			subject = abs;
	} else if (sbx_resolve(dirfd, path, SBX_R_NOFOLLOW, abs) == 0) {
		subject = abs;
	}
	report_path(op, subject, POL_WRITE, pol_priv_rule_id(rule), EPERM, 0);
	errno = EPERM;
	return -1;
}

int sbx_check_priv_mode(unsigned op, int dirfd, const char *path, enum pol_priv_call call, int flags,
			mode_t mode)
{
	if (sbx_pl_mode() == SBX_PL_PASSIVE)
		return 0;
	const char *rule = pol_priv_mode(call, (uint64_t)(unsigned)flags, (uint32_t)mode);
	return rule ? priv_refuse(op, dirfd, path, rule) : 0;
}

int sbx_check_priv_xattr(int dirfd, const char *path, const char *name, bool nofollow)
{
	if (sbx_pl_mode() == SBX_PL_PASSIVE || !name)
		return 0;
	if (strncmp(name, "security.", 9) && strcmp(name, "system.posix_acl_access"))
		return 0;
	/* the kernel's stat, not this library's fstatat (fs.c), which would check and report it */
	struct stat st;
	int r = path && path[0] ? (int)sbx_sys(SYS_newfstatat, dirfd, (long)path, (long)&st,
					       nofollow ? AT_SYMLINK_NOFOLLOW : 0, 0, 0)
				: fstat(dirfd, &st);
	const char *rule = pol_priv_xattr(name, r == 0 ? (uint32_t)st.st_mode : 0);
	return rule ? priv_refuse(SBX_OP_XATTR, dirfd, path, rule) : 0;
}

int sbx_refuse(unsigned op, const char *subject, unsigned access)
{
	if (sbx_pl_mode() == SBX_PL_PASSIVE)
		return 0;
	report_path(op, subject ? subject : "?", access, POL_RULE_DEFAULT, EACCES, 0);
	errno = EACCES;
	return -1;
}

int sbx_check_exec(unsigned op, int dirfd, const char *path, unsigned rflags)
{
	if (sbx_pl_mode() == SBX_PL_PASSIVE)
		return 0;
	if (!path || !path[0])
		return 0;
	return check_path_err(op, dirfd, path, POL_READ | POL_EXEC, rflags, SBX_K_DATA, EACCES, 0);
}

/* ---- network ----------------------------------------------------------------------------------- */

static void report_net(unsigned op, const char *subject, uint16_t port, int family, uint32_t rule, int err)
{
	struct sbx_rec_hdr h = {0};
	h.op = (uint16_t)op;
	h.family = (uint8_t)family;
	h.port = port;
	h.err = err;
	h.rule = rule;
	sbx_report(&h, subject);
}

static int check_unix(unsigned op, const struct sockaddr_un *sun, socklen_t len)
{
	size_t off = offsetof(struct sockaddr_un, sun_path);
	/* inside the run's own network namespace abstract names reach only the run (issue 17); in the
	 * host's, whatever the network grant, a name the run binds (an autobind too) is one a host
	 * client could connect to, and a name it connects or sends to is the host's (issue 28) */
	bool inside = sbx_pl_mode() == SBX_PL_ENFORCE && pol_abstract_inside(sbx_pl.pol) &&
		      (!sbx_pl.pol2 || pol_abstract_inside(sbx_pl.pol2));
	if (len == off && op == SBX_OP_BIND && !inside) {
		report_net(op, "@ (autobind)", 0, AF_UNIX, sbx_pl.net_mode == POL_NET_NONE ? POL_RULE_NET_NONE
						  : POL_RULE_DEFAULT, EPERM);
		errno = EPERM;
		return -1;
	}
	if (len <= off)
		return 0;                     /* unnamed */
	size_t n = len - off;
	if (n > sizeof sun->sun_path)
		n = sizeof sun->sun_path;
	if (sun->sun_path[0] == 0) {
		char name[sizeof sun->sun_path + 2];
		name[0] = '@';
		size_t k = 0;
		for (size_t i = 1; i < n; i++) {
			unsigned char c = (unsigned char)sun->sun_path[i];
			name[1 + k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
		}
		name[1 + k] = 0;
		if (inside)
			return 0;
		report_net(op, name, 0, AF_UNIX, sbx_pl.net_mode == POL_NET_NONE ? POL_RULE_NET_NONE
					       : POL_RULE_DEFAULT, EPERM);
		errno = EPERM;
		return -1;
	}
	char path[sizeof sun->sun_path + 1];
	memcpy(path, sun->sun_path, n);
	path[n] = 0;
	return check_path_err(op, AT_FDCWD, path, POL_WRITE, op == SBX_OP_BIND ? SBX_R_NOFOLLOW : 0,
			      SBX_K_DATA, EPERM, AF_UNIX);
}

int sbx_check_sockaddr(unsigned op, const void *sa, socklen_t len)
{
	if (sbx_pl_mode() == SBX_PL_PASSIVE || !sa || len < (socklen_t)sizeof(sa_family_t))
		return 0;
	int saved = errno;
	sa_family_t fam;
	memcpy(&fam, sa, sizeof fam);
	if (fam == AF_UNIX) {
		struct sockaddr_un sun;
		memset(&sun, 0, sizeof sun);
		memcpy(&sun, sa, len < sizeof sun ? len : sizeof sun);
		if (check_unix(op, &sun, len) != 0)
			return -1;
		errno = saved;
		return 0;
	}
	int family;
	uint8_t addr[16];
	uint16_t port;
	if (fam == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		struct sockaddr_in in;
		memcpy(&in, sa, sizeof in);
		family = AF_INET;
		memcpy(addr, &in.sin_addr, 4);
		port = ntohs(in.sin_port);
	} else if (fam == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 in6;
		memcpy(&in6, sa, sizeof in6);
		family = AF_INET6;
		memcpy(addr, &in6.sin6_addr, 16);
		port = ntohs(in6.sin6_port);
		if (IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr)) {
			family = AF_INET;
			memmove(addr, addr + 12, 4);
		}
	} else {
		return 0;                     /* other families / short lengths: the kernel decides */
	}
	struct pol_decision d = { .verdict = POL_DENY, .rule = POL_RULE_DEFAULT };
	int mode = sbx_pl_mode();
	if (mode == SBX_PL_ENFORCE) {
		if (op == SBX_OP_BIND) {
			/* a local address to listen or send from: allowed unless there is no network
			 * (the run's own network namespace: its loopback is the run's, pol_own_netns) */
			if (sbx_pl.net_mode != POL_NET_NONE ||
			    (pol_own_netns(sbx_pl.pol) && (!sbx_pl.pol2 || pol_own_netns(sbx_pl.pol2)))) {
				errno = saved;
				return 0;
			}
			d.rule = POL_RULE_NET_NONE;
		} else {
			sbx_pol_net_addr(family, addr, port, &d);
			if (d.verdict == POL_ALLOW) {
				errno = saved;
				return 0;
			}
			char name[SBX_PL_NAME_MAX];
			struct pol_decision dn;
			if (sbx_pl_addr_find(family, addr, name, sizeof name) &&
			    sbx_pol_net_name(name, port, &dn) == POL_ALLOW) {
				errno = saved;
				return 0;
			}
		}
	}
	char text[INET6_ADDRSTRLEN];
	if (!inet_ntop(family, addr, text, sizeof text))
		snprintf(text, sizeof text, "?");
	report_net(op, text, port, family, d.rule, EPERM);
	errno = EPERM;
	return -1;
}

int sbx_check_socket(int domain, int type, int protocol)
{
	if (sbx_pl_mode() == SBX_PL_PASSIVE)
		return 0;
	/* the one allowlist every layer asks (policy.h): AF_UNIX, TCP/UDP over IPv4/IPv6, ping only
	 * with an unrestricted network, NETLINK_ROUTE; everything else is refused and reported */
	int err = 0;
	char what[96];
	enum pol_net_mode nm = sbx_pl_mode() == SBX_PL_ENFORCE ? sbx_pl.net_mode : POL_NET_NONE;
	if (pol_socket_ok(domain, type, protocol, nm, &err, what, sizeof what))
		return 0;
	report_net(SBX_OP_SOCKET, what, 0, 0, sbx_pl.net_mode == POL_NET_NONE ? POL_RULE_NET_NONE : POL_RULE_DEFAULT,
		   err);
	errno = err;
	return -1;
}

static bool is_numeric(const char *name)
{
	unsigned char b[16];
	return inet_pton(AF_INET, name, b) == 1 || inet_pton(AF_INET6, name, b) == 1;
}

int sbx_check_name(const char *name, uint16_t port)
{
	if (sbx_pl_mode() == SBX_PL_PASSIVE || !name)
		return 0;
	int saved = errno;
	if (is_numeric(name))
		return 0;
	struct pol_decision d = { .verdict = POL_DENY, .rule = POL_RULE_DEFAULT };
	if (sbx_pl_mode() == SBX_PL_ENFORCE && sbx_pol_net_name(name, port, &d) == POL_ALLOW) {
		errno = saved;
		return 0;
	}
	report_net(SBX_OP_RESOLVE, name, port, 0, d.rule, EAI_FAIL);
	errno = saved;
	return -1;
}
