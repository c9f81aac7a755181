/* review.h — the `sbxsup audit` subcommands (SPEC "Command line"), shared by audit_*.c.
 *
 * Promise: each *_main returns the exit status: 0 ok, 1 (verify: damage found), 125 bad usage /
 * unreadable input; none of them writes to the files it reads.
 */
#ifndef SBX_AUDIT_CMD_H
#define SBX_AUDIT_CMD_H

#include <signal.h>
#include <stdbool.h>

int audit_verify_main(int argc, char **argv);
int audit_summary_main(int argc, char **argv);
int audit_filter_main(int argc, char **argv);
int audit_report_main(int argc, char **argv);
int audit_tail_main(int argc, char **argv);

/* Installs SIGINT/SIGTERM/SIGHUP handlers (no SA_RESTART) that set the returned flag, so
 * --follow loops end cleanly. The flag is the only process-wide state of the audit commands. */
volatile sig_atomic_t *audit_stop_install(void);

/* The FILE operands argv[first..argc) of `sbxsup audit CMD`: at least one, exactly one with
 * --follow. Returns 0, or 125 after saying what is wrong (and the usage `help` when none). */
int audit_check_files(const char *cmd, int argc, int first, bool follow, const char *help);

/* Opens every FILE operand (files[0..n)) before anything is read, so a missing or unreadable
 * input is an error (said on stderr, exit status 125) before any verdict is printed. On success
 * rs[0..n) are open (the caller closes them) and 0 is returned; on failure none stays open. */
struct audit_reader;
int audit_open_inputs(const char *cmd, char **files, int n, bool follow, volatile sig_atomic_t *stop,
		      struct audit_reader *rs);

#endif
