/* Unit tests of the tree workload's parts: the default shape's facts, measuring a tree, the order of runs. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/fileio.h"
#include "fsbench/workloads/tree.h"

/* Every shape must list parents before children and files by directory: the phases rely on both. */
static void check_order(const struct tree_shape *s)
{
	assert_int_equal(s->parent[0], 0);
	assert_string_equal(s->dpath[0], ".");
	for (uint32_t d = 1; d < s->ndirs; d++)
		assert_true(s->parent[d] < d);
	for (uint32_t f = 1; f < s->nfiles; f++)
		assert_true(s->fdir[f - 1] <= s->fdir[f]);
}

/* The measured kernel tree: 527 directories, 9418 files, each size class as often as measured. */
static void test_default_shape(void **unused)
{
	struct tree_shape s;
	uint64_t bytes = 0;
	uint32_t src = 0, small = 0;

	(void)unused;
	assert_int_equal(tree_shape_default(&s), 0);
	assert_int_equal(s.ndirs, 527);
	assert_int_equal(s.nfiles, 9418);
	check_order(&s);
	for (uint32_t f = 0; f < s.nfiles; f++) {
		bytes += s.fsize[f];
		src += s.fkind[f] == TK_SOURCE;
		small += s.fsize[f] < 4; /* bit length <= 2: none were measured */
	}
	assert_int_equal(small, 0);
	assert_true(bytes == s.bytes);
	assert_int_equal(src, s.nsources);
	/* sizes drawn inside the measured classes land near the measured 51677611 bytes */
	assert_true(s.bytes > 40000000 && s.bytes < 65000000);
	/* every other header stands in for a stripped .c (tree_shape.c) */
	assert_true(s.nsources > 4000 && s.nsources < 5400);
	tree_shape_free(&s);
}

static void put(const char *path, size_t size)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (size_t i = 0; i < size; i++)
		fputc('x', f);
	fclose(f);
}

/* A tree with a link, a fifo and nested directories: only directories and regular files count. */
static void test_measure(void **unused)
{
	char root[] = "/tmp/test-tree.XXXXXX", p[256], err[512] = "";
	struct tree_shape s;

	(void)unused;
	assert_non_null(mkdtemp(root));
	snprintf(p, sizeof(p), "%s/b", root);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/a", root);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/a/deep", root);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/top.c", root);
	put(p, 100);
	snprintf(p, sizeof(p), "%s/a/x.h", root);
	put(p, 7);
	snprintf(p, sizeof(p), "%s/a/deep/Makefile", root);
	put(p, 0);
	snprintf(p, sizeof(p), "%s/b/y.S", root);
	put(p, 30);
	snprintf(p, sizeof(p), "%s/link", root);
	assert_int_equal(symlink("top.c", p), 0);
	snprintf(p, sizeof(p), "%s/b/fifo", root);
	assert_int_equal(mkfifo(p, 0600), 0);

	assert_int_equal(tree_shape_measure(root, &s, err, sizeof(err)), 0);
	assert_int_equal(s.ndirs, 4);
	assert_int_equal(s.nfiles, 4);
	assert_true(s.bytes == 137);
	assert_int_equal(s.nsources, 2);
	assert_true(s.source_bytes == 130);
	check_order(&s);
	/* breadth first, names sorted: root, a, b, a/deep; root's file first */
	assert_int_equal(s.parent[1], 0);
	assert_int_equal(s.parent[2], 0);
	assert_int_equal(s.parent[3], 1);
	assert_int_equal(s.fdir[0], 0);
	assert_true(s.fsize[0] == 100);
	assert_string_equal(s.dpath[3], "d1/d3");
	tree_shape_free(&s);

	/* a missing tree and a symbolic link to one are refused with the path */
	snprintf(p, sizeof(p), "%s/none", root);
	assert_int_equal(tree_shape_measure(p, &s, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "--shape-from"));
	assert_non_null(strstr(err, p));
	snprintf(p, sizeof(p), "%s/dirlink", root);
	assert_int_equal(symlink("a", p), 0);
	assert_true(tree_shape_measure(p, &s, err, sizeof(err)) < 0);
	/* a tree with no files has no shape */
	snprintf(p, sizeof(p), "%s/a/deep/empty", root);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(tree_shape_measure(p, &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(base_rm_tree(root), 0);
}

/* --makej: each tree created then compiled, three reads of compiled trees, every tree deleted. */
static void test_schedule_makej(void **unused)
{
	struct tree_step *v;
	size_t n;
	uint32_t nt;

	(void)unused;
	assert_int_equal(tree_schedule(4, 0, true, 1, &v, &n, &nt), 0);
	assert_int_equal(nt, 4);
	assert_int_equal(n, 4 * 2 + 3 + 4);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(v[2 * i].phase, TP_INITIAL_CREATE);
		assert_int_equal(v[2 * i].tree, i);
		assert_int_equal(v[2 * i + 1].phase, TP_COMPILE);
		assert_int_equal(v[2 * i + 1].tree, i);
	}
	for (size_t k = 8; k < 11; k++)
		assert_int_equal(v[k].phase, TP_READ_COMPILED);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(v[11 + i].phase, TP_DELETE_COMPILED);
	free(v);
}

/* Random runs: reproducible from the seed, and every run finds its tree in the state it needs. */
static void test_schedule_random(void **unused)
{
	struct tree_step *a, *b;
	size_t na, nb;
	uint32_t nta, ntb, seen = 0;
	uint8_t state[64] = { 0 };

	(void)unused;
	assert_int_equal(tree_schedule(3, 40, false, 7, &a, &na, &nta), 0);
	assert_int_equal(tree_schedule(3, 40, false, 7, &b, &nb, &ntb), 0);
	assert_int_equal(na, 43);
	assert_int_equal(nb, na);
	assert_int_equal(nta, ntb);
	assert_memory_equal(a, b, na * sizeof(*a));
	for (size_t k = 0; k < na; k++) {
		uint8_t p = a[k].phase, *t = &state[a[k].tree];

		assert_true(a[k].tree < nta);
		seen |= 1u << p;
		switch (p) {
		case TP_INITIAL_CREATE:
			assert_true(k < 3);
			/* fall through */
		case TP_CREATE:
			assert_int_equal(*t, 0);
			*t = 1;
			break;
		case TP_COMPILE:
			assert_int_equal(*t, 1);
			*t = 2;
			break;
		case TP_CLEAN:
			assert_int_equal(*t, 2);
			*t = 1;
			break;
		case TP_DELETE:
			assert_int_equal(*t, 1);
			*t = 0;
			break;
		case TP_DELETE_COMPILED:
			assert_int_equal(*t, 2);
			*t = 0;
			break;
		case TP_READ_COMPILED:
		case TP_STAT_COMPILED:
			assert_int_equal(*t, 2);
			break;
		default:
			assert_int_equal(*t, 1);
		}
	}
	assert_true(__builtin_popcount(seen) >= 6);
	free(a);
	free(b);
	assert_int_equal(tree_schedule(TREE_MAX_TREES, 1, false, 1, &a, &na, &nta), -E2BIG);
}

/* compilebench's spelling, which harnesses match, and which phases report MB/s. */
static void test_phase_names(void **unused)
{
	(void)unused;
	assert_string_equal(tree_phase_names[TP_INITIAL_CREATE], "intial create");
	assert_string_equal(tree_phase_names[TP_READ_COMPILED], "read compiled tree");
	assert_string_equal(tree_phase_names[TP_STAT_COMPILED], "stat compiled tree");
	assert_true(tree_phase_is_rate(TP_CLEAN));
	assert_true(tree_phase_is_rate(TP_READ_COMPILED));
	assert_false(tree_phase_is_rate(TP_DELETE));
	assert_false(tree_phase_is_rate(TP_STAT_COMPILED));
	assert_true(tree_object_size(1000, 1.53) == 1530);
	assert_true(tree_object_size(0, 1.53) == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_shape),  cmocka_unit_test(test_measure),
		cmocka_unit_test(test_schedule_makej), cmocka_unit_test(test_schedule_random),
		cmocka_unit_test(test_phase_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
