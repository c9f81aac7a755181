/* test_netfilter.c — the netfilter layer alone: the BPF allowlist attached to a cgroup v2 of our
 * own (created under our cgroup in the v2 mount, removed after); a child moved into it connects
 * and sends to granted and non-granted loopback addresses; refusals are EPERM and come out of the
 * ring buffer as `netfilter.deny`. The programs are the shared set's (netfilter_share.h): two runs at
 * once must not reach each other's grants nor see each other's records, a run's entries go with it,
 * a dead run's slot is emptied by the reclaim, an expired set leaves no pin. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <fcntl.h>
#include <bpf/bpf.h>

#include "audit.h"
#include "netfilter_layer.h"
#include "netfilter_share.h"
#include "kernel_util.h"

static char cg[4300];
static char g_audit[64]; /* the temp audit stream of the running case */

/* cgroup2 mount (mountinfo) + our own v2 cgroup (/proc/self/cgroup "0::") */
static int cgroup_create(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], mnt[2048] = "", path[2048] = "";
	while (f && fgets(line, sizeof line, f)) {
		char *sep = strstr(line, " - ");
		if (sep && !strncmp(sep + 3, "cgroup2 ", 8) && sscanf(line, "%*s %*s %*s %*s %2047s", mnt) == 1)
			break;
		mnt[0] = 0;
	}
	if (f)
		fclose(f);
	f = fopen("/proc/self/cgroup", "re");
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(path, sizeof path, "%.2000s", line + 3);
		}
	if (f)
		fclose(f);
	if (!mnt[0])
		return -1;
	snprintf(cg, sizeof cg, "%s%s/sbx-test-netfilter-%d", mnt, strcmp(path, "/") ? path : "", (int)getpid());
	if (mkdir(cg, 0755) < 0)
		return -1;
	return open(cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int join_cgroup_at(const char *dir)
{
	char p[4400];
	snprintf(p, sizeof p, "%s/cgroup.procs", dir);
	int fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = write(fd, "0", 1) == 1 ? 0 : -1;
	close(fd);
	return rc;
}

static int join_cgroup(void)
{
	return join_cgroup_at(cg);
}

static struct pol_net rule4(const char *a, uint8_t prefix, uint16_t port)
{
	struct pol_net r;
	memset(&r, 0, sizeof r);
	r.family = AF_INET;
	inet_pton(AF_INET, a, r.addr);
	r.prefix = prefix;
	r.port = port;
	return r;
}

static int listen_on(const char *addr, uint16_t *port)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	inet_pton(AF_INET, addr, &a.sin_addr);
	socklen_t l = sizeof a;
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 8) ||
	    getsockname(s, (struct sockaddr *)&a, &l))
		return -1;
	*port = ntohs(a.sin_port);
	return s;
}

static int tcp_connect(int family, const char *addr, uint16_t port)
{
	int s = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int rc;
	if (family == AF_INET) {
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
		inet_pton(AF_INET, addr, &a.sin_addr);
		rc = connect(s, (struct sockaddr *)&a, sizeof a);
	} else {
		struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
		inet_pton(AF_INET6, addr, &a.sin6_addr);
		rc = connect(s, (struct sockaddr *)&a, sizeof a);
	}
	int e = errno;
	close(s);
	errno = e;
	return rc;
}

static int udp_send(const char *addr, uint16_t port)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, addr, &a.sin_addr);
	long rc = sendto(s, "x", 1, 0, (struct sockaddr *)&a, sizeof a);
	int e = errno;
	close(s);
	errno = e;
	return rc < 0 ? -1 : 0;
}

static int fails;
#define CHECK(what, cond)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "# child: %s (errno %s)\n", what, strerror(errno));        \
			fails++;                                                                   \
		}                                                                                  \
	} while (0)

static void test_probe(void **state)
{
	(void)state;
	char why[256] = "";
	int ok = sbx_netfilter_probe(why, sizeof why);
	if (!ok)
		fprintf(stderr, "# probe: %s\n", why);
	assert_int_equal(ok, 1);
}

static void test_not_needed(void **state)
{
	(void)state;
	struct sbx_netfilter *nf = (void *)1;
	char why[256] = "";
	assert_int_equal(sbx_netfilter_start_rules(NULL, 0, POL_NET_ANY, -1, &nf, why, sizeof why), 1);
	assert_null(nf);
	assert_non_null(strstr(why, "unrestricted"));
}

/* mode POL_NET_LIST with rules, or POL_NET_NONE (empty allowlist) */
static void run_case(enum pol_net_mode mode)
{
	char *apath = g_audit;
	snprintf(g_audit, sizeof g_audit, "/tmp/sbx-test-netfilter-XXXXXX");
	int tfd = mkstemp(apath);
	assert_true(tfd >= 0);
	close(tfd);
	unlink(apath);
	struct audit a;
	char err[256];
	assert_int_equal(audit_open(&a, apath, "test-netfilter", err, sizeof err), 0);

	uint16_t p1, p5, p1b, p6;
	int l1 = listen_on("127.0.0.1", &p1), l5 = listen_on("127.0.0.5", &p5);
	int l1b = listen_on("127.0.0.1", &p1b), l6 = listen_on("127.0.0.6", &p6);
	assert_true(l1 >= 0 && l5 >= 0 && l1b >= 0 && l6 >= 0);
	int cgfd = cgroup_create();
	assert_true(cgfd >= 0);

	/* 127.0.0.1:p1; 127.0.0.0/8 port p5 plus 127.0.0.5/32 on another port: the /8's port must be
	 * folded into the /32 entry (LPM returns the longest match only); a second rule for
	 * 127.0.0.1 (one entry, both ports); 127.0.0.6 on every port */
	struct pol_net rules[5] = {rule4("127.0.0.1", 32, p1), rule4("127.0.0.0", 8, p5),
				   rule4("127.0.0.5", 32, (uint16_t)(p5 + 1)), rule4("127.0.0.1", 32, p1b),
				   rule4("127.0.0.6", 32, 0)};
	struct sbx_netfilter *nf = NULL;
	char why[256] = "";
	int rc = sbx_netfilter_start_rules(rules, 5, mode, cgfd, &nf, why, sizeof why);
	if (rc)
		fprintf(stderr, "# start: %s\n", why);
	assert_int_equal(rc, 0);
	assert_true(sbx_netfilter_fd(nf) >= 0);

	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fails = 0;
		if (join_cgroup() < 0)
			_exit(90);
		if (mode == POL_NET_LIST) {
			CHECK("connect 127.0.0.1:p1 (granted)", tcp_connect(AF_INET, "127.0.0.1", p1) == 0);
			CHECK("connect 127.0.0.5:p5 (granted by the /8)", tcp_connect(AF_INET, "127.0.0.5", p5) == 0);
			CHECK("connect 127.0.0.1:p1b (second rule, same entry)", tcp_connect(AF_INET, "127.0.0.1", p1b) == 0);
			CHECK("connect 127.0.0.6:p6 (every port)", tcp_connect(AF_INET, "127.0.0.6", p6) == 0);
			CHECK("connect 127.0.0.5:p1 refused (another entry's port)",
			      tcp_connect(AF_INET, "127.0.0.5", p1) < 0 && errno == EPERM);
		} else {
			CHECK("connect 127.0.0.1:p1 (no network)", tcp_connect(AF_INET, "127.0.0.1", p1) < 0 && errno == EPERM);
		}
		CHECK("connect 127.0.0.2:9 refused", tcp_connect(AF_INET, "127.0.0.2", 9) < 0 && errno == EPERM);
		CHECK("connect 127.0.0.1:9 refused", tcp_connect(AF_INET, "127.0.0.1", 9) < 0 && errno == EPERM);
		CHECK("udp sendto 127.0.0.3:9 refused", udp_send("127.0.0.3", 9) < 0 && errno == EPERM);
		CHECK("connect [::1]:9 refused", tcp_connect(AF_INET6, "::1", 9) < 0 && errno == EPERM);
		CHECK("connect [::ffff:127.0.0.4]:9 refused",
		      tcp_connect(AF_INET6, "::ffff:127.0.0.4", 9) < 0 && errno == EPERM);
		_exit(fails);
	}
	int st = ku_wait(pid);
	int n = sbx_netfilter_drain(nf, &a);
	uint64_t lost = sbx_netfilter_lost(nf);
	sbx_netfilter_stop(nf);
	close(cgfd);
	rmdir(cg);
	close(l1);
	close(l5);
	close(l1b);
	close(l6);
	audit_close(&a);
	assert_int_equal(st, 0);
	assert_int_equal(lost, 0);
	assert_int_equal(n, 6);
	assert_true(ku_line_has(apath, "\"event\":\"netfilter.deny\"", "\"addr\":\"127.0.0.2\"", "\"port\":9",
				"\"proto\":\"tcp\"", "\"src\":\"kernel\"", "\"pid\":", NULL));
	assert_true(ku_line_has(apath, "\"event\":\"netfilter.deny\"", "\"addr\":\"127.0.0.3\"", "\"proto\":\"udp\"", NULL));
	assert_true(ku_line_has(apath, "\"event\":\"netfilter.deny\"", "\"addr\":\"::1\"", NULL));
	assert_true(ku_line_has(apath, "\"event\":\"netfilter.deny\"", "\"addr\":\"127.0.0.4\"", NULL));
	unlink(apath);
}

static void test_allowlist(void **state) { (void)state; run_case(POL_NET_LIST); }
static void test_no_network(void **state) { (void)state; run_case(POL_NET_NONE); }

/* after stop, nothing is attached any more: the cgroup's processes connect freely */
static void test_stop_detaches(void **state)
{
	(void)state;
	uint16_t p;
	int l = listen_on("127.0.0.1", &p);
	int cgfd = cgroup_create();
	assert_true(l >= 0 && cgfd >= 0);
	struct sbx_netfilter *nf = NULL;
	char why[256];
	assert_int_equal(sbx_netfilter_start_rules(NULL, 0, POL_NET_NONE, cgfd, &nf, why, sizeof why), 0);
	sbx_netfilter_stop(nf);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (join_cgroup() < 0)
			_exit(90);
		_exit(tcp_connect(AF_INET, "127.0.0.1", p) == 0 ? 0 : 1);
	}
	int st = ku_wait(pid);
	close(cgfd);
	rmdir(cg);
	close(l);
	assert_int_equal(st, 0);
}

/* 16 ports for one address load (the port hash is sized to them); a 17th, even one folded in from a
 * containing prefix, is refused before anything loads */
static void test_port_limit(void **state)
{
	(void)state;
	struct pol_net rules[18];
	for (int i = 0; i < 16; i++)
		rules[i] = rule4("127.0.0.1", 32, (uint16_t)(1000 + i));
	rules[16] = rule4("127.0.0.1", 32, 1000); /* a repeat: the same entry, no new port */
	int cgfd = cgroup_create();
	assert_true(cgfd >= 0);
	struct sbx_netfilter *nf = NULL;
	char why[256] = "";
	int rc = sbx_netfilter_start_rules(rules, 17, POL_NET_LIST, cgfd, &nf, why, sizeof why);
	if (rc)
		fprintf(stderr, "# start: %s\n", why);
	assert_int_equal(rc, 0);
	sbx_netfilter_stop(nf);
	close(cgfd);
	rmdir(cg);
	rules[17] = rule4("127.0.0.0", 8, 2000);
	nf = (void *)1;
	assert_int_equal(sbx_netfilter_start_rules(rules, 18, POL_NET_LIST, -1, &nf, why, sizeof why), -1);
	assert_null(nf);
	assert_non_null(strstr(why, "more than 16 ports granted for one address"));
}


/* --- the shared set ------------------------------------------------------------------------------ */

static char cg2[4400];

/* a second cgroup beside cg */
static int cgroup2_create(void)
{
	snprintf(cg2, sizeof cg2, "%s-b", cg);
	if (mkdir(cg2, 0755) < 0)
		return -1;
	return open(cg2, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int open_audit(struct audit *a, char *path, size_t len)
{
	snprintf(path, len, "/tmp/sbx-test-netfilter-XXXXXX");
	int tfd = mkstemp(path);
	if (tfd < 0)
		return -1;
	close(tfd);
	unlink(path);
	char err[256];
	return audit_open(a, path, "test-netfilter", err, sizeof err);
}

/* did the listener see a connection? (non-blocking accept) */
static bool saw_connection(int l)
{
	int fl = fcntl(l, F_GETFL);
	fcntl(l, F_SETFL, fl | O_NONBLOCK);
	int c = accept(l, NULL, NULL);
	fcntl(l, F_SETFL, fl);
	if (c >= 0)
		close(c);
	return c >= 0;
}

/* The number of keys in a pinned map of the shared set (-1: not pinned). */
static int pinned_keys(const char *name)
{
	char p[256];
	snprintf(p, sizeof p, "%s/map_%s", NF_AUTO_DIR, name);
	int fd = bpf_obj_get(p);
	if (fd < 0)
		return -1;
	uint8_t k[64], next[64];
	int n = 0;
	void *prev = NULL;
	while (bpf_map_get_next_key(fd, prev, next) == 0 && n < 100000) {
		memcpy(k, next, sizeof k);
		prev = k;
		n++;
	}
	close(fd);
	return n;
}

/* Two runs at once, each with its own grant on the same address: each reaches its own listener
 * only (the other's listener sees nothing), each refusal is in the refused run's stream only. */
static void test_two_runs(void **state)
{
	(void)state;
	setenv("SBXSUP_NETFILTER_IDLE", "600", 1);
	struct audit aa, ab;
	char pa[64], pb[64];
	assert_int_equal(open_audit(&aa, pa, sizeof pa), 0);
	assert_int_equal(open_audit(&ab, pb, sizeof pb), 0);
	uint16_t porta, portb;
	int la = listen_on("127.0.0.1", &porta), lb = listen_on("127.0.0.1", &portb);
	assert_true(la >= 0 && lb >= 0);
	int cga = cgroup_create(), cgb = cgroup2_create();
	assert_true(cga >= 0 && cgb >= 0);
	struct pol_net ra = rule4("127.0.0.1", 32, porta), rb = rule4("127.0.0.0", 8, portb);
	struct sbx_netfilter *nfa = NULL, *nfb = NULL;
	char why[256] = "";
	int rc = sbx_netfilter_start_rules(&ra, 1, POL_NET_LIST, cga, &nfa, why, sizeof why);
	if (rc)
		fprintf(stderr, "# start a: %s\n", why);
	assert_int_equal(rc, 0);
	rc = sbx_netfilter_start_rules(&rb, 1, POL_NET_LIST, cgb, &nfb, why, sizeof why);
	if (rc)
		fprintf(stderr, "# start b: %s\n", why);
	assert_int_equal(rc, 0);
	assert_int_equal(nf_share_holders(), 1);            /* both on the one shared set */
	assert_int_equal(pinned_keys("sbx_runs"), 2);

	pid_t ka = fork();
	assert_true(ka >= 0);
	if (ka == 0) {
		fails = 0;
		if (join_cgroup_at(cg) < 0)
			_exit(90);
		CHECK("a: its own grant", tcp_connect(AF_INET, "127.0.0.1", porta) == 0);
		CHECK("a: b's grant refused", tcp_connect(AF_INET, "127.0.0.1", portb) < 0 && errno == EPERM);
		_exit(fails);
	}
	int sta = ku_wait(ka);
	bool a_reached_a = saw_connection(la), a_reached_b = saw_connection(lb);
	pid_t kb = fork();
	assert_true(kb >= 0);
	if (kb == 0) {
		fails = 0;
		if (join_cgroup_at(cg2) < 0)
			_exit(90);
		CHECK("b: its own grant", tcp_connect(AF_INET, "127.0.0.1", portb) == 0);
		CHECK("b: a's grant refused", tcp_connect(AF_INET, "127.0.0.1", porta) < 0 && errno == EPERM);
		_exit(fails);
	}
	int stb = ku_wait(kb);
	bool b_reached_b = saw_connection(lb), b_reached_a = saw_connection(la);
	int na = sbx_netfilter_drain(nfa, &aa), nb = sbx_netfilter_drain(nfb, &ab);
	sbx_netfilter_stop(nfa);
	sbx_netfilter_stop(nfb);
	audit_close(&aa);
	audit_close(&ab);
	close(cga);
	close(cgb);
	rmdir(cg);
	rmdir(cg2);
	close(la);
	close(lb);
	assert_int_equal(sta, 0);
	assert_int_equal(stb, 0);
	assert_true(a_reached_a && b_reached_b);
	assert_false(a_reached_b);                           /* the host side: nothing arrived */
	assert_false(b_reached_a);
	assert_int_equal(na, 1);
	assert_int_equal(nb, 1);
	char want_a[32], want_b[32];
	snprintf(want_a, sizeof want_a, "\"port\":%u", portb);
	snprintf(want_b, sizeof want_b, "\"port\":%u", porta);
	assert_true(ku_line_has(pa, "\"event\":\"netfilter.deny\"", "\"addr\":\"127.0.0.1\"", want_a, NULL));
	assert_true(ku_line_has(pb, "\"event\":\"netfilter.deny\"", "\"addr\":\"127.0.0.1\"", want_b, NULL));
	assert_false(ku_line_has(pa, want_b, NULL));          /* b's refusal is not in a's stream */
	assert_false(ku_line_has(pb, want_a, NULL));
	unlink(pa);
	unlink(pb);
	/* the runs' entries went with them; the set stays, idle, no holder */
	assert_int_equal(pinned_keys("sbx_runs"), 0);
	assert_int_equal(pinned_keys("sbx_allow4"), 0);
	assert_int_equal(pinned_keys("sbx_ports"), 0);
	assert_int_equal(nf_share_holders(), 0);
	assert_true(nf_share_idle_until() > time(NULL));
}

/* fd passing over a unix socketpair */
static int send_fd(int sock, int fd)
{
	char c = 'f';
	struct iovec iov = {.iov_base = &c, .iov_len = 1};
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof fd);
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char c;
	struct iovec iov = {.iov_base = &c, .iov_len = 1};
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	int fd = -1;
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof fd);
	return fd;
}

/* A socket made in a run is decided by that run's list whoever calls (the seccomp layer's
 * connector connects the executor's sockets from outside the run): granted, the connect works;
 * not granted, refused and reported in the run's stream. */
static void test_socket_keeps_its_run(void **state)
{
	(void)state;
	struct audit a;
	char pa[64];
	assert_int_equal(open_audit(&a, pa, sizeof pa), 0);
	uint16_t pok, pno;
	int lok = listen_on("127.0.0.1", &pok), lno = listen_on("127.0.0.1", &pno);
	int cgfd = cgroup_create();
	assert_true(lok >= 0 && lno >= 0 && cgfd >= 0);
	struct pol_net r = rule4("127.0.0.1", 32, pok);
	struct sbx_netfilter *nf = NULL;
	char why[256] = "";
	assert_int_equal(sbx_netfilter_start_rules(&r, 1, POL_NET_LIST, cgfd, &nf, why, sizeof why), 0);
	int sp[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sp[0]);
		if (join_cgroup() < 0)
			_exit(90);
		int s1 = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int s2 = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		_exit(s1 >= 0 && s2 >= 0 && send_fd(sp[1], s1) == 0 && send_fd(sp[1], s2) == 0 ? 0 : 1);
	}
	close(sp[1]);
	int s1 = recv_fd(sp[0]), s2 = recv_fd(sp[0]);
	close(sp[0]);
	int st = ku_wait(pid);
	/* we are in no run: the sockets' run decides */
	struct sockaddr_in ok = {.sin_family = AF_INET, .sin_port = htons(pok)};
	struct sockaddr_in no = {.sin_family = AF_INET, .sin_port = htons(pno)};
	inet_pton(AF_INET, "127.0.0.1", &ok.sin_addr);
	inet_pton(AF_INET, "127.0.0.1", &no.sin_addr);
	int rc1 = connect(s1, (struct sockaddr *)&ok, sizeof ok);
	int rc2 = connect(s2, (struct sockaddr *)&no, sizeof no);
	int e2 = errno;
	bool saw_ok = saw_connection(lok), saw_no = saw_connection(lno);
	int n = sbx_netfilter_drain(nf, &a);
	sbx_netfilter_stop(nf);
	audit_close(&a);
	close(s1);
	close(s2);
	close(cgfd);
	rmdir(cg);
	close(lok);
	close(lno);
	assert_int_equal(st, 0);
	assert_int_equal(rc1, 0);
	assert_true(saw_ok);
	assert_int_equal(rc2, -1);
	assert_int_equal(e2, EPERM);
	assert_false(saw_no);
	assert_int_equal(n, 1);
	char want[32];
	snprintf(want, sizeof want, "\"port\":%u", pno);
	assert_true(ku_line_has(pa, "\"event\":\"netfilter.deny\"", "\"addr\":\"127.0.0.1\"", want, NULL));
	unlink(pa);
}

/* A run whose supervisor died: its slot and entries stay until its cgroup is gone, then the
 * reclaim (the janitor's) empties them; an expired set leaves no pin. */
static void test_dead_run_and_expiry(void **state)
{
	(void)state;
	setenv("SBXSUP_NETFILTER_IDLE", "600", 1);
	int cgfd = cgroup_create();
	assert_true(cgfd >= 0);
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		struct pol_net r = rule4("127.0.0.1", 32, 4242);
		struct sbx_netfilter *nf = NULL;
		char why[256];
		int rc = sbx_netfilter_start_rules(&r, 1, POL_NET_LIST, cgfd, &nf, why, sizeof why);
		(void)!write(p[1], rc == 0 ? "1" : "0", 1);
		_exit(0);                                    /* killed: no stop */
	}
	close(p[1]);
	char c = 0;
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	assert_int_equal(c, '1');
	ku_wait(pid);
	assert_int_equal(pinned_keys("sbx_runs"), 1);      /* the dead run's slot */
	assert_int_equal(pinned_keys("sbx_allow4"), 1);
	nf_share_reclaim();                                 /* its cgroup still exists: kept */
	assert_int_equal(pinned_keys("sbx_runs"), 1);
	close(cgfd);
	rmdir(cg);
	nf_share_reclaim();
	assert_int_equal(pinned_keys("sbx_runs"), 0);
	assert_int_equal(pinned_keys("sbx_allow4"), 0);
	assert_int_equal(pinned_keys("sbx_ports"), 0);
	assert_int_equal(nf_share_holders(), 0);
	/* not yet expired: kept; forced: gone */
	assert_int_equal(nf_share_expire(false), 0);
	assert_int_equal(nf_share_expire(true), 1);
	assert_int_equal(access(NF_AUTO_DIR, F_OK), -1);
	/* an idle period of 0: the last run out unpins */
	setenv("SBXSUP_NETFILTER_IDLE", "0", 1);
	cgfd = cgroup_create();
	struct sbx_netfilter *nf = NULL;
	char why[256];
	assert_int_equal(sbx_netfilter_start_rules(NULL, 0, POL_NET_NONE, cgfd, &nf, why, sizeof why), 0);
	assert_int_equal(access(NF_AUTO_DIR, F_OK), 0);
	sbx_netfilter_stop(nf);
	close(cgfd);
	rmdir(cg);
	assert_int_equal(access(NF_AUTO_DIR, F_OK), -1);
	unsetenv("SBXSUP_NETFILTER_IDLE");
}

/* a failed assertion skips a test's own cleanup: remove our cgroup (empty by then: the child exited) */
static int cleanup(void **state)
{
	(void)state;
	if (cg[0])
		rmdir(cg);
	if (cg2[0])
		rmdir(cg2);
	if (g_audit[0])
		unlink(g_audit);
	return 0;
}

int main(void)
{
	char why[256] = "";
	if (geteuid() != 0 && !sbx_netfilter_probe(why, sizeof why)) { /* as root nothing skips */
		printf("1..1\nok 1 - netfilter # SKIP needs CAP_BPF + CAP_NET_ADMIN (or root): %s\n", why);
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_not_needed),
		cmocka_unit_test(test_allowlist),
		cmocka_unit_test(test_no_network),
		cmocka_unit_test(test_stop_detaches),
		cmocka_unit_test(test_port_limit),
		cmocka_unit_test(test_two_runs),
		cmocka_unit_test(test_socket_keeps_its_run),
		cmocka_unit_test(test_dead_run_and_expiry),
	};
	return cmocka_run_group_tests(tests, NULL, cleanup);
}
