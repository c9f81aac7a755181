/* pl_exec.c — exec chains that strip the environment.
 *   usage: pl_exec MODE FILE
 *   MODE empty:   execve("/bin/sh", sh -c 'cat FILE', envp = {NULL})
 *   MODE clear:   clearenv(), then execvp("cat", ...)   (no PATH: the default search path)
 *   MODE forged:  execve cat with LD_PRELOAD= and SBXSUP_POLICY_FD=999 in envp
 *   MODE system:  unsetenv("LD_PRELOAD"), then system("cat FILE")
 *   MODE spawn:   posix_spawnp cat with an empty environment
 *   MODE fds:     dup2 /dev/null onto SBXSUP_POLICY_FD, close SBXSUP_REPORT_FD, closefrom(3), then
 *                 execvp cat (the child must still get the policy and report its denial)
 * The program's exit status is cat's (1 when it was refused). */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	const char *m = argv[1], *f = argv[2];
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "cat '%s'", f);
	if (!strcmp(m, "empty")) {
		char *av[] = { (char *)"sh", (char *)"-c", cmd, NULL };
		char *ev[] = { NULL };
		execve("/bin/sh", av, ev);
	} else if (!strcmp(m, "clear")) {
		clearenv();
		execlp("cat", "cat", f, (char *)NULL);
	} else if (!strcmp(m, "forged")) {
		char *av[] = { (char *)"cat", (char *)f, NULL };
		char *ev[] = { (char *)"LD_PRELOAD=", (char *)"SBXSUP_POLICY_FD=999", NULL };
		execve("/bin/cat", av, ev);
	} else if (!strcmp(m, "system")) {
		unsetenv("LD_PRELOAD");
		int st = system(cmd);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
	} else if (!strcmp(m, "fds")) {
		const char *pf = getenv("SBXSUP_POLICY_FD"), *rf = getenv("SBXSUP_REPORT_FD");
		int nul = open("/dev/null", O_RDONLY);
		if (pf)
			dup2(nul, atoi(pf));
		if (rf)
			close(atoi(rf));
		closefrom(3);
		char *av[] = { (char *)"cat", (char *)f, NULL };
		execvp("cat", av);
	} else if (!strcmp(m, "spawn")) {
		char *av[] = { (char *)"cat", (char *)f, NULL };
		char *ev[] = { (char *)"PATH=/usr/bin:/bin", NULL };
		pid_t p;
		if (posix_spawnp(&p, "cat", NULL, NULL, av, ev) != 0)
			return 101;
		int st;
		waitpid(p, &st, 0);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
	}
	perror("exec");
	return 127;
}
