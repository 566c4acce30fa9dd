/* A command's --help run with its output and option tables kept, for its man page and completion. */
#include "fsbench/doc/capture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * A command's tables are static in its handler file; its --help is the one place that
 * shows them all. So each command's --help runs with stdout in a temporary file and
 * opt_print_help() hooked (opt.h): the hook keeps the table and leaves a marker line where
 * the table would have been printed, and the text around the markers is the usage the
 * command prints above and below. Options, defaults, ranges and help text are then the
 * table's own, formatted by opt_help_text() as --help formats them.
 */
static void keep_table(const struct fsb_opt *tbl, FILE *out, void *data)
{
	struct doc_captured *c = data;
	size_t n = 0;

	while (tbl[n].name)
		n++;
	/* shallow: the strings are the static tables' (job.c copies entries, not text) */
	if (c->ntbl >= DOC_MAX_TABLES || !(c->tbl[c->ntbl] = calloc(n + 1, sizeof(*tbl))))
		return;
	memcpy(c->tbl[c->ntbl], tbl, n * sizeof(*tbl));
	fprintf(out, "%c%d\n", DOC_MARK, c->ntbl++);
}

void doc_captured_free(struct doc_captured *c)
{
	for (int i = 0; i < c->ntbl; i++)
		free(c->tbl[i]);
	free(c->text);
	memset(c, 0, sizeof(*c));
}

int doc_capture(const struct doc_program *p, int i, const char *sub, struct doc_captured *c,
		char *err, size_t errlen)
{
	const char *name = p->cmds[i].name;
	char *argv[] = { (char *)name, (char *)(sub ? sub : "--help"), sub ? "--help" : NULL,
			 NULL };
	int argc = sub ? 3 : 2, saved, status, r = 0;
	FILE *tmp = tmpfile();
	long size;

	memset(c, 0, sizeof(*c));
	if (!tmp || fflush(stdout) == EOF || (saved = dup(STDOUT_FILENO)) < 0) {
		r = -errno;
		snprintf(err, errlen, "capturing fsbench %s --help: %s", name, strerror(errno));
		if (tmp)
			fclose(tmp);
		return r;
	}
	dup2(fileno(tmp), STDOUT_FILENO);
	opt_set_help_hook(keep_table, c);
	status = p->help(i, argc, argv);
	fflush(stdout);
	opt_set_help_hook(NULL, NULL);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	size = ftell(tmp);
	if (status != 0 || size < 0 || !(c->text = calloc(1, (size_t)size + 1))) {
		snprintf(err, errlen, "fsbench %s%s%s --help: exit status %d", name, sub ? " " : "",
			 sub ? sub : "", status);
		fclose(tmp);
		doc_captured_free(c);
		return -EINVAL;
	}
	rewind(tmp);
	if (fread(c->text, 1, (size_t)size, tmp) != (size_t)size)
		r = -EIO;
	fclose(tmp);
	if (r) {
		snprintf(err, errlen, "reading back fsbench %s --help: %s", name, strerror(-r));
		doc_captured_free(c);
	}
	return r;
}
