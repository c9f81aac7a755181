/* pl_threads.c — many threads hit denied opens concurrently.
 *   usage: pl_threads DENIED_FILE THREADS PER_THREAD
 * Every call must fail with EACCES; prints "denied N" (the total) and exits 0 when all were. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *target;
static int per;
static atomic_int denied, other;

static void *run(void *arg)
{
	(void)arg;
	for (int i = 0; i < per; i++) {
		int fd = open(target, O_RDONLY);
		if (fd >= 0) {
			close(fd);
			atomic_fetch_add(&other, 1);
		} else if (errno == EACCES) {
			atomic_fetch_add(&denied, 1);
		} else {
			atomic_fetch_add(&other, 1);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	target = argv[1];
	int n = atoi(argv[2]);
	per = atoi(argv[3]);
	pthread_t t[256];
	if (n < 1 || n > 256)
		return 2;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, run, NULL) != 0)
			return 3;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("denied %d other %d\n", atomic_load(&denied), atomic_load(&other));
	return atomic_load(&other) ? 1 : 0;
}
