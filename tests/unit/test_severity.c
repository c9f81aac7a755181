/* test_severity.c — the severity table (audit/severity.c): one test per table entry, with the rule
 * texts real runs write (policy/policy.h pol_rule_text, the probes' rule names), the near misses
 * an attacker would use to hide in "info" (a write to a benign path, a secret under a benign-looking
 * directory), and a check that no table entry is left without its test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "severity.h"

struct ex {
	const char *id;       /* table entry expected to decide */
	enum sbx_sev sev;
	const char *json;     /* the event */
};

static void check(const struct ex *x)
{
	cJSON *ev = cJSON_Parse(x->json);
	assert_non_null(ev);
	const char *id = NULL, *why = NULL;
	enum sbx_sev s = sbx_sev_explain(ev, &id, &why);
	if (s != x->sev || !id || strcmp(id, x->id) != 0)
		fail_msg("%s: got %s/%s, want %s/%s", x->json, sbx_sev_name(s) ? sbx_sev_name(s) : "none",
			 id ? id : "-", sbx_sev_name(x->sev), x->id);
	assert_int_equal(sbx_sev_classify(ev), s);
	assert_non_null(why);
	cJSON_Delete(ev);
}

#define PD(extra) "{\"event\":\"preload.deny\",\"comm\":\"python3\"," extra "}"
#define KV(extra) "{\"event\":\"kernel.violation\",\"comm\":\"static_open\"," extra "}"

/* Every table entry has at least one example here (test_every_entry_tested checks it). */
static const struct ex examples[] = {
	{"breach", SBX_SEV_CRITICAL, KV("\"syscall\":\"openat\",\"path\":\"/tmp/x\",\"access\":\"read\",\"rule\":\"default: not granted\",\"outcome\":\"breach\"")},
	{"breach", SBX_SEV_CRITICAL, KV("\"syscall\":\"connect\",\"path\":\"/var/run/nscd/socket\",\"access\":\"connect\",\"rule\":\"default: not granted\",\"outcome\":\"breach\"")},
	{"privilege", SBX_SEV_CRITICAL, KV("\"syscall\":\"fchmodat\",\"path\":\"/w/x\",\"access\":\"privilege\",\"rule\":\"privilege: setuid bit\",\"outcome\":\"contained\"")},
	{"privilege", SBX_SEV_CRITICAL, PD("\"op\":\"setxattr\",\"path\":\"/w/x\",\"access\":\"privilege\",\"rule\":\"privilege: file capability\"")},
	{"benign-loopback-bind-probe", SBX_SEV_INFO, PD("\"op\":\"bind\",\"addr\":\"::1\",\"port\":0,\"access\":\"connect\",\"rule\":\"network: no capability\"")},
	{"network-peer", SBX_SEV_HIGH, PD("\"op\":\"bind\",\"addr\":\"::1\",\"port\":8080,\"access\":\"connect\",\"rule\":\"network: no capability\"")},
	{"network-peer", SBX_SEV_HIGH, PD("\"op\":\"bind\",\"addr\":\"0.0.0.0\",\"port\":0,\"access\":\"connect\",\"rule\":\"network: no capability\"")},
	{"secret-metadata", SBX_SEV_LOW, PD("\"op\":\"stat\",\"path\":\"/etc/shadow-\",\"access\":\"read\",\"rule\":\"builtin:secret: /etc/shadow*\"")},
	{"secret-metadata", SBX_SEV_LOW, PD("\"op\":\"access\",\"path\":\"/w/.env\",\"access\":\"read\",\"rule\":\"deny[0]: **/.env\"")},
	{"secret-rule", SBX_SEV_CRITICAL, PD("\"op\":\"open\",\"path\":\"/home/u/.ssh/id_rsa\",\"access\":\"read\",\"rule\":\"builtin:secret: ~/.ssh\"")},
	{"secret-rule", SBX_SEV_CRITICAL, PD("\"op\":\"open\",\"path\":\"/etc/shadow\",\"access\":\"read\",\"rule\":\"builtin:secret: /etc/shadow*\"")},
	{"manifest-deny", SBX_SEV_CRITICAL, PD("\"op\":\"open\",\"path\":\"/w/notes/.env\",\"access\":\"read\",\"rule\":\"deny[0]: **/.env\"")},
	{"secret-path", SBX_SEV_CRITICAL, KV("\"syscall\":\"openat\",\"path\":\"/etc/shadow\",\"access\":\"read\",\"rule\":\"never-readable /etc/shadow\",\"outcome\":\"contained\"")},
	{"secret-path", SBX_SEV_CRITICAL, PD("\"op\":\"open\",\"path\":\"/home/user/.aws/credentials\",\"access\":\"read\",\"rule\":\"default: not granted\"")},
	/* a secret under a benign-looking directory is still a secret */
	{"secret-path", SBX_SEV_CRITICAL, PD("\"op\":\"open\",\"path\":\"/root/.local/lib/python3.11/../../../.ssh/id_rsa\",\"access\":\"read\",\"rule\":\"builtin:home-blanket: /root\"")},
	{"raced", SBX_SEV_HIGH, KV("\"syscall\":\"openat\",\"path\":\"/w/a\",\"path_raced\":\"/w/b\",\"raced\":true,\"access\":\"read\",\"rule\":\"probes: the name changed while the kernel used it (raced)\",\"outcome\":\"raced\"")},
	{"unverifiable", SBX_SEV_HIGH, KV("\"syscall\":\"openat\",\"path\":\"?\",\"access\":\"read\",\"rule\":\"probes: path argument unreadable (unverifiable)\",\"outcome\":\"contained\"")},
	{"benign-nscd-socket", SBX_SEV_INFO, KV("\"syscall\":\"connect\",\"path\":\"/var/run/nscd/socket\",\"access\":\"connect\",\"rule\":\"default: not granted\",\"outcome\":\"contained\",\"errno\":2")},
	{"benign-nscd-socket", SBX_SEV_INFO, PD("\"op\":\"connect\",\"path\":\"/run/nscd/socket\",\"access\":\"connect\",\"rule\":\"default: not granted\"")},
	{"benign-userdb-socket", SBX_SEV_INFO, PD("\"op\":\"connect\",\"path\":\"/run/systemd/userdb/io.systemd.DynamicUser\",\"access\":\"connect\",\"rule\":\"default: not granted\"")},
	{"benign-uuidd-socket", SBX_SEV_INFO, PD("\"op\":\"connect\",\"path\":\"/run/uuidd/request\",\"access\":\"connect\",\"rule\":\"default: not granted\"")},
	{"benign-utmp", SBX_SEV_INFO, KV("\"syscall\":\"openat\",\"path\":\"/var/run/utmp\",\"access\":\"read\",\"rule\":\"default: not granted\",\"outcome\":\"contained\"")},
	{"write", SBX_SEV_HIGH, PD("\"op\":\"open\",\"path\":\"/run/utmp\",\"access\":\"write\",\"rule\":\"default: not granted\"")},
	{"benign-user-site", SBX_SEV_INFO, PD("\"op\":\"stat\",\"path\":\"/root/.local/lib/python3.11/site-packages\",\"access\":\"read\",\"rule\":\"builtin:home-blanket: /root\"")},
	{"benign-locale", SBX_SEV_INFO, PD("\"op\":\"open\",\"path\":\"/usr/lib/locale/C.utf8/LC_CTYPE\",\"access\":\"read\",\"rule\":\"default: not granted\"")},
	{"benign-git-config", SBX_SEV_INFO, PD("\"op\":\"access\",\"path\":\"/root/.gitconfig\",\"access\":\"read\",\"rule\":\"builtin:home-blanket: /root\"")},
	{"benign-git-config", SBX_SEV_INFO, PD("\"op\":\"open\",\"path\":\"/etc/gitattributes\",\"access\":\"read\",\"rule\":\"default: not granted\"")},
	/* benign paths only while looking: writing there is not benign */
	{"write", SBX_SEV_HIGH, PD("\"op\":\"open\",\"path\":\"/root/.local/lib/python3.11/site-packages/evil.pth\",\"access\":\"write\",\"rule\":\"builtin:home-blanket: /root\"")},
	{"write", SBX_SEV_HIGH, PD("\"op\":\"open\",\"path\":\"/root/.gitconfig\",\"access\":\"write\",\"rule\":\"builtin:home-blanket: /root\"")},
	{"write", SBX_SEV_HIGH, PD("\"op\":\"open\",\"path\":\"/var/tmp/sbxsup-demo-escaped\",\"access\":\"write\",\"rule\":\"default: not granted\"")},
	{"write", SBX_SEV_HIGH, "{\"event\":\"landlock.deny\",\"path\":\"/etc/passwd\",\"access\":\"write\"}"},
	{"escape-syscall", SBX_SEV_HIGH, KV("\"syscall\":\"ptrace\",\"access\":\"escape\",\"rule\":\"escape-class syscall\",\"outcome\":\"contained\",\"errno\":1")},
	{"seccomp", SBX_SEV_HIGH, "{\"event\":\"seccomp.deny\",\"syscall\":\"ptrace\",\"action\":\"errno EPERM\"}"},
	{"signal-outside", SBX_SEV_HIGH, KV("\"syscall\":\"kill\",\"access\":\"signal\",\"rule\":\"signal outside the run\",\"outcome\":\"contained\"")},
	{"exec", SBX_SEV_HIGH, PD("\"op\":\"exec\",\"path\":\"/usr/bin/true\",\"access\":\"exec\",\"rule\":\"no code:exec capability\"")},
	{"name-lookup", SBX_SEV_MEDIUM, PD("\"op\":\"resolve\",\"host\":\"localhost\",\"access\":\"connect\",\"rule\":\"network: no capability\"")},
	{"dns-answer", SBX_SEV_INFO, "{\"event\":\"dns.answer\",\"src\":\"gateway\",\"name\":\"a.example.com\",\"qtype\":1,\"addr\":\"192.0.2.1\"}"},
	{"dns-deny", SBX_SEV_MEDIUM, "{\"event\":\"dns.deny\",\"src\":\"gateway\",\"name\":\"x.evil.example\",\"qtype\":1}"},
	{"gateway-deny", SBX_SEV_HIGH, "{\"event\":\"net.deny\",\"src\":\"gateway\",\"host\":\"api.example.com\",\"addr\":\"127.0.0.5\",\"port\":443,\"proto\":\"tcp\",\"peer\":\"evil.example\",\"reason\":\"name-not-granted\"}"},
	{"flow", SBX_SEV_INFO, "{\"event\":\"net.flow\",\"src\":\"gateway\",\"host\":\"api.example.com\",\"addr\":\"127.0.0.5\",\"port\":443,\"proto\":\"tcp\",\"bytes_out\":10,\"bytes_in\":20,\"duration_ms\":3}"},
	{"network", SBX_SEV_HIGH, "{\"event\":\"netfilter.deny\",\"addr\":\"93.184.216.34\",\"port\":443,\"proto\":\"tcp\"}"},
	{"network-peer", SBX_SEV_HIGH, PD("\"op\":\"connect\",\"addr\":\"127.0.0.1\",\"port\":9,\"access\":\"connect\",\"rule\":\"network: no capability\"")},
	{"network-peer", SBX_SEV_HIGH, "{\"event\":\"landlock.deny\",\"port\":443,\"access\":\"connect\"}"},
	{"abstract-socket", SBX_SEV_MEDIUM, KV("\"syscall\":\"connect\",\"path\":\"@/tmp/.X11-unix/X0\",\"access\":\"connect\",\"rule\":\"abstract unix socket\",\"outcome\":\"contained\"")},
	{"unix-socket", SBX_SEV_MEDIUM, PD("\"op\":\"connect\",\"path\":\"/run/dbus/system_bus_socket\",\"access\":\"connect\",\"rule\":\"default: not granted\"")},
	{"read-outside", SBX_SEV_LOW, PD("\"op\":\"open\",\"path\":\"/srv/data/report.csv\",\"access\":\"read\",\"rule\":\"default: not granted\"")},
	{"read-outside", SBX_SEV_LOW, PD("\"op\":\"open\",\"path\":\"/home/other/notes.txt\",\"access\":\"read\",\"rule\":\"builtin:home-blanket: /home/*\"")},
	{"other-denial", SBX_SEV_MEDIUM, PD("\"op\":\"socket\",\"path\":\"AF_VSOCK\",\"access\":\"?\",\"rule\":\"socket family\"")},
};
#define NEX (sizeof examples / sizeof examples[0])

static void run_id(const char *id)
{
	int n = 0;
	for (size_t i = 0; i < NEX; i++)
		if (strcmp(examples[i].id, id) == 0) {
			check(&examples[i]);
			n++;
		}
	assert_true(n > 0);
}

#define T(name, id) static void test_##name(void **s) { (void)s; run_id(id); }
T(breach, "breach")
T(privilege, "privilege")
T(secret_metadata, "secret-metadata")
T(benign_loopback_bind_probe, "benign-loopback-bind-probe")
T(secret_rule, "secret-rule")
T(manifest_deny, "manifest-deny")
T(secret_path, "secret-path")
T(unverifiable, "unverifiable")
T(raced, "raced")
T(benign_nscd_socket, "benign-nscd-socket")
T(benign_userdb_socket, "benign-userdb-socket")
T(benign_uuidd_socket, "benign-uuidd-socket")
T(benign_utmp, "benign-utmp")
T(benign_user_site, "benign-user-site")
T(benign_locale, "benign-locale")
T(benign_git_config, "benign-git-config")
T(escape_syscall, "escape-syscall")
T(seccomp, "seccomp")
T(signal_outside, "signal-outside")
T(exec, "exec")
T(write, "write")
T(name_lookup, "name-lookup")
T(network, "network")
T(network_peer, "network-peer")
T(abstract_socket, "abstract-socket")
T(unix_socket, "unix-socket")
T(read_outside, "read-outside")
T(other_denial, "other-denial")

static void test_every_entry_tested(void **s)
{
	(void)s;
	enum sbx_sev sev;
	const char *why, *id;
	size_t i;
	for (i = 0; (id = sbx_sev_entry(i, &sev, &why)) != NULL; i++) {
		int found = 0;
		for (size_t k = 0; k < NEX; k++)
			found |= strcmp(examples[k].id, id) == 0;
		if (!found)
			fail_msg("table entry %s has no example in test_severity.c", id);
		assert_non_null(sbx_sev_name(sev));
		assert_non_null(why);
	}
	assert_true(i >= 20);
}

static void test_not_security_events(void **s)
{
	(void)s;
	const char *evs[] = {"{\"event\":\"run.start\"}", "{\"event\":\"env.drop\",\"name\":\"GH_TOKEN\"}",
			     "{\"event\":\"limit.hit\",\"limit\":\"memory\"}", "{}", "{\"event\":7}"};
	for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
		cJSON *ev = cJSON_Parse(evs[i]);
		const char *id = "x";
		assert_int_equal(sbx_sev_explain(ev, &id, NULL), SBX_SEV_NONE);
		assert_null(id);
		cJSON_Delete(ev);
	}
}

static void test_names_round_trip(void **s)
{
	(void)s;
	for (int i = SBX_SEV_INFO; i <= SBX_SEV_CRITICAL; i++)
		assert_int_equal(sbx_sev_parse(sbx_sev_name(i)), i);
	assert_int_equal(sbx_sev_parse("severe"), -1);
	assert_int_equal(sbx_sev_parse(NULL), -1);
	assert_null(sbx_sev_name(SBX_SEV_NONE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_breach), cmocka_unit_test(test_privilege), cmocka_unit_test(test_secret_metadata), cmocka_unit_test(test_benign_loopback_bind_probe), cmocka_unit_test(test_secret_rule),
		cmocka_unit_test(test_manifest_deny), cmocka_unit_test(test_secret_path),
		cmocka_unit_test(test_unverifiable), cmocka_unit_test(test_raced), cmocka_unit_test(test_benign_nscd_socket),
		cmocka_unit_test(test_benign_userdb_socket), cmocka_unit_test(test_benign_uuidd_socket),
		cmocka_unit_test(test_benign_utmp), cmocka_unit_test(test_benign_user_site),
		cmocka_unit_test(test_benign_locale),
		cmocka_unit_test(test_benign_git_config), cmocka_unit_test(test_escape_syscall),
		cmocka_unit_test(test_seccomp), cmocka_unit_test(test_signal_outside),
		cmocka_unit_test(test_exec), cmocka_unit_test(test_write),
		cmocka_unit_test(test_name_lookup), cmocka_unit_test(test_network),
		cmocka_unit_test(test_network_peer), cmocka_unit_test(test_abstract_socket),
		cmocka_unit_test(test_unix_socket), cmocka_unit_test(test_read_outside),
		cmocka_unit_test(test_other_denial), cmocka_unit_test(test_every_entry_tested),
		cmocka_unit_test(test_not_security_events), cmocka_unit_test(test_names_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
