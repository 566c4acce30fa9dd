/* `fsbench lava import`: its options and lines over fsbench/lava/import.h. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"
#include "fsbench/cli/history_run.h"
#include "fsbench/lava/import.h"
#include "fsbench/suite/suite.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/result_file.h"

struct import_cfg {
	char *output, *suite, *fs, *threads;
	char *kernel, *package, *commit, *history;
	struct cmd_files files;
};

static const struct fsb_opt import_opts[] = {
	{ .name = "output",
	  .short_name = 'o',
	  .type = OPT_STRING,
	  .offset = offsetof(struct import_cfg, output),
	  .file = OPT_FILE,
	  .help = "the fsbench result to write (required)" },
	{ .name = "suite",
	  .type = OPT_STRING,
	  .offset = offsetof(struct import_cfg, suite),
	  .help = "the suite the job ran (a name or a file): each run gets its cell's "
		  "coordinates, so compare pairs it with a local run" },
	{ .name = "fs",
	  .type = OPT_STRING,
	  .offset = offsetof(struct import_cfg, fs),
	  .help = "with --suite: the --fs LIST the job's suite ran with" },
	{ .name = "threads",
	  .type = OPT_STRING,
	  .offset = offsetof(struct import_cfg, threads),
	  .help = "with --suite: the --threads LIST the job's suite ran with" },
	{ .name = "kernel",
	  .type = OPT_STRING,
	  .offset = offsetof(struct import_cfg, kernel),
	  .help = "the release the job booted (uname -r): the result's kernel, which LAVA's "
		  "test cases do not carry" },
	{ .name = "kernel-package",
	  .type = OPT_STRING,
	  .offset = offsetof(struct import_cfg, package),
	  .help = "with --kernel: its Debian package version (6.1.170-1), the history's order" },
	{ .name = "kernel-commit",
	  .type = OPT_STRING,
	  .offset = offsetof(struct import_cfg, commit),
	  .help = "with --kernel: its git commit (7 to 40 hex digits)" },
	{ .name = "history",
	  .type = OPT_STRING,
	  .offset = offsetof(struct import_cfg, history),
	  .help = "with --kernel: add the result to the history store DB (a SQLite file or a "
		  "postgresql:// URI; 'default' for the default store, docs/history.md)" },
	{ 0 },
};

static void import_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench lava import -o RESULT.json [--suite S [--fs L] [--threads L]]\n"
		"                           [--kernel RELEASE [--kernel-package V] [--kernel-commit C]\n"
		"                           [--history DB]] LAVA-RESULTS.yaml|json...\n\n"
		"LAVA's test cases (as its API or lavacli gives them) back as an fsbench result\n"
		"that compare can gate. Each file's runs are repetitions of their cells after the\n"
		"files' before it; two files of one LAVA job are refused.\n\n");
}

static int lava_import(void *cfg)
{
	const struct import_cfg *c = cfg;
	const char *out = c->output;
	struct lava_import im = { 0 };
	json_t *doc = NULL, *all = NULL;
	int r = FSB_EXIT_FAIL, e;
	char err[1024];

	if (!out || !c->files.n) {
		fprintf(stderr, "fsbench lava import: %s (see --help)\n",
			out ? "no LAVA results file" : "-o RESULT.json is required");
		return FSB_EXIT_USAGE;
	}
	if ((c->fs || c->threads) && !c->suite) {
		fprintf(stderr, "fsbench lava import: --fs and --threads go with --suite\n");
		return FSB_EXIT_USAGE;
	}
	if ((c->package || c->commit || c->history) && !c->kernel) {
		fprintf(stderr,
			"fsbench lava import: --kernel-package, --kernel-commit and --history "
			"go with --kernel (the history keeps a result by its kernel)\n");
		return FSB_EXIT_USAGE;
	}
	if (c->kernel &&
	    lava_import_kernel_check(c->kernel, c->package, c->commit, err, sizeof(err))) {
		fprintf(stderr, "fsbench lava import: %s\n", err);
		return FSB_EXIT_USAGE;
	}
	/* the suite and every file read before any is taken: a broken one is a usage error */
	struct suite su;
	bool have_suite = c->suite != NULL;

	memset(&su, 0, sizeof(su));
	if (have_suite &&
	    lava_import_suite_load(c->suite, c->fs, c->threads, &su, err, sizeof(err))) {
		fprintf(stderr, "fsbench lava import: --suite %s: %s\n", c->suite, err);
		return FSB_EXIT_USAGE;
	}
	e = lava_results_load_all(c->files.v, c->files.n, &all, err, sizeof(err));
	if (e == -EINVAL) {
		fprintf(stderr, "fsbench lava import: %s\n", err);
		if (have_suite)
			suite_free(&su);
		return FSB_EXIT_USAGE;
	}
	/* each file's runs are repetitions of their own, after the files' before it */
	for (size_t i = 0; !e && i < json_array_size(all); i++)
		if ((e = i ? lava_import_next_file(&im) : 0) ||
		    (e = lava_import_cases(&im, json_array_get(all, i), err, sizeof(err))))
			if (e == -ENOMEM)
				snprintf(err, sizeof(err), "%s", strerror(ENOMEM));
	if (e)
		fprintf(stderr, "fsbench lava import: %s\n", err);
	else if (!im.used)
		fprintf(stderr,
			"fsbench lava import: no fsbench test case among %zu (names like "
			"smallfile.t1.ext4-smallfile-t-1.r1.files_per_sec)\n",
			im.seen);
	else if (have_suite && lava_import_suite(&im, &su, err, sizeof(err)))
		fprintf(stderr, "fsbench lava import: --suite %s: %s\n", c->suite, err);
	else if ((e = (doc = lava_import_doc(&im, c->files.v, c->files.n, c->kernel, c->package,
					     c->commit)) ?
			      mdl_json_write_atomic(doc, out) :
			      -ENOMEM))
		fprintf(stderr, "fsbench lava import: writing %s: %s\n", out, strerror(-e));
	else {
		fprintf(stderr,
			"fsbench lava import: %zu measurements in %zu runs into %s (%zu other test cases)\n",
			im.used, json_array_size(im.runs), out, im.seen - im.used);
		r = FSB_EXIT_OK;
		if (c->history)
			r = cmd_history_add("lava import", c->history, (const char *const *)&out, 1,
					    false, r);
	}
	json_decref(doc);
	json_decref(all);
	lava_import_free(&im);
	if (have_suite)
		suite_free(&su);
	return r;
}

static const struct cmd_spec import_cmd = {
	.name = "lava import",
	.opts = import_opts,
	.files_offset = offsetof(struct import_cfg, files),
	.usage = import_usage,
	.run = lava_import,
};

int cmd_lava_import(int argc, char **argv)
{
	struct import_cfg c;

	memset(&c, 0, sizeof(c));
	return cmd_args_run(&import_cmd, &c, argc, argv);
}
