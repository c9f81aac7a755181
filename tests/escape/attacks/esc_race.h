/* esc_race.h — the flipping name of the escape corpus's race attacks (tests/escape/attacks/race/,
 * deny/deny_float_exec_race.c): one thread rewrites a name in memory between an allowed and a
 * forbidden string, again and again, while another makes a call with it.
 *
 * Contract: esc_flip_start(good, bad) copies both (each shorter than ESC_FLIP_MAX) and starts the
 * flipper on esc_flip_buf, which holds `good` first; esc_flip_count() is how many times it flipped;
 * esc_flip_stop() ends it. One flipper per process (a forked child starts its own).
 */
#ifndef ESC_RACE_H
#define ESC_RACE_H

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define ESC_FLIP_MAX 4096

static char esc_flip_buf[ESC_FLIP_MAX], esc_flip_good[ESC_FLIP_MAX], esc_flip_bad[ESC_FLIP_MAX];
static atomic_int esc_flip_stopped;
static atomic_ulong esc_flips;
static pthread_t esc_flip_thread;

static void *esc_flipper(void *a)
{
	(void)a;
	size_t gl = strlen(esc_flip_good) + 1, bl = strlen(esc_flip_bad) + 1;
	while (!atomic_load_explicit(&esc_flip_stopped, memory_order_relaxed)) {
		memcpy(esc_flip_buf, esc_flip_good, gl);
		memcpy(esc_flip_buf, esc_flip_bad, bl);
		atomic_fetch_add_explicit(&esc_flips, 1, memory_order_relaxed);
	}
	return NULL;
}

/* 0, or -1 (no thread). */
static inline int esc_flip_start(const char *good, const char *bad)
{
	strncpy(esc_flip_good, good, ESC_FLIP_MAX - 1);
	strncpy(esc_flip_bad, bad, ESC_FLIP_MAX - 1);
	memcpy(esc_flip_buf, esc_flip_good, strlen(esc_flip_good) + 1);
	atomic_store(&esc_flip_stopped, 0);
	return pthread_create(&esc_flip_thread, NULL, esc_flipper, NULL) ? -1 : 0;
}

static inline unsigned long esc_flip_count(void)
{
	return atomic_load_explicit(&esc_flips, memory_order_relaxed);
}

static inline void esc_flip_stop(void)
{
	atomic_store(&esc_flip_stopped, 1);
	pthread_join(esc_flip_thread, NULL);
}

#endif
