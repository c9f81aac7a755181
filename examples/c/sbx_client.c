/* sbx_client.c — a small program using libsbxsup, as a runtime would: run one command under a
 * manifest, with an audit stream, and print what the result record says.
 *
 *   cc sbx_client.c $(pkg-config --cflags --libs sbxsup) -o sbx_client
 *   ./sbx_client [--stdin FILE] [--stdout FILE] [--result DEST] MANIFEST WORKSPACE AUDIT_FILE COMMAND [ARG...]
 *
 * Prints "verdict=... exit=... status=... run=..." and the record on stdout; the command reads
 * FILE (--stdin) or this program's stdin, and writes to FILE (--stdout, created 0600) or this
 * program's stdout; --result also writes the record to DEST (as `sbxsup run --result`); its stderr and sbxsup's warnings go to this program's stderr. Exits with the run's
 * exit status (or 125 when the call itself failed). tests/integration/lib_install.sh builds it
 * against an installed tree. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sbxsup.h>

int main(int argc, char **argv)
{
	int in = 0, out = 1;
	const char *prog = argv[0], *result = NULL;
	while (argc > 2 && !strcmp(argv[1], "--result")) {
		result = argv[2];
		argc -= 2, argv += 2;
	}
	while (argc > 2 && (!strcmp(argv[1], "--stdin") || !strcmp(argv[1], "--stdout"))) {
		int fd = !strcmp(argv[1], "--stdin") ? open(argv[2], O_RDONLY | O_CLOEXEC)
						     : open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0) {
			perror(argv[2]);
			return 2;
		}
		*(!strcmp(argv[1], "--stdin") ? &in : &out) = fd;
		argc -= 2, argv += 2;
	}
	if (argc < 5) {
		fprintf(stderr, "usage: %s [--result DEST] [--stdin FILE] [--stdout FILE] MANIFEST WORKSPACE AUDIT_FILE COMMAND [ARG...]\n",
			prog);
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
	    sbx_opts_set_tag(o, "sbx_client") < 0 || sbx_opts_set_stdio(o, in, out, 2) < 0 ||
	    sbx_opts_set_result_dest(o, result) < 0) {
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
	if (in > 2)
		close(in);
	if (out > 2)
		close(out);
	return code;
}
