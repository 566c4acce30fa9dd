/* The knob tests' fixture: a fresh copy of fixtures/knobs-sysfs per test, and its helpers. */
#include "tests/unit/knob_fixture.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

char root[PATH_MAX], state[PATH_MAX + 16];

void slurp(const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX * 2];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "re");
	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

void put(const char *rel, const char *value)
{
	char path[PATH_MAX * 2];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(value, f);
	fclose(f);
}

/* Every test works on a fresh copy: knobs write into it. */
int setup(void **st)
{
	char cmd[PATH_MAX * 3];

	(void)st;
	snprintf(root, sizeof(root), "%s/fsbench-knob.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root))
		return -1;
	if (!getenv("FSB_FIXTURES"))
		return -1;
	snprintf(cmd, sizeof(cmd), "cp -a '%s/knobs-sysfs/.' '%s/'", getenv("FSB_FIXTURES"), root);
	if (system(cmd) != 0)
		return -1;
	snprintf(state, sizeof(state), "%s/state", root);
	return 0;
}

int teardown(void **st)
{
	char cmd[PATH_MAX + 32];

	(void)st;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

void target(const char *disk, const char *mnt, const char *fstype, struct knob_target *t)
{
	assert_int_equal(knob_target_init(root, disk, mnt, fstype, t), 0);
}

struct journal *new_journal(void)
{
	struct journal *j = NULL;

	assert_int_equal(journal_open(state, &j), 0);
	return j;
}

/* A journal in the state directory left by a process that has died, one entry in it. */
FILE *dead_journal(char *path, size_t len)
{
	pid_t child;
	FILE *f;

	mkdir(state, 0700);
	child = fork();
	if (child == 0)
		_exit(0);
	assert_true(child > 0);
	waitpid(child, NULL, 0);
	snprintf(path, len, "%s/journal-%d.jsonl", state, (int)child);
	f = fopen(path, "we");
	assert_non_null(f);
	fprintf(f, "{\"journal\":\"fsbench-journal/1\",\"pid\":%d,\"start\":12345}\n", (int)child);
	fprintf(f,
		"{\"knob\":\"nr_requests\",\"kind\":\"file\",\"path\":\"/sys/block/sda/queue/nr_requests\",\"value\":\"64\"}\n");
	return f;
}
