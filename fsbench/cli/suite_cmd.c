/* `fsbench suite FILE` and the embedded default: mkfs, mount, run every cell, one result. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"
#include "fsbench/suite/suite_run.h"
#include "fsbench/suite/suite.h"
#include "base/errf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct suite_args {
	struct suite_request q; /* file: the operand */
	bool dry_run;
};

#define O(f) offsetof(struct suite_args, f)
#define Q(f) offsetof(struct suite_args, q.f)
static const struct fsb_opt suite_opts[] = {
	{ .name = "dry-run",
	  .short_name = 'n',
	  .type = OPT_BOOL,
	  .offset = O(dry_run),
	  .max = 1,
	  .help = "print the expanded matrix (cells, mkfs command lines, mount options) and stop" },
	{ .name = "fs",
	  .type = OPT_STRING,
	  .offset = Q(fs),
	  .help = "only these filesystems (comma list of types or labels)" },
	{ .name = "threads",
	  .short_name = 't',
	  .type = OPT_STRING,
	  .offset = Q(threads),
	  .help = "replace every thread list with this one (1,2,4)" },
	{ .name = "workloads",
	  .type = OPT_STRING,
	  .offset = Q(workloads),
	  .help = "only these workloads (comma list of names or labels)" },
	{ .name = "repetitions",
	  .short_name = 'r',
	  .type = OPT_INT,
	  .offset = Q(repetitions),
	  .max = SUITE_MAX_REPETITIONS,
	  .def = "0",
	  .help = "repetitions of every cell (default: the suite's)" },
	{ .name = "json",
	  .type = OPT_STRING,
	  .offset = Q(json),
	  .file = OPT_FILE,
	  .help = "result file (default: fsbench-suite-NAME-DATE.json, printed)" },
	{ .name = "fail-fast",
	  .type = OPT_BOOL,
	  .offset = Q(fail_fast),
	  .max = 1,
	  .help = "stop at the first failing cell (default: record it as failed and go on)" },
	{ .name = "no-canary",
	  .type = OPT_BOOL,
	  .offset = Q(no_canary),
	  .max = 1,
	  .help = "no canary (200 fsyncs of one 4 KiB block in the target before and after every run, which compare uses to tell a drifting device from a change)" },
	{ .name = "image",
	  .type = OPT_STRING,
	  .offset = Q(image),
	  .file = OPT_FILE,
	  .help = "sparse image file to create (must not exist) and attach to a loop device; default: one in a temporary directory" },
	{ .name = "size",
	  .type = OPT_SIZE,
	  .offset = Q(size),
	  .max = INT64_C(1) << 50,
	  .def = "0",
	  .unit = "bytes",
	  .help = "size of the image (default: the suite's image_size)" },
	{ .name = "keep-image",
	  .type = OPT_BOOL,
	  .offset = Q(keep_image),
	  .max = 1,
	  .help = "leave the image file behind" },
	{ .name = "device",
	  .type = OPT_STRING,
	  .offset = Q(device),
	  .file = OPT_FILE,
	  .help = "block device to mkfs instead of an image (refused when mounted or holding a signature)" },
	{ .name = "force",
	  .type = OPT_BOOL,
	  .offset = Q(force),
	  .max = 1,
	  .help = "mkfs over an existing signature or partition table on --device" },
	{ .name = "dir",
	  .short_name = 'd',
	  .type = OPT_STRING,
	  .offset = Q(dir),
	  .file = OPT_DIR,
	  .help = "run in this existing directory instead: no mkfs, no mount, one filesystem" },
	{ .name = "quiet",
	  .short_name = 'q',
	  .type = OPT_BOOL,
	  .offset = Q(quiet),
	  .max = 1,
	  .help = "no progress and no table" },
	{ 0 },
};
#undef Q
#undef O

#define SUITE_ERR 8192

/* The command's side of a suite run: its flags, and the run (suite/suite_run.h) they set up. */
struct suite_ctx {
	struct suite_args a;
	struct suite_run r;
	bool tty; /* progress lines on stderr */
	const char *cmd;
};

/* Per workload: rows are thread counts, columns filesystems, means over repetitions. */
static void print_table(const struct suite_run *x)
{
	struct suite_table t;

	for (int w = 0; w < x->s.nwl; w++) {
		suite_table_axes(x, w, &t);
		if (!t.ncols)
			continue;
		printf("\n%s (%s, mean of complete repetitions)\n%-8s", x->s.wl[w].label,
		       suite_rate_unit(&x->s.wl[w]), "threads");
		for (int k = 0; k < t.ncols; k++)
			printf("%*s", t.width, t.cols[k]);
		printf("\n");
		for (int r = 0; r < t.nth; r++) {
			printf("%-8d", t.th[r]);
			for (int k = 0; k < t.ncols; k++) {
				int n;
				double mean = suite_column_mean(x, w, t.th[r], t.cols[k], &n);

				if (n)
					printf("%*.*f", t.width, mean >= 100 ? 0 : 1, mean);
				else
					printf("%*s", t.width, "-");
			}
			printf("\n");
		}
	}
}

static void print_dry_run(const struct suite_run *x)
{
	printf("suite %s (%s)\n", x->s.name, x->s.path);
	if (x->s.description)
		printf("  %s\n", x->s.description);
	printf("target: %s\n",
	       x->dir	 ? x->dir :
	       x->device ? x->device :
	       x->image	 ? x->image :
			   "a sparse image in a temporary directory, on a loop device");
	if (!x->dir)
		printf("image size: %lld bytes\n",
		       (long long)(x->size ? x->size : x->s.image_size));
	printf("%d cells x %d repetitions = %d runs\n", x->nrun / x->s.repetitions,
	       x->s.repetitions, x->nrun);
	for (int i = 0; i < x->ncells; i++) {
		const struct suite_cell *c = &x->cells[i];
		char *mkfs, *cmd;

		printf("%4d  %s", i + 1, c->name);
		if (c->skip) {
			printf("  (skipped: %s)\n", c->skip);
			continue;
		}
		printf("\n");
		if (suite_cell_lines(x, c, &mkfs, &cmd) < 0)
			continue;
		if (mkfs)
			printf("      mkfs: %s\n      mount options: %s\n", mkfs,
			       *c->mount_options ? c->mount_options : "(defaults)");
		printf("      %s\n", cmd);
		free(mkfs);
		free(cmd);
	}
}

static void on_note(void *arg, const char *msg)
{
	const struct suite_ctx *x = arg;

	if (!x->a.q.quiet)
		printf("%s\n", msg);
}

static void on_warn(void *arg, const char *msg)
{
	const struct suite_ctx *x = arg;

	fprintf(stderr, "fsbench %s: %s\n", x->cmd, msg);
}

static void on_skipped(void *arg, const struct suite_cell *c)
{
	const struct suite_ctx *x = arg;

	if (!x->a.q.quiet)
		printf("skipped %s: %s\n", c->name, c->skip);
}

static void on_cell_start(void *arg, const struct suite_run *r, const struct suite_cell *c, int rep,
			  double elapsed)
{
	const struct suite_ctx *x = arg;
	char eta[32];

	if (!x->tty)
		return;
	suite_eta(r, elapsed, eta, sizeof(eta));
	fprintf(stderr, "[%d/%d] %s rep %d/%d  (suite ETA %s)\n", r->done + 1, r->nrun, c->name,
		rep, r->s.repetitions, eta);
}

static void on_cell_done(void *arg, const struct suite_run *r, const struct suite_cell *c, int rep,
			 const json_t *run)
{
	const struct suite_ctx *x = arg;
	json_t *sum = json_object_get(run, "summary");

	if (x->a.q.quiet)
		return;
	if (json_is_true(json_object_get(sum, "complete")))
		printf("%-48s rep %d: %10.1f %s\n", c->name, rep,
		       suite_run_rate(&r->s.wl[c->wl], run), suite_rate_unit(&r->s.wl[c->wl]));
	else
		printf("%-48s rep %d: failed: %s\n", c->name, rep,
		       json_string_value(json_object_get(sum, "error")));
	fflush(stdout);
}

static const struct suite_observer cli_observer = {
	.note = on_note,
	.warn = on_warn,
	.skipped = on_skipped,
	.cell_start = on_cell_start,
	.cell_done = on_cell_done,
};

/* The suite run (suite/suite_run.h) with the CLI's progress, table and exit status. */
static int run_suite(struct suite_ctx *x, int argc, char **argv)
{
	struct suite_run *r = &x->r;
	char err[SUITE_ERR];
	int ret;

	x->tty = isatty(STDERR_FILENO) && !x->a.q.quiet;
	r->obs = &cli_observer;
	r->obs_arg = x;
	if (!x->a.q.quiet)
		printf("fsbench suite %s: %d runs; result in %s\n", r->s.name, r->nrun,
		       r->json_path);
	fflush(stdout);
	/* on disk before any work, marked incomplete until the last cell is in */
	if (suite_run_begin(r, argc, argv, err, sizeof(err)) < 0) {
		if (err[0])
			fprintf(stderr, "fsbench %s: %s\n", x->cmd, err);
		return FSB_EXIT_USAGE;
	}
	ret = suite_run(r, err, sizeof(err));
	if (err[0])
		fprintf(stderr, "fsbench %s: %s\n", x->cmd, err);
	if (ret == -EINTR) {
		fprintf(stderr,
			"fsbench %s: interrupted by signal %d; %d of %d runs in %s (incomplete)\n",
			x->cmd, r->signal, r->done, r->nrun, r->json_path);
		return 128 + r->signal;
	}
	if (!r->done && ret < 0)
		return FSB_EXIT_FAIL; /* no target: nothing ran */
	if (!x->a.q.quiet)
		print_table(r);
	if (r->failed)
		fprintf(stderr, "fsbench %s: some cells failed; see %s\n", x->cmd, r->json_path);
	return ret < 0 ? FSB_EXIT_FAIL : FSB_EXIT_OK;
}

static void ctx_free(struct suite_ctx *x)
{
	opt_free(suite_opts, &x->a);
	suite_run_free(&x->r);
}

static int file_operand(void *cfg, char *arg, char *err, size_t errlen)
{
	return cmd_one_operand(&((struct suite_args *)cfg)->q.file, arg, err, errlen);
}

static void suite_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench suite FILE [options]\n"
		"runs a suite (configs/*.json, or a name from there) on freshly made filesystems\n\n");
}

static const struct cmd_spec suite_cmd = {
	.name = "suite",
	.opts = suite_opts,
	.operand = file_operand,
	.usage = suite_usage,
};

static int suite_main(int argc, char **argv, const char *cmd, const char *only_workloads)
{
	struct suite_ctx x = { .cmd = cmd };
	char err[SUITE_ERR];
	int r, status;

	suite_run_init(&x.r);
	if (!cmd_args_parse(&suite_cmd, &x.a, argc, argv, &status))
		goto out;
	x.a.q.only_workloads = only_workloads;
	r = x.a.q.file ? suite_run_prepare(&x.r, &x.a.q, err, sizeof(err)) :
			 errf(err, sizeof(err), -EINVAL,
			      "which suite? (fsbench suite FILE; see configs/)");
	if (r < 0)
		status = cmd_fail(r == -EINVAL ? FSB_EXIT_USAGE : FSB_EXIT_FAIL, cmd, "%s", err);
	else if (!x.r.nrun && !x.a.dry_run)
		status = cmd_fail(FSB_EXIT_USAGE, cmd,
				  "nothing to run: every cell of %s is skipped (see -n)",
				  x.r.s.path);
	else if (x.a.dry_run)
		print_dry_run(&x.r); /* status is FSB_EXIT_OK after the parse */
	else if (suite_result_path(&x.r, err, sizeof(err)) < 0)
		status = cmd_fail(FSB_EXIT_USAGE, cmd, "%s", err);
	else
		status = run_suite(&x, argc, argv);
out:
	ctx_free(&x);
	return status;
}

int cmd_suite(int argc, char **argv)
{
	return suite_main(argc, argv, "suite", NULL);
}

/*
 * `fsbench` alone: configs/quick.json on a temporary image as root; without root, the
 * small-file part in a temporary directory, saying what was left out.
 */
int cmd_default(void)
{
	char tmp[4096], quick[4096], err[8192];
	int status;

	if (suite_default(quick, sizeof(quick), tmp, sizeof(tmp), err, sizeof(err)) < 0) {
		fprintf(stderr, "fsbench: %s\n", err);
		return FSB_EXIT_FAIL;
	}
	if (!tmp[0]) {
		char *argv[] = { "suite", quick, NULL };

		return suite_main(2, argv, "suite", NULL);
	}
	printf("fsbench: not root, so no loop devices, mkfs or mount: running the small-file part "
	       "of %s in %s.\nSkipped: ext4, xfs, btrfs and ext3 on a fresh image, the streaming "
	       "run, and dropping caches between runs. Run as root for all of it.\n",
	       quick, tmp);
	{
		char *argv[] = { "suite", quick, "--dir", tmp, NULL };

		status = suite_main(4, argv, "suite", "smallfile");
	}
	if (rmdir(tmp) < 0)
		fprintf(stderr, "fsbench: removing %s: %s\n", tmp, strerror(errno));
	return status;
}
