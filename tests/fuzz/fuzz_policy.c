/* fuzz_policy.c — libFuzzer target: the compiled policy and its decisions.
 * A fixed manifest is compiled once. The first input byte picks what the rest is used for:
 *   0: a path to decide (normalised, then pol_path with every access combination)
 *   1: a network peer (family, address, port) for pol_net_addr
 *   2: a host name for pol_net_name
 *   3: (offset, byte) patches applied to a copy of the valid blob, then pol_open + every accessor
 *   4: the raw bytes as a blob for pol_open (+ every accessor if accepted)
 * Decisions must never crash; pol_open must reject every malformed blob instead of crashing. */
#include <stdio.h>
#include <sys/socket.h>

#include "fuzz_common.h"
#include "manifest.h"
#include "policy.h"
#include "policy_build.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fixed_manifest[] =
	"{\"sbxsup\":1,\"name\":\"fuzz\",\"code_path\":\"/opt/exec/tool.py\",\"capabilities\":["
	"\"code:exec\",{\"cap\":\"fs:read\",\"hint\":\"~/notes/**\"},"
	"{\"cap\":\"fs:write\",\"hints\":[\"/tmp/**\",\"./out\",\"/data/*/cache/?.bin\"]},"
	"{\"cap\":\"network:http\",\"hosts\":[\"api.example.com:443\",\"127.0.0.1:8080\",\"10.1.0.0/16\","
	"\"[::1]:9000\",\"[fd00::]/8\"]}],"
	"\"deny\":[\"~/.ssh/**\",\"**/.env\",\"/data/secret*\"],"
	"\"limits\":{\"wall_s\":30,\"memory_mb\":256}}";

static void *g_blob;
static size_t g_len;
static const struct policy *g_pol;

static void init_once(void)
{
	if (g_pol)
		return;
	const struct mf_ctx ctx = {.home = "/home/fuzz", .workspace = "/work/ws", .uid = 1000};
	struct manifest *m = NULL;
	struct mf_errors e;
	memset(&e, 0, sizeof e);
	if (manifest_parse(fixed_manifest, sizeof fixed_manifest - 1, "fixed", &ctx, &m, &e) != 0) {
		fprintf(stderr, "fuzz_policy: fixed manifest rejected: %s\n", e.n ? e.msg[0] : "?");
		abort();
	}
	char err[256];
	const struct pol_build_opts o = {.resolve = false, .uid = 1000};
	if (pol_build(m, &o, &g_blob, &g_len, err, sizeof err) != 0) {
		fprintf(stderr, "fuzz_policy: pol_build: %s\n", err);
		abort();
	}
	manifest_free(m);
	mf_errors_free(&e);
	const char *why = NULL;
	g_pol = pol_open(g_blob, g_len, &why);
	if (!g_pol) {
		fprintf(stderr, "fuzz_policy: pol_open: %s\n", why ? why : "?");
		abort();
	}
}

static void exercise(const struct policy *p)
{
	struct pol_decision d;
	static const char *paths[] = {"/", "/home/fuzz/.ssh/id_rsa", "/home/fuzz/notes/a/b", "/tmp/x",
				      "/work/ws/out/y", "/data/a/cache/1.bin", "/etc/shadow", "/proc/self/status"};
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
		for (unsigned a = 1; a < 8; a++)
			pol_path(p, paths[i], a, &d);
	uint8_t a4[4] = {127, 0, 0, 1}, a6[16] = {0};
	a6[15] = 1;
	pol_net_addr(p, AF_INET, a4, 8080, &d);
	pol_net_addr(p, AF_INET6, a6, 9000, &d);
	pol_net_name(p, "api.example.com.", 443, &d);
	(void)pol_rule_text(p, d.rule);
	(void)pol_rule_text(p, POL_RULE_DEFAULT);
	(void)pol_rule_text(p, 0x7fffffffu);
	(void)pol_code_exec(p);
	(void)pol_net_mode(p);
	(void)pol_executor_name(p);
	(void)pol_workspace(p);
	(void)pol_home(p);
	struct pol_dir dir;
	for (size_t i = 0, n = pol_dir_count(p); i < n && i < 4096; i++)
		if (pol_dir_get(p, i, &dir) == 0 && dir.path)
			(void)strlen(dir.path);
	for (size_t i = 0, n = pol_mask_count(p); i < n && i < 4096; i++)
		if (pol_mask_get(p, i, &dir) == 0 && dir.path)
			(void)strlen(dir.path);
	struct pol_net net;
	for (size_t i = 0, n = pol_net_count(p); i < n && i < 4096; i++)
		if (pol_net_get(p, i, &net) == 0 && net.name)
			(void)strlen(net.name);
	(void)pol_dir_get(p, (size_t)-1, &dir);
	(void)pol_net_get(p, (size_t)-1, &net);
}

static void try_blob(const uint8_t *b, size_t n)
{
	/* 8-byte aligned copy (the contract requires alignment) */
	void *copy = NULL;
	if (posix_memalign(&copy, 8, n ? n : 8) != 0)
		abort();
	memcpy(copy, b, n);
	const char *why = NULL;
	const struct policy *p = pol_open(copy, n, &why);
	if (p)
		exercise(p);
	else if (!why)
		abort(); /* a rejection must say why */
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	init_once();
	if (size < 1)
		return 0;
	uint8_t sel = data[0] % 5;
	const uint8_t *d = data + 1;
	size_t n = size - 1;
	struct pol_decision dec;
	switch (sel) {
	case 0: {
		char *s = fz_strndup(d, n), out[4096];
		if (pol_normalize("/work/ws", s, out, sizeof out) == 0)
			for (unsigned a = 1; a < 8; a++)
				if (pol_path(g_pol, out, a, &dec) != dec.verdict)
					abort();
		free(s);
		break;
	}
	case 1: {
		uint8_t addr[16] = {0};
		if (n < 3)
			break;
		int fam = (d[0] & 1) ? AF_INET6 : AF_INET;
		uint16_t port = (uint16_t)(d[1] << 8 | d[2]);
		memcpy(addr, d + 3, n - 3 < 16 ? n - 3 : 16);
		pol_net_addr(g_pol, fam, addr, port, &dec);
		(void)pol_rule_text(g_pol, dec.rule);
		break;
	}
	case 2: {
		char *s = fz_strndup(d, n);
		pol_net_name(g_pol, s, n ? d[0] : 0, &dec);
		pol_net_name(g_pol, s, 0, &dec);
		free(s);
		break;
	}
	case 3: {
		uint8_t *b = malloc(g_len);
		if (!b)
			abort();
		memcpy(b, g_blob, g_len);
		for (size_t i = 0; i + 3 <= n; i += 3) {
			size_t off = ((size_t)d[i] << 8 | d[i + 1]) % g_len;
			b[off] = d[i + 2];
		}
		try_blob(b, g_len);
		free(b);
		break;
	}
	default:
		try_blob(d, n);
		break;
	}
	return 0;
}
