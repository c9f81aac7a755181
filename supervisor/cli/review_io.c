/* review_io.c — what the review commands share (review.h): their FILE arguments, their inputs, and
 * the stop flag SIGINT/SIGTERM/SIGHUP set for --follow. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "audit_read.h"
#include "msg.h"
#include "review.h"

/* The one piece of process state here: set by a signal handler, read by the readers' loops. */
static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

volatile sig_atomic_t *audit_stop_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: a blocking read returns EINTR and sees the flag */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return &stop_flag;
}

int audit_check_files(const char *cmd, int argc, int first, bool follow, const char *help)
{
	if (first >= argc) {
		sbx_msg("audit %s: no FILE given", cmd);
		fputs(help, stderr);
		return SBX_EXIT_INTERNAL;
	}
	if (follow && argc - first != 1) {
		sbx_msg("audit %s: --follow takes exactly one FILE", cmd);
		return SBX_EXIT_INTERNAL;
	}
	return 0;
}

int audit_open_inputs(const char *cmd, char **files, int n, bool follow, volatile sig_atomic_t *stop,
		      struct audit_reader *rs)
{
	int nstdin = 0;
	for (int i = 0; i < n; i++)
		nstdin += strcmp(files[i], "-") == 0;
	if (nstdin > 1) {
		sbx_msg("audit %s: stdin (\"-\") given more than once", cmd);
		return SBX_EXIT_INTERNAL;
	}
	for (int i = 0; i < n; i++) {
		char err[512];
		if (audit_reader_open(&rs[i], files[i], follow, stop, err, sizeof err) < 0) {
			sbx_msg("audit %s: %s", cmd, err);
			while (i-- > 0)
				audit_reader_close(&rs[i]);
			return SBX_EXIT_INTERNAL;
		}
	}
	return 0;
}
