/* pl_fork.c — the preload keeps deciding in fork and vfork children, and in a child of a
 * threaded parent.
 *   usage: pl_fork DENIED_FILE
 * Exit 0 when every child saw EACCES (fork child, vfork+execve of cat on the file, child forked
 * while another thread is inside a denied call loop). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *target;
static volatile int stop;

static void *spin(void *a)
{
	(void)a;
	while (!stop) {
		int fd = open(target, O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

static int child_open(void)
{
	int fd = open(target, O_RDONLY);
	return (fd < 0 && errno == EACCES) ? 0 : 1;
}

static int wait_ok(pid_t p)
{
	int st;
	if (waitpid(p, &st, 0) != p)
		return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	target = argv[1];
	volatile int bad = 0;

	pid_t p = fork();
	if (p == 0)
		_exit(child_open());
	if (!wait_ok(p)) {
		puts("BAD fork child");
		bad++;
	}

	/* vfork + execve: cat must be refused (exit status 1 from cat) */
	char *av[] = { (char *)"cat", (char *)target, NULL };
	char *ev[] = { NULL };
	p = vfork();
	if (p == 0) {
		execve("/bin/cat", av, ev);
		_exit(127);
	}
	int st;
	waitpid(p, &st, 0);
	if (!(WIFEXITED(st) && WEXITSTATUS(st) == 1)) {
		printf("BAD vfork+execve cat: status %d\n", st);
		bad++;
	}

	pthread_t t;
	pthread_create(&t, NULL, spin, NULL);
	for (int i = 0; i < 20; i++) {
		p = fork();
		if (p == 0)
			_exit(child_open());
		if (!wait_ok(p)) {
			puts("BAD fork child of threaded parent");
			bad++;
		}
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("%s\n", bad ? "FAILED" : "ok");
	return bad ? 1 : 0;
}
