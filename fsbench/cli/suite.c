/* `fsbench suite FILE` and the embedded default: mkfs, mount, run every cell, one result. */
#include "fsbench/cli/commands.h"
#include "fsbench/core/job.h"
#include "fsbench/core/result.h"
#include "fsbench/core/runner.h"
#include "fsbench/suite/suite.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "probes/drop_caches.h"
#include "probes/fs_traits.h"
#include "probes/journal.h"
#include "probes/scratch.h"
#include "probes/target.h"
#include "model/result_file.h"
#include "fsbench/core/clock.h"

#ifndef FSB_CONFIGDIR
#define FSB_CONFIGDIR "configs"
#endif
#ifndef FSB_CONFIGDIR_INSTALLED
#define FSB_CONFIGDIR_INSTALLED "/usr/local/share/fsbench/configs"
#endif

struct suite_args {
	char *fs, *threads, *workloads, *json, *image, *device, *dir;
	int64_t repetitions, size;
	bool dry_run, fail_fast, force, keep_image, quiet;
};

#define O(f) offsetof(struct suite_args, f)
static const struct fsb_opt suite_opts[] = {
	{ .name = "dry-run",
	  .short_name = 'n',
	  .type = OPT_BOOL,
	  .offset = O(dry_run),
	  .max = 1,
	  .help = "print the expanded matrix (cells, mkfs command lines, mount options) and stop" },
	{ .name = "fs",
	  .type = OPT_STRING,
	  .offset = O(fs),
	  .help = "only these filesystems (comma list of types or labels)" },
	{ .name = "threads",
	  .short_name = 't',
	  .type = OPT_STRING,
	  .offset = O(threads),
	  .help = "replace every thread list with this one (1,2,4)" },
	{ .name = "workloads",
	  .type = OPT_STRING,
	  .offset = O(workloads),
	  .help = "only these workloads (comma list of names or labels)" },
	{ .name = "repetitions",
	  .short_name = 'r',
	  .type = OPT_INT,
	  .offset = O(repetitions),
	  .max = SUITE_MAX_REPETITIONS,
	  .def = "0",
	  .help = "repetitions of every cell (default: the suite's)" },
	{ .name = "json",
	  .type = OPT_STRING,
	  .offset = O(json),
	  .help = "result file (default: fsbench-suite-NAME-DATE.json, printed)" },
	{ .name = "fail-fast",
	  .type = OPT_BOOL,
	  .offset = O(fail_fast),
	  .max = 1,
	  .help = "stop at the first failing cell (default: record it as failed and go on)" },
	{ .name = "image",
	  .type = OPT_STRING,
	  .offset = O(image),
	  .help = "sparse image file to create (must not exist) and attach to a loop device; default: one in a temporary directory" },
	{ .name = "size",
	  .type = OPT_SIZE,
	  .offset = O(size),
	  .max = INT64_C(1) << 50,
	  .def = "0",
	  .unit = "bytes",
	  .help = "size of the image (default: the suite's image_size)" },
	{ .name = "keep-image",
	  .type = OPT_BOOL,
	  .offset = O(keep_image),
	  .max = 1,
	  .help = "leave the image file behind" },
	{ .name = "device",
	  .type = OPT_STRING,
	  .offset = O(device),
	  .help = "block device to mkfs instead of an image (refused when mounted or holding a signature)" },
	{ .name = "force",
	  .type = OPT_BOOL,
	  .offset = O(force),
	  .max = 1,
	  .help = "mkfs over an existing signature or partition table on --device" },
	{ .name = "dir",
	  .short_name = 'd',
	  .type = OPT_STRING,
	  .offset = O(dir),
	  .help = "run in this existing directory instead: no mkfs, no mount, one filesystem" },
	{ .name = "quiet",
	  .short_name = 'q',
	  .type = OPT_BOOL,
	  .offset = O(quiet),
	  .max = 1,
	  .help = "no progress and no table" },
	{ 0 },
};
#undef O

#define SUITE_ERR 8192

struct suite_ctx {
	struct suite s;
	struct suite_args a;
	struct suite_cell *cells;
	int ncells, nrun; /* cells and cell-repetitions to run */
	struct probe_scratch scratch;
	struct journal *journal; /* what scratch makes, for `fsbench restore` after a kill -9 */
	char tmpdir[4096]; /* made by fsbench: holds the default image and the mount point */
	char json_path[4096];
	char dir_fstype[64]; /* --dir: the directory's filesystem */
	json_t *doc;
	bool failed, interrupted, drop_caches_failed;
	bool write_failed; /* said once, not after every cell */
	const char *cmd;
};

static const char *workload_unit(const struct suite_workload *w)
{
	return w->wl->unit == RPT_UNIT_BYTES ? "MB/s" : "files/s";
}

static double run_rate(const struct suite_workload *w, json_t *run)
{
	json_t *sum = json_object_get(run, "summary");

	if (!strcmp(workload_unit(w), "MB/s"))
		return json_number_value(json_object_get(sum, "bytes_per_sec")) / 1e6;
	return json_number_value(json_object_get(sum, "files_per_sec"));
}

/* A run object for a cell that never ran its threads: schema-valid, complete:false. */
static json_t *failed_run(const struct suite_workload *w, int threads, const char *msg)
{
	return json_pack("{s:s,s:i,s:O,s:{s:i,s:i,s:i,s:f,s:f,s:i,s:b,s:s,s:f,s:f},s:{},s:[],"
			 "s:{s:i,s:s,s:[],s:[]}}",
			 "workload", w->wl->name, "threads", threads, "params", w->params,
			 "summary", "files", 0, "bytes", 0, "elapsed_ns", 0, "files_per_sec", 0.0,
			 "bytes_per_sec", 0.0, "loops", 0, "complete", 0, "error", msg,
			 "cpu_user_s", 0.0, "cpu_sys_s", 0.0, "ops", "per_thread", "series",
			 "interval_ns", 1000000000, "unit", rpt_unit_name(w->wl->unit), "t_ns",
			 "done");
}

/* One repetition of one cell: mkfs, mount, drop caches, run, unmount. Never NULL. */
static json_t *run_cell(struct suite_ctx *x, const struct suite_cell *c, int rep, int *ret_status)
{
	const struct suite_fs *fs = &x->s.fs[c->fs];
	const struct suite_workload *w = &x->s.wl[c->wl];
	char err[SUITE_ERR], uerr[SUITE_ERR];
	const char *dir = x->a.dir;
	json_t *run = NULL, *target = NULL;
	struct fsb_job job = { 0 };
	int r;

	*ret_status = FSB_EXIT_FAIL;
	if (!x->a.dir) {
		r = probe_scratch_mkfs(&x->scratch, fs->type, (const char *const *)fs->mkfs_argv,
				       err, sizeof(err));
		if (r == 0)
			r = probe_scratch_mount(&x->scratch, x->tmpdir, c->mount_options, err,
						sizeof(err));
		if (r < 0) {
			run = failed_run(w, c->threads, err);
			goto out;
		}
		dir = x->scratch.mountpoint;
	}
	if (probe_drop_caches(NULL) < 0)
		x->drop_caches_failed = true;
	r = suite_job(&x->s, c, &job, err, sizeof(err));
	if (r == 0)
		r = fsb_job_set(&job, "dir", dir, err, sizeof(err));
	if (r < 0) {
		run = failed_run(w, c->threads, err);
		goto out;
	}
	fsb_job_common(&job)->quiet = x->a.quiet;
	*ret_status = fsb_job_run(&job, 0, NULL, &run, err, sizeof(err));
	if (!run)
		run = failed_run(w, c->threads, err);
out:
	if (!x->a.dir) {
		target = probe_scratch_json(&x->scratch);
		/* while mounted the scratch knows its mount; the probes' view, if any, wins */
		if (json_is_object(json_object_get(run, "target"))) {
			json_object_update_missing(json_object_get(run, "target"), target);
		} else {
			/* mkfs or mount failed: what was made so far, and why there is no more */
			json_object_set_new(target, "path",
					    json_string(x->scratch.mountpoint[0] ?
								x->scratch.mountpoint :
								x->scratch.device));
			json_object_set_new(target, "error", json_string(err));
			json_object_set(run, "target", target);
		}
		json_decref(target);
		if (probe_scratch_umount(&x->scratch, uerr, sizeof(uerr)) < 0) {
			fprintf(stderr, "fsbench %s: %s\n", x->cmd, uerr);
			*ret_status = FSB_EXIT_FAIL;
		}
	} else if (!json_object_get(run, "target")) {
		target = probe_target_dir_json(NULL, dir, NULL, 0);
		json_object_set_new(target, "error", json_string(err));
		json_object_set_new(run, "target", target);
	}
	/* 0-based in the file, as loops and threads are */
	json_object_set_new(run, "coords", suite_coords(&x->s, c, rep - 1));
	fsb_job_free(&job);
	return run;
}

static int write_result(struct suite_ctx *x, bool final)
{
	int r;

	fsb_result_finish(x->doc);
	if (!final || x->interrupted)
		json_object_set_new(x->doc, "complete", json_false());
	r = rpt_json_write_atomic(x->doc, x->json_path);
	if (r < 0 && !x->write_failed)
		fprintf(stderr, "fsbench %s: writing result %s: %s\n", x->cmd, x->json_path,
			strerror(-r));
	x->write_failed = r < 0;
	return r;
}

static void fmt_secs(char *out, size_t len, double s)
{
	int t = s > 0 ? (int)(s + 0.5) : 0;

	if (t >= 3600)
		snprintf(out, len, "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(out, len, "%d:%02d", t / 60, t % 60);
}

/* The part of a cell's name left of the workload: the table's column. */
static void column_name(const struct suite_ctx *x, const struct suite_cell *c, char *out,
			size_t len)
{
	size_t n = strlen(c->name), tail;
	char suffix[300];

	snprintf(suffix, sizeof(suffix), "/%s/t=%d", x->s.wl[c->wl].label, c->threads);
	tail = strlen(suffix);
	snprintf(out, len, "%.*s", (int)(n >= tail ? n - tail : n), c->name);
}

/* Per workload: rows are thread counts, columns filesystems, means over repetitions. */
static void print_table(struct suite_ctx *x)
{
	json_t *runs = json_object_get(x->doc, "runs");

	for (int w = 0; w < x->s.nwl; w++) {
		char cols[64][256];
		int ncols = 0, th[SUITE_MAX_THREADS * 4], nth = 0, width = 10;

		for (int i = 0; i < x->ncells; i++) {
			const struct suite_cell *c = &x->cells[i];
			char col[256];
			int k;

			if (c->wl != w || c->skip)
				continue;
			column_name(x, c, col, sizeof(col));
			for (k = 0; k < ncols && strcmp(cols[k], col); k++)
				;
			if (k == ncols && ncols < 64) {
				snprintf(cols[ncols++], sizeof(cols[0]), "%s", col);
				if ((int)strlen(col) + 2 > width)
					width = (int)strlen(col) + 2;
			}
			for (k = 0; k < nth && th[k] != c->threads; k++)
				;
			if (k == nth && nth < (int)(sizeof(th) / sizeof(th[0])))
				th[nth++] = c->threads;
		}
		if (!ncols)
			continue;
		printf("\n%s (%s, mean of complete repetitions)\n%-8s", x->s.wl[w].label,
		       workload_unit(&x->s.wl[w]), "threads");
		for (int k = 0; k < ncols; k++)
			printf("%*s", width, cols[k]);
		printf("\n");
		for (int t = 0; t < nth; t++) {
			printf("%-8d", th[t]);
			for (int k = 0; k < ncols; k++) {
				double sum = 0;
				int n = 0;
				size_t i;
				json_t *run;

				json_array_foreach(runs, i, run)
				{
					const char *cell = json_string_value(json_object_get(
						json_object_get(run, "coords"), "cell"));
					const struct suite_cell *rc = NULL;
					char col[256];

					for (int ci = 0; ci < x->ncells && !rc; ci++)
						if (cell && !strcmp(x->cells[ci].name, cell))
							rc = &x->cells[ci];
					if (!rc || rc->wl != w || rc->threads != th[t])
						continue;
					column_name(x, rc, col, sizeof(col));
					if (strcmp(col, cols[k]) ||
					    !json_is_true(json_object_get(
						    json_object_get(run, "summary"), "complete")))
						continue;
					sum += run_rate(&x->s.wl[w], run);
					n++;
				}
				if (n)
					printf("%*.*f", width, sum / n >= 100 ? 0 : 1, sum / n);
				else
					printf("%*s", width, "-");
			}
			printf("\n");
		}
	}
}

static void print_dry_run(struct suite_ctx *x)
{
	printf("suite %s (%s)\n", x->s.name, x->s.path);
	if (x->s.description)
		printf("  %s\n", x->s.description);
	printf("target: %s\n",
	       x->a.dir	   ? x->a.dir :
	       x->a.device ? x->a.device :
	       x->a.image  ? x->a.image :
			     "a sparse image in a temporary directory, on a loop device");
	if (!x->a.dir)
		printf("image size: %lld bytes\n",
		       (long long)(x->a.size ? x->a.size : x->s.image_size));
	printf("%d cells x %d repetitions = %d runs\n", x->nrun / x->s.repetitions,
	       x->s.repetitions, x->nrun);
	for (int i = 0; i < x->ncells; i++) {
		const struct suite_cell *c = &x->cells[i];
		const struct suite_workload *w = &x->s.wl[c->wl];
		char *argv[PROBE_SCRATCH_ARGV_MAX + 1] = { 0 };

		printf("%4d  %s", i + 1, c->name);
		if (c->skip) {
			printf("  (skipped: %s)\n", c->skip);
			continue;
		}
		printf("\n");
		if (!x->a.dir &&
		    probe_scratch_mkfs_argv(x->s.fs[c->fs].type, "DEVICE",
					    (const char *const *)x->s.fs[c->fs].mkfs_argv, argv,
					    PROBE_SCRATCH_ARGV_MAX) == 0) {
			printf("      mkfs:");
			for (int k = 0; argv[k]; k++) {
				printf(" %s", argv[k]);
				free(argv[k]);
			}
			printf("\n      mount options: %s\n",
			       *c->mount_options ? c->mount_options : "(defaults)");
		}
		printf("      %s --threads %d", w->wl->name, c->threads);
		for (int k = 0; k < w->np; k++)
			printf(" --%s %s", w->pname[k], w->pvalue[k]);
		if (c->ks >= 0)
			for (int k = 0; k < x->s.ks[c->ks].n; k++)
				printf(" --knob %s", x->s.ks[c->ks].knob[k]);
		printf("\n");
	}
}

/* --dir: the filesystem dimension collapses into the directory's own filesystem. */
static int use_dir(struct suite_ctx *x, char *err, size_t errlen)
{
	struct suite_fs *fs;
	json_t *t;

	struct stat st;

	if (stat(x->a.dir, &st) < 0 || access(x->a.dir, W_OK) < 0) {
		snprintf(err, errlen, "--dir %s: %s", x->a.dir, strerror(errno));
		return -EINVAL;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--dir %s: %s", x->a.dir, strerror(ENOTDIR));
		return -EINVAL;
	}
	t = probe_target_dir_json(NULL, x->a.dir, x->dir_fstype, sizeof(x->dir_fstype));
	json_decref(t);
	for (int i = 1; i < x->s.nfs; i++) {
		free(x->s.fs[i].type);
		free(x->s.fs[i].label);
		free(x->s.fs[i].mkfs_options);
		free(x->s.fs[i].mount_options);
		for (int k = 0; x->s.fs[i].mkfs_argv[k]; k++)
			free(x->s.fs[i].mkfs_argv[k]);
		memset(&x->s.fs[i], 0, sizeof(x->s.fs[i]));
	}
	x->s.nfs = 1;
	fs = &x->s.fs[0];
	free(fs->type);
	free(fs->label);
	free(fs->mkfs_options);
	free(fs->mount_options);
	for (int k = 0; fs->mkfs_argv[k]; k++) {
		free(fs->mkfs_argv[k]);
		fs->mkfs_argv[k] = NULL;
	}
	fs->type = strdup(x->dir_fstype[0] ? x->dir_fstype : "unknown");
	fs->label = strdup("dir");
	fs->mkfs_options = strdup("");
	fs->mount_options = strdup("");
	fs->nbarrier = 0;
	return 0;
}

/* The image must hold the largest filesystem of the suite: refused before any mkfs. */
static int check_image_size(struct suite_ctx *x, char *err, size_t errlen)
{
	int64_t size = x->a.size ? x->a.size : x->s.image_size;

	for (int i = 0; i < x->s.nfs; i++) {
		const struct fs_traits *t = fs_traits_find(x->s.fs[i].type);

		if (t && size < t->mkfs_min_bytes) {
			snprintf(err, errlen,
				 "image size %lld: too small for %s (at least %lld bytes; --size)",
				 (long long)size, t->fstype, (long long)t->mkfs_min_bytes);
			return -EINVAL;
		}
	}
	return 0;
}

/* FILE as given, else a suite of that name in the configs directory (suite.h). */
int suite_find(const char *name, char *out, size_t len)
{
	const char *dirs[] = { FSB_CONFIGDIR, FSB_CONFIGDIR_INSTALLED };

	if (access(name, R_OK) == 0 || strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return 0;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(out, len, "%s/%s%s", dirs[i], name, strstr(name, ".json") ? "" : ".json");
		if (access(out, R_OK) == 0)
			return 0;
	}
	snprintf(out, len, "%s", name);
	return -ENOENT;
}

static int setup_target(struct suite_ctx *x, char *err, size_t errlen)
{
	char image[sizeof(x->tmpdir) + 16];
	const char *base = getenv("TMPDIR");
	int r;

	if (x->a.dir)
		return 0; /* use_dir() already checked it */
	if (geteuid() != 0) {
		snprintf(
			err, errlen,
			"making filesystems needs root (loop devices, mkfs, mount); --dir DIR runs in a directory instead");
		return -EPERM;
	}
	/* every scratch resource is journalled as it is made: kill -9 leaves a way back */
	r = journal_open(journal_state_dir(), &x->journal);
	if (r < 0) {
		x->journal = NULL;
		snprintf(err, errlen, "creating the restore journal in %s: %s%s",
			 journal_state_dir(), strerror(-r),
			 r == -EPERM ? " (it must be root's and not writable by others)" : "");
		return r;
	}
	x->scratch.journal = x->journal;
	/* the mount point (and the default image) live in a directory of fsbench's own */
	snprintf(x->tmpdir, sizeof(x->tmpdir), "%.3000s/fsbench-suite.XXXXXX",
		 base && *base ? base : "/var/tmp");
	if (!mkdtemp(x->tmpdir)) {
		r = -errno;
		snprintf(err, errlen, "creating a temporary directory %s: %s", x->tmpdir,
			 strerror(errno));
		x->tmpdir[0] = 0;
		return r;
	}
	r = probe_scratch_journal_dir(&x->scratch, x->tmpdir, err, errlen);
	if (r < 0)
		return r;
	x->scratch.keep_image = x->a.keep_image;
	if (x->a.device)
		return probe_scratch_device(&x->scratch, x->a.device, x->a.force, err, errlen);
	snprintf(image, sizeof(image), "%s/image", x->tmpdir);
	return probe_scratch_image(&x->scratch, x->a.image ? x->a.image : image,
				   (uint64_t)(x->a.size ? x->a.size : x->s.image_size), err,
				   errlen);
}

static void release_target(struct suite_ctx *x)
{
	char err[SUITE_ERR];
	bool clean = true;

	if (probe_scratch_release(&x->scratch, err, sizeof(err)) < 0) {
		fprintf(stderr, "fsbench %s: %s\n", x->cmd, err);
		clean = false;
	}
	if (x->tmpdir[0] && rmdir(x->tmpdir) < 0 && errno != ENOENT) {
		fprintf(stderr, "fsbench %s: removing %s: %s\n", x->cmd, x->tmpdir,
			strerror(errno));
		clean = false;
	}
	if (x->journal && clean)
		journal_remove(x->journal);
	else if (x->journal)
		fprintf(stderr, "fsbench %s: the journal %s stays: `fsbench restore` retries\n",
			x->cmd, x->journal->path);
	x->journal = journal_close(x->journal);
	x->scratch.journal = NULL;
}

/*
 * --json FILE checked, or a default name taken: fsbench-suite-NAME-DATE.json, made with
 * O_EXCL so that two suites started in the same second in one directory never share one
 * (the second gets -2, -3...). 0, or -errno with @err set.
 */
static int result_path(struct suite_ctx *x, char *err, size_t errlen)
{
	char when[32], base[sizeof(x->json_path) - 16];
	time_t now = time(NULL);
	int r, fd;

	if (x->a.json) {
		snprintf(x->json_path, sizeof(x->json_path), "%s", x->a.json);
		r = fsb_out_check(x->json_path);
		if (r < 0)
			snprintf(err, errlen, "--json %s: %s", x->json_path, strerror(-r));
		return r;
	}
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", localtime(&now));
	snprintf(base, sizeof(base), "fsbench-suite-%.200s-%s", x->s.name, when);
	for (int n = 1; n < 1000; n++) {
		if (n == 1)
			snprintf(x->json_path, sizeof(x->json_path), "%s.json", base);
		else
			snprintf(x->json_path, sizeof(x->json_path), "%s-%d.json", base, n);
		fd = open(x->json_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	r = -errno;
	snprintf(err, errlen, "creating the result file %s: %s", x->json_path, strerror(errno));
	return r;
}

static int run_suite(struct suite_ctx *x, int argc, char **argv)
{
	bool tty = isatty(STDERR_FILENO) && !x->a.quiet;
	uint64_t t0 = fsb_now_ns();
	char err[SUITE_ERR];
	int done = 0, status = FSB_EXIT_OK;

	x->doc = fsb_result_new(argc, argv);
	json_object_set_new(json_object_get(x->doc, "config"), "suite",
			    suite_json(&x->s, x->cells, x->ncells));
	if (!x->a.quiet)
		printf("fsbench suite %s: %d runs; result in %s\n", x->s.name, x->nrun,
		       x->json_path);
	fflush(stdout);
	/* on disk before any work, marked incomplete until the last cell is in */
	if (write_result(x, false) < 0) {
		if (!x->a.json) /* the empty file result_path() reserved */
			unlink(x->json_path);
		return FSB_EXIT_USAGE;
	}
	fsb_install_signals();
	if (setup_target(x, err, sizeof(err)) < 0) {
		fprintf(stderr, "fsbench %s: %s\n", x->cmd, err);
		release_target(x);
		json_object_set_new(x->doc, "error", json_string(err));
		write_result(x, true);
		return FSB_EXIT_FAIL;
	}
	if (x->scratch.image[0] && !x->scratch.loop_direct_io && !x->a.quiet)
		printf("note: %s\n", x->scratch.loop_note);
	for (int i = 0; i < x->ncells && !x->interrupted; i++) {
		const struct suite_cell *c = &x->cells[i];

		if (c->skip) {
			if (!x->a.quiet)
				printf("skipped %s: %s\n", c->name, c->skip);
			continue;
		}
		for (int rep = 1; rep <= x->s.repetitions; rep++) {
			double elapsed = (double)(fsb_now_ns() - t0) / 1e9;
			json_t *run;
			int st;

			if (fsb_signal_received) {
				x->interrupted = true;
				break;
			}
			if (tty) {
				char eta[32] = "?";

				if (done)
					fmt_secs(eta, sizeof(eta),
						 elapsed / done * (x->nrun - done));
				fprintf(stderr, "[%d/%d] %s rep %d/%d  (suite ETA %s)\n", done + 1,
					x->nrun, c->name, rep, x->s.repetitions, eta);
			}
			run = run_cell(x, c, rep, &st);
			json_array_append_new(json_object_get(x->doc, "runs"), run);
			done++;
			if (fsb_signal_received || st > 128)
				x->interrupted = true;
			if (!x->a.quiet) {
				json_t *sum = json_object_get(run, "summary");

				if (json_is_true(json_object_get(sum, "complete")))
					printf("%-48s rep %d: %10.1f %s\n", c->name, rep,
					       run_rate(&x->s.wl[c->wl], run),
					       workload_unit(&x->s.wl[c->wl]));
				else
					printf("%-48s rep %d: failed: %s\n", c->name, rep,
					       json_string_value(json_object_get(sum, "error")));
				fflush(stdout);
			}
			if (st != FSB_EXIT_OK && !x->interrupted) {
				x->failed = true;
				status = FSB_EXIT_FAIL;
			}
			write_result(x, false);
			if (x->interrupted || (x->failed && x->a.fail_fast))
				break;
		}
		if (x->failed && x->a.fail_fast)
			break;
	}
	release_target(x);
	if (x->drop_caches_failed)
		json_object_set_new(
			json_object_get(x->doc, "config"), "note",
			json_string("dropping caches failed (not root?): runs began warm"));
	if (done < x->nrun && !x->interrupted)
		json_object_set_new(x->doc, "complete", json_false());
	/* never exit 0 without the result on disk */
	if (write_result(x, done == x->nrun) < 0 && status == FSB_EXIT_OK)
		status = FSB_EXIT_FAIL;
	if (x->interrupted) {
		int sig = fsb_signal_received ? fsb_signal_received : SIGINT;

		fprintf(stderr,
			"fsbench %s: interrupted by signal %d; %d of %d runs in %s (incomplete)\n",
			x->cmd, sig, done, x->nrun, x->json_path);
		return 128 + sig;
	}
	if (!x->a.quiet)
		print_table(x);
	if (x->failed)
		fprintf(stderr, "fsbench %s: some cells failed; see %s\n", x->cmd, x->json_path);
	return status;
}

static void ctx_free(struct suite_ctx *x)
{
	opt_free(suite_opts, &x->a);
	suite_free(&x->s);
	free(x->cells);
	json_decref(x->doc);
}

static int suite_main(int argc, char **argv, const char *cmd, const char *only_workloads)
{
	struct suite_ctx x = { 0 };
	char err[SUITE_ERR], path[4096];
	const char *file;
	int r, idx, status;

	/* the options whose empty value is never what was meant */
	const struct {
		const char *name;
		char **value;
	} nonempty_opts[] = { { "json", &x.a.json },
			      { "image", &x.a.image },
			      { "device", &x.a.device },
			      { "dir", &x.a.dir },
			      { "fs", &x.a.fs },
			      { "threads", &x.a.threads },
			      { "workloads", &x.a.workloads } };

	x.cmd = cmd;
	probe_scratch_init(&x.scratch);
	opt_set_defaults(suite_opts, &x.a, err, sizeof(err));
	/* options may come before and after FILE */
	idx = opt_parse_argv(suite_opts, &x.a, argc, argv, err, sizeof(err));
	if (idx >= 0 && idx < argc) {
		file = argv[idx];
		r = opt_parse_argv(suite_opts, &x.a, argc - idx, argv + idx, err, sizeof(err));
		if (r >= 0 && r < argc - idx) {
			snprintf(err, sizeof(err), "unexpected argument '%s'", argv[idx + r]);
			r = -EINVAL;
		}
		idx = r;
	} else if (idx >= 0) {
		snprintf(err, sizeof(err), "which suite? (fsbench suite FILE; see configs/)");
		idx = -EINVAL;
	}
	if (idx == -ECANCELED) {
		printf("usage: fsbench suite FILE [options]\n"
		       "runs a suite (configs/*.json, or a name from there) on freshly made filesystems\n\n");
		opt_print_help(suite_opts, stdout);
		ctx_free(&x);
		return FSB_EXIT_OK;
	}
	if (idx < 0) {
		fprintf(stderr, "fsbench %s: %s\n", cmd, err);
		ctx_free(&x);
		return FSB_EXIT_USAGE;
	}
	suite_find(file, path, sizeof(path));
	r = suite_load(&x.s, path, err, sizeof(err));
	if (r == 0 && x.a.fs)
		r = suite_select_fs(&x.s, x.a.fs, err, sizeof(err));
	if (r == 0 && (x.a.workloads || only_workloads))
		r = suite_select_workloads(&x.s, x.a.workloads ? x.a.workloads : only_workloads,
					   err, sizeof(err));
	if (r == 0 && !x.s.nwl) {
		snprintf(err, sizeof(err), "--workloads: no workload of the suite is left");
		r = -EINVAL;
	}
	if (r == 0 && x.a.threads)
		r = suite_set_threads(&x.s, x.a.threads, err, sizeof(err));
	if (r == 0 && x.a.repetitions)
		x.s.repetitions = (int)x.a.repetitions;
	if (r == 0 && x.a.dir && (x.a.image || x.a.device)) {
		snprintf(err, sizeof(err),
			 "--dir runs without mkfs: it excludes --image and --device");
		r = -EINVAL;
	}
	if (r == 0 && x.a.image && x.a.device) {
		snprintf(err, sizeof(err), "--image and --device exclude each other");
		r = -EINVAL;
	}
	/* refused here rather than failing later */
	for (size_t i = 0; r == 0 && i < sizeof(nonempty_opts) / sizeof(nonempty_opts[0]); i++)
		if (*nonempty_opts[i].value && !**nonempty_opts[i].value) {
			snprintf(err, sizeof(err), "--%s: an empty value", nonempty_opts[i].name);
			r = -EINVAL;
		}
	if (r == 0 && x.a.dir)
		r = use_dir(&x, err, sizeof(err));
	if (r == 0 && !x.a.dir && !x.a.device)
		r = check_image_size(&x, err, sizeof(err));
	if (r == 0)
		r = suite_expand(&x.s, &x.cells, &x.ncells, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "fsbench %s: %s\n", cmd, err);
		ctx_free(&x);
		return r == -EINVAL ? FSB_EXIT_USAGE : FSB_EXIT_FAIL;
	}
	for (int i = 0; i < x.ncells; i++)
		if (!x.cells[i].skip)
			x.nrun += x.s.repetitions;
	if (!x.nrun && !x.a.dry_run) {
		fprintf(stderr,
			"fsbench %s: nothing to run: every cell of %s is skipped (see -n)\n", cmd,
			x.s.path);
		ctx_free(&x);
		return FSB_EXIT_USAGE;
	}
	if (x.a.dry_run) {
		print_dry_run(&x);
		ctx_free(&x);
		return FSB_EXIT_OK;
	}
	r = result_path(&x, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "fsbench %s: %s\n", cmd, err);
		ctx_free(&x);
		return FSB_EXIT_USAGE;
	}
	status = run_suite(&x, argc, argv);
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
	char tmp[4096], quick[4096];
	const char *base = getenv("TMPDIR");
	int status;

	if (suite_find("quick", quick, sizeof(quick)) < 0) {
		fprintf(stderr, "fsbench: the default suite quick.json is not in %s or %s\n",
			FSB_CONFIGDIR, FSB_CONFIGDIR_INSTALLED);
		return FSB_EXIT_FAIL;
	}
	if (geteuid() == 0) {
		char *argv[] = { "suite", quick, NULL };

		return suite_main(2, argv, "suite", NULL);
	}
	snprintf(tmp, sizeof(tmp), "%s/fsbench.XXXXXX", base && *base ? base : "/var/tmp");
	if (!mkdtemp(tmp)) {
		fprintf(stderr, "fsbench: creating a temporary directory %s: %s\n", tmp,
			strerror(errno));
		return FSB_EXIT_FAIL;
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
