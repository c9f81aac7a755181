/* sbx_client.c — a small program using libsbxsup, as a runtime would: run one command under a
 * manifest, with an audit stream, and print what the result record says.
 *
 *   cc sbx_client.c $(pkg-config --cflags --libs sbxsup) -o sbx_client
 *   ./sbx_client MANIFEST WORKSPACE AUDIT_FILE COMMAND [ARG...]
 *
 * Prints "verdict=... exit=... status=... run=..." and the record on stdout; the command's own
 * output goes to this program's stdout/stderr; sbxsup's warnings to stderr. Exits with the run's
 * exit status (or 125 when the call itself failed). tests/integration/lib_install.sh builds it
 * against an installed tree. */
#include <stdio.h>
#include <stdlib.h>
#include <sbxsup.h>

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: %s MANIFEST WORKSPACE AUDIT_FILE COMMAND [ARG...]\n", argv[0]);
		return 2;
	}
	if (sbx_api_version() < SBXSUP_API_VERSION) {
		fprintf(stderr, "libsbxsup is older than this program\n");
		return 125;
	}
	struct sbx_err err;
	struct sbx_manifest *m = NULL;
	if (sbx_manifest_load(argv[1], argv[2], &m, &err) < 0) {
		fprintf(stderr, "manifest refused (%s):\n%s\n", sbx_strerror(err.code), err.message);
		return 125;
	}
	struct sbx_opts *o = sbx_opts_new();
	if (!o || sbx_opts_use_manifest(o, m) < 0 || sbx_opts_set_workspace(o, argv[2]) < 0 ||
	    sbx_opts_set_audit(o, argv[3]) < 0 || sbx_opts_set_timeout_ms(o, 30000) < 0 ||
	    sbx_opts_set_tag(o, "sbx_client") < 0) {
		fprintf(stderr, "cannot set the options\n");
		return 125;
	}
	sbx_manifest_free(m);
	struct sbx_result *res = NULL;
	if (sbx_run(o, argv + 4, &res, &err) < 0) {
		fprintf(stderr, "run failed (%s): %s\n", sbx_strerror(err.code), err.message);
		sbx_opts_free(o);
		return 125;
	}
	const char *run = sbx_result_run_id(res);
	printf("verdict=%s exit=%d status=%s run=%s\n%s\n", sbx_result_verdict(res), sbx_result_exit(res),
	       sbx_result_status(res), run ? run : "-", sbx_result_json(res));
	int code = sbx_result_exit(res);
	sbx_result_free(res);
	sbx_opts_free(o);
	return code;
}
