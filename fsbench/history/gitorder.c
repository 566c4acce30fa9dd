/*
 * Kernels in a git tree's order: `git rev-list --topo-order --reverse REV` places each
 * kernel by its commit, for a stream of builds of one tree (a lab's nightly builds of a
 * branch), where neither package versions nor releases tell commits apart.
 */
#include "fsbench/history/series.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/spawn.h"

/* the shortest abbreviation of a commit that is placed: git's own default abbreviation */
#define SHORTEST 7

static bool hex_commit(const char *c)
{
	size_t n = strlen(c);

	if (n < SHORTEST || n > 40)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)c[i]) || isupper((unsigned char)c[i]))
			return false;
	return true;
}

/* `git -C @tree rev-list --topo-order --reverse @rev` into an unlinked file, rewound. */
static int rev_list(const char *tree, const char *rev, FILE **ret, char *err, size_t errlen)
{
	char *argv[] = { "git",	      "-C",	   (char *)tree, "rev-list", "--topo-order",
			 "--reverse", (char *)rev, "--",	 NULL };
	char msg[512] = "";
	int fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600), st;

	if (fd < 0) {
		snprintf(err, errlen, "a temporary file for git rev-list: %s", strerror(errno));
		return -errno;
	}
	st = base_spawn_tool_fd(argv, 0, fd, BASE_SPAWN_FIRST, msg, sizeof(msg));
	if (st) {
		if (st < 0)
			snprintf(err, errlen, "running git rev-list in %s: %s", tree,
				 strerror(-st));
		else
			snprintf(err, errlen, "git -C %s rev-list %s: exit %d: %s", tree, rev, st,
				 msg[0] ? msg : "(no message)");
		close(fd);
		return st < 0 ? st : -EINVAL;
	}
	if (lseek(fd, 0, SEEK_SET) < 0 || !(*ret = fdopen(fd, "r"))) {
		snprintf(err, errlen, "reading git rev-list's output: %s", strerror(errno));
		close(fd);
		return -EIO;
	}
	return 0;
}

static int by_place(const void *a, const void *b)
{
	const struct hist_kernel_row *x = a, *y = b;

	return (x->place > y->place) - (x->place < y->place);
}

int hist_order_git(struct hist_summary *sum, const char *tree, const char *rev, size_t *dropped,
		   char *err, size_t errlen)
{
	json_t *by7 = json_object(); /* a commit's first 7 digits -> [kernel index...] */
	char line[128];
	size_t place = 0, kept = 0;
	FILE *f = NULL;
	int r;

	*dropped = 0;
	if (!by7) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (size_t i = 0; i < sum->nkernels; i++) {
		char key[SHORTEST + 1];
		json_t *l;

		sum->kernels[i].place = 0;
		if (!hex_commit(sum->kernels[i].k.commit))
			continue;
		snprintf(key, sizeof(key), "%.7s", sum->kernels[i].k.commit);
		if (!(l = json_object_get(by7, key)) &&
		    json_object_set_new(by7, key, l = json_array()))
			l = NULL;
		if (!l || json_array_append_new(l, json_integer((json_int_t)i))) {
			json_decref(by7);
			snprintf(err, errlen, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
	}
	if ((r = rev_list(tree, rev, &f, err, errlen))) {
		json_decref(by7);
		return r;
	}
	while (fgets(line, sizeof(line), f)) {
		char key[SHORTEST + 1];
		json_t *l, *v;
		size_t k;

		line[strcspn(line, "\n")] = 0;
		place++;
		snprintf(key, sizeof(key), "%.7s", line);
		if (!(l = json_object_get(by7, key)))
			continue;
		json_array_foreach(l, k, v)
		{
			struct hist_kernel_row *kr = &sum->kernels[json_integer_value(v)];

			if (!kr->place && !strncmp(line, kr->k.commit, strlen(kr->k.commit)))
				kr->place = place;
		}
	}
	r = ferror(f) ? -EIO : 0;
	fclose(f);
	json_decref(by7);
	if (r) {
		snprintf(err, errlen, "reading git rev-list's output: %s", strerror(EIO));
		return r;
	}
	/* the kernels placed, in the tree's order; the others are no point of any series */
	for (size_t i = 0; i < sum->nkernels; i++)
		if (sum->kernels[i].place)
			sum->kernels[kept++] = sum->kernels[i];
	*dropped = sum->nkernels - kept;
	sum->nkernels = kept;
	qsort(sum->kernels, sum->nkernels, sizeof(*sum->kernels), by_place);
	return 0;
}
