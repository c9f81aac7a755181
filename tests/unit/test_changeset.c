/* test_changeset.c — the shadow change set read from a hand-made overlay upper directory: a
 * modified file, a chmod-only copy-up (a mode change, not a modification), a copy-up without any
 * change (nothing), a new file, a rename (delete + create of identical content), an opaque
 * directory (user.overlay.opaque: its real entries not in the upper are deleted), a whiteout
 * (char 0/0: only where mknod of it is allowed), a fifo (type special); the set's hash is stable
 * across the JSON round trip and changes with the content. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "changeset.h"

static char root[64];

static void put(const char *rel, const char *s, mode_t m)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(s, f);
	fclose(f);
	assert_int_equal(chmod(p, m), 0);
}

static void dir(const char *rel)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static const struct cs_entry *find(const struct changeset *cs, const char *path)
{
	for (size_t i = 0; i < cs->n; i++)
		if (!strcmp(cs->e[i].path, path))
			return &cs->e[i];
	return NULL;
}

static void t_overlay(void **state)
{
	(void)state;
	snprintf(root, sizeof root, "/tmp/sbx-cs-XXXXXX");
	assert_non_null(mkdtemp(root));
	dir("lo"); dir("up");
	put("lo/mod.txt", "old\n", 0644);
	put("lo/chmod.txt", "same\n", 0644);
	put("lo/touched.txt", "same\n", 0644);
	put("lo/moved.txt", "moving content\n", 0644);
	put("lo/gone.txt", "bye\n", 0644);
	dir("lo/opq"); put("lo/opq/old1", "1", 0644); put("lo/opq/kept", "k", 0644);
	put("up/mod.txt", "new!\n", 0644);
	put("up/chmod.txt", "same\n", 0600);
	put("up/touched.txt", "same\n", 0644);
	put("up/new.txt", "fresh\n", 0644);
	put("up/renamed.txt", "moving content\n", 0644);
	dir("up/opq"); put("up/opq/kept", "k2", 0644);
	char p[256];
	snprintf(p, sizeof p, "%s/up/opq", root);
	if (setxattr(p, "user.overlay.opaque", "y", 1, 0) < 0)
		skip(); /* no user xattrs on this file system */
	snprintf(p, sizeof p, "%s/up/moved.txt", root);
	bool wh = mknod(p, S_IFCHR | 0, makedev(0, 0)) == 0;
	snprintf(p, sizeof p, "%s/up/pipe", root);
	assert_int_equal(mkfifo(p, 0644), 0);
	if (!wh) { /* the real file stays: no rename then */
		snprintf(p, sizeof p, "%s/lo/moved.txt", root);
		unlink(p);
	}
	snprintf(p, sizeof p, "%s/up/gone.txt", root);
	bool wh2 = mknod(p, S_IFCHR | 0, makedev(0, 0)) == 0;

	char up[128], lo[128], err[256];
	snprintf(up, sizeof up, "%s/up", root);
	snprintf(lo, sizeof lo, "%s/lo", root);
	int ufd = open(up, O_RDONLY | O_DIRECTORY), lfd = open(lo, O_RDONLY | O_DIRECTORY);
	struct changeset cs;
	assert_int_equal(cs_from_overlay(ufd, lfd, &cs, err, sizeof err), 0);

	const struct cs_entry *e;
	assert_non_null(e = find(&cs, "mod.txt"));
	assert_int_equal(e->kind, CS_MODIFIED);
	assert_true(e->real.exists);
	assert_non_null(e = find(&cs, "chmod.txt"));
	assert_int_equal(e->kind, CS_MODE);
	assert_int_equal(e->mode & 07777, 0600);
	assert_null(find(&cs, "touched.txt"));
	assert_non_null(e = find(&cs, "new.txt"));
	assert_int_equal(e->kind, CS_CREATED);
	assert_non_null(e = find(&cs, "renamed.txt"));
	if (wh) {
		assert_int_equal(e->kind, CS_RENAMED);
		assert_string_equal(e->from, "moved.txt");
		assert_null(find(&cs, "moved.txt"));
	} else {
		assert_int_equal(e->kind, CS_CREATED);
	}
	if (wh2) {
		assert_non_null(e = find(&cs, "gone.txt"));
		assert_int_equal(e->kind, CS_DELETED);
	}
	assert_non_null(e = find(&cs, "opq/old1"));
	assert_int_equal(e->kind, CS_DELETED);
	assert_non_null(e = find(&cs, "opq/kept"));
	assert_int_equal(e->kind, CS_MODIFIED);
	assert_non_null(e = find(&cs, "pipe"));
	assert_int_equal(e->type, CS_T_SPECIAL);
	assert_int_equal(e->kind, CS_CREATED);

	/* the hash survives the JSON round trip, and names the content */
	cJSON *j = cs_to_json(&cs);
	struct changeset back;
	assert_int_equal(cs_from_json(j, &back), 0);
	assert_string_equal(back.hash, cs.hash);
	assert_int_equal(back.n, cs.n);
	cJSON_Delete(j);
	cs_free(&back);
	char h1[65];
	memcpy(h1, cs.hash, sizeof h1);
	cs_free(&cs);
	put("up/new.txt", "fresh?\n", 0644);
	assert_int_equal(cs_from_overlay(ufd, lfd, &cs, err, sizeof err), 0);
	assert_string_not_equal(h1, cs.hash);
	cs_free(&cs);
	close(ufd);
	close(lfd);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_overlay),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
