/* pl_spawnfa.c — posix_spawn with file actions that open a file for the child:
 *   pl_spawnfa FILE        open FILE as the child's stdin, run /bin/cat
 *   pl_spawnfa -C DIR NAME addchdir_np(DIR), then open NAME (relative) as stdin, run /bin/cat
 * Prints "spawn: <errno name or 0>" and the child's exit status; the child's output is its own.
 * For preload_spawn_actions (tests/integration/preload_files.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	const char *file;
	if (argc == 4 && !strcmp(argv[1], "-C")) {
		if (posix_spawn_file_actions_addchdir_np(&fa, argv[2]) != 0)
			return 3;
		file = argv[3];
	} else if (argc == 2) {
		file = argv[1];
	} else {
		return 2;
	}
	int r = posix_spawn_file_actions_addopen(&fa, 0, file, O_RDONLY, 0);
	if (r != 0) {
		printf("addopen: %s\n", strerror(r));
		return 1;
	}
	char *av[] = { "cat", NULL };
	pid_t pid;
	r = posix_spawn(&pid, "/bin/cat", &fa, NULL, av, environ);
	posix_spawn_file_actions_destroy(&fa);
	printf("spawn: %s\n", r ? strerror(r) : "0");
	fflush(stdout);
	if (r == 0) {
		int st;
		waitpid(pid, &st, 0);
		printf("exit: %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	return r ? 1 : 0;
}
