/* Suites: --fs, --threads and workload selection on a parsed suite. */
#include "fsbench/suite/parser.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *c = list; *c;) {
		size_t l = strcspn(c, ",");

		if (l == n && !strncmp(c, name, n))
			return true;
		c += l;
		if (*c)
			c++;
	}
	return false;
}

/* Every comma-separated name must match something: a typo must not shrink the matrix. */
static int check_list(const char *opt, const char *list,
		      bool (*known)(const struct suite *, const char *, size_t),
		      const struct suite *s, char *err, size_t errlen)
{
	if (!*list) {
		snprintf(err, errlen, "%s: an empty list selects nothing", opt);
		return -EINVAL;
	}
	for (const char *c = list; *c;) {
		size_t l = strcspn(c, ",");

		if (!l || !known(s, c, l)) {
			snprintf(err, errlen, "%s: '%.*s' is not in suite %s", opt, (int)l, c,
				 s->path);
			return -EINVAL;
		}
		c += l;
		if (*c)
			c++;
	}
	return 0;
}

static bool fs_known(const struct suite *s, const char *name, size_t n)
{
	for (int i = 0; i < s->nfs; i++)
		if ((strlen(s->fs[i].type) == n && !strncmp(s->fs[i].type, name, n)) ||
		    (strlen(s->fs[i].label) == n && !strncmp(s->fs[i].label, name, n)))
			return true;
	return false;
}

int suite_select_fs(struct suite *s, const char *list, char *err, size_t errlen)
{
	int r = check_list("--fs", list, fs_known, s, err, errlen), n = 0;

	if (r < 0)
		return r;
	for (int i = 0; i < s->nfs; i++) {
		if (in_list(list, s->fs[i].type) || in_list(list, s->fs[i].label))
			s->fs[n++] = s->fs[i];
		else
			suite_fs_release(&s->fs[i]);
	}
	for (int i = n; i < s->nfs; i++)
		memset(&s->fs[i], 0, sizeof(s->fs[i]));
	s->nfs = n;
	return 0;
}

int suite_select_workloads(struct suite *s, const char *list, char *err, size_t errlen)
{
	int n = 0;

	(void)err;
	(void)errlen;
	for (int i = 0; i < s->nwl; i++) {
		struct suite_workload *w = &s->wl[i];

		if (in_list(list, w->wl->name) || in_list(list, w->label)) {
			s->wl[n++] = *w;
			continue;
		}
		free(w->label);
		for (int j = 0; j < w->np; j++) {
			free(w->pname[j]);
			free(w->pvalue[j]);
		}
		json_decref(w->params);
	}
	for (int i = n; i < s->nwl; i++)
		memset(&s->wl[i], 0, sizeof(s->wl[i]));
	s->nwl = n;
	return 0;
}

int suite_set_threads(struct suite *s, const char *list, char *err, size_t errlen)
{
	int th[SUITE_MAX_THREADS], n = 0;

	for (const char *c = list; *c;) {
		size_t l = strcspn(c, ",");
		char num[16];
		int64_t v;

		snprintf(num, sizeof(num), "%.*s", (int)(l < 15 ? l : 15), c);
		if (n == SUITE_MAX_THREADS || opt_parse_int(num, &v) < 0 || v < 1 ||
		    v > FSB_MAX_THREADS) {
			snprintf(
				err, errlen,
				"--threads: '%.*s' is not a thread count (1..%d, at most %d of them)",
				(int)l, c, FSB_MAX_THREADS, SUITE_MAX_THREADS);
			return -EINVAL;
		}
		th[n++] = (int)v;
		c += l;
		if (*c)
			c++;
	}
	if (!n) {
		snprintf(err, errlen, "--threads: an empty list");
		return -EINVAL;
	}
	memcpy(s->threads, th, sizeof(th[0]) * (size_t)n);
	s->nthreads = n;
	for (int i = 0; i < s->nwl; i++)
		s->wl[i].nthreads = 0;
	return 0;
}
