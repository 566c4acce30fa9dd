/* Running a suite (suite_run.h): the target, the cell loop, and the result after every cell. */
#include "fsbench/suite/suite_run.h"
#include "fsbench/core/job.h"
#include "fsbench/core/result.h"
#include "fsbench/core/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/errf.h"
#include "base/fileio.h"
#include "fsbench/core/clock.h"
#include "probes/knob/drop_caches.h"
#include "probes/sampler/canary.h"
#include "probes/target/fs_traits.h"
#include "probes/knob/journal.h"
#include "probes/target/target.h"

#define SUITE_ERR 8192

/* The observer's warn(), if it has one. */
static void warn(const struct suite_run *x, const char *msg)
{
	if (x->obs && x->obs->warn)
		x->obs->warn(x->obs_arg, msg);
}

void suite_run_init(struct suite_run *x)
{
	memset(x, 0, sizeof(*x));
	probe_scratch_init(&x->scratch);
}

void suite_run_free(struct suite_run *x)
{
	suite_free(&x->s);
	free(x->cells);
	x->cells = NULL;
	json_decref(x->result.doc);
	x->result.doc = NULL;
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
			 "interval_ns", 1000000000, "unit", mdl_unit_name(w->wl->unit), "t_ns",
			 "done");
}

/*
 * The canary before or after a run, into @run's canary.@when (or its error): the device's
 * own speed, so that compare can tell a drifting disk from a change. @canary collects it
 * until the run object exists.
 */
static void canary(const struct suite_run *x, const char *dir, json_t *canary, const char *when)
{
	struct probe_canary c;
	char msg[300];
	int r;

	if (x->no_canary || !dir)
		return;
	r = probe_canary_run(dir, PROBE_CANARY_FSYNCS, &c);
	if (r == 0) {
		json_object_set_new(canary, when, probe_canary_json(&c));
		return;
	}
	snprintf(msg, sizeof(msg), "canary %s the run in %.200s: %s", when, dir, strerror(-r));
	json_object_set_new(canary, "error", json_string(msg));
}

/* One repetition of one cell: mkfs, mount, drop caches, canary, run, canary, unmount. Never NULL. */
static json_t *run_cell(struct suite_run *x, const struct suite_cell *c, int rep, int *ret_r,
			int *ret_signal)
{
	const struct suite_fs *fs = &x->s.fs[c->fs];
	const struct suite_workload *w = &x->s.wl[c->wl];
	char err[SUITE_ERR] = "", uerr[SUITE_ERR];
	const char *dir = x->dir;
	json_t *run = NULL, *target = NULL, *can = json_object();
	struct fsb_job job = { 0 };
	int r;

	*ret_r = -EIO;
	*ret_signal = 0;
	if (!x->dir) {
		r = probe_scratch_mkfs(&x->scratch, fs->type, (const char *const *)fs->mkfs_argv,
				       err, sizeof(err));
		if (r == 0)
			r = probe_scratch_mount(&x->scratch, x->tmpdir, c->mount_options, err,
						sizeof(err));
		if (r < 0) {
			*ret_r = r;
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
		*ret_r = r;
		run = failed_run(w, c->threads, err);
		goto out;
	}
	fsb_job_common(&job)->quiet = x->quiet;
	canary(x, dir, can, "before");
	*ret_r = fsb_job_run(&job, 0, NULL, &run, err, sizeof(err));
	*ret_signal = job.signal;
	if (!run)
		run = failed_run(w, c->threads, err);
	else if (!*ret_signal && !base_signal_received)
		canary(x, dir, can, "after");
	if (json_object_size(can))
		json_object_set(run, "canary", can);
out:
	json_decref(can);
	if (!x->dir) {
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
			warn(x, uerr);
			if (*ret_r == 0)
				*ret_r = -EIO;
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

/* The result as it stands; a write failure is said once (fsb_partial_write()). */
static int write_result(struct suite_run *x, bool final)
{
	char err[SUITE_ERR];
	int r = fsb_partial_write(&x->result, final && !x->interrupted, err, sizeof(err));

	if (err[0])
		warn(x, err);
	return r;
}

int suite_use_dir(struct suite_run *x, char *err, size_t errlen)
{
	struct suite_fs *fs;
	json_t *t;

	struct stat st;

	if (stat(x->dir, &st) < 0 || access(x->dir, W_OK) < 0) {
		snprintf(err, errlen, "--dir %s: %s", x->dir, strerror(errno));
		return -EINVAL;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--dir %s: %s", x->dir, strerror(ENOTDIR));
		return -EINVAL;
	}
	t = probe_target_dir_json(NULL, x->dir, x->dir_fstype, sizeof(x->dir_fstype));
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

int suite_check_image_size(const struct suite_run *x, char *err, size_t errlen)
{
	int64_t size = x->size ? x->size : x->s.image_size;

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

static int setup_target(struct suite_run *x, char *err, size_t errlen)
{
	char image[sizeof(x->tmpdir) + 16];
	const char *base = getenv("TMPDIR");
	int r;

	if (x->dir)
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
	x->scratch.keep_image = x->keep_image;
	if (x->device)
		return probe_scratch_device(&x->scratch, x->device, x->force, err, errlen);
	snprintf(image, sizeof(image), "%s/image", x->tmpdir);
	return probe_scratch_image(&x->scratch, x->image ? x->image : image,
				   (uint64_t)(x->size ? x->size : x->s.image_size), err, errlen);
}

static void release_target(struct suite_run *x)
{
	char err[SUITE_ERR];
	bool clean = true;

	if (probe_scratch_release(&x->scratch, err, sizeof(err)) < 0) {
		warn(x, err);
		clean = false;
	}
	if (x->tmpdir[0] && rmdir(x->tmpdir) < 0 && errno != ENOENT) {
		snprintf(err, sizeof(err), "removing %s: %s", x->tmpdir, strerror(errno));
		warn(x, err);
		clean = false;
	}
	if (x->journal && clean) {
		journal_remove(x->journal);
	} else if (x->journal) {
		snprintf(err, sizeof(err), "the journal %s stays: `fsbench restore` retries",
			 x->journal->path);
		warn(x, err);
	}
	x->journal = journal_close(x->journal);
	x->scratch.journal = NULL;
}

int suite_result_path(struct suite_run *x, char *err, size_t errlen)
{
	char when[32], base[sizeof(x->json_path) - 16];
	time_t now = time(NULL);
	int r, fd;

	if (x->json) {
		snprintf(x->json_path, sizeof(x->json_path), "%s", x->json);
		r = base_out_check(x->json_path);
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

int suite_run_begin(struct suite_run *x, int argc, char **argv, char *err, size_t errlen)
{
	int r;

	x->result.doc = fsb_result_new(argc, argv);
	x->result.path = x->json_path;
	json_object_set_new(json_object_get(x->result.doc, "config"), "suite",
			    suite_json(&x->s, x->cells, x->ncells));
	r = fsb_partial_write(&x->result, false, err, errlen);
	if (r < 0 && !x->json) /* the empty file suite_result_path() reserved */
		unlink(x->json_path);
	return r;
}

/* Repetition @rep of @c; false when the suite is to stop. */
static bool run_rep(struct suite_run *x, const struct suite_cell *c, int rep, uint64_t t0)
{
	json_t *run;
	int r, sig;

	if (base_signal_received) {
		x->interrupted = true;
		return false;
	}
	if (x->obs && x->obs->cell_start)
		x->obs->cell_start(x->obs_arg, x, c, rep, (double)(fsb_now_ns() - t0) / 1e9);
	run = run_cell(x, c, rep, &r, &sig);
	json_array_append_new(json_object_get(x->result.doc, "runs"), run);
	x->done++;
	if (base_signal_received || sig)
		x->interrupted = true;
	if (x->obs && x->obs->cell_done)
		x->obs->cell_done(x->obs_arg, x, c, rep, run);
	if (r < 0 && !x->interrupted)
		x->failed = true;
	write_result(x, false);
	return !(x->interrupted || (x->failed && x->fail_fast));
}

int suite_run(struct suite_run *x, char *err, size_t errlen)
{
	uint64_t t0 = fsb_now_ns();
	int r;

	err[0] = 0;
	base_install_signals();
	r = setup_target(x, err, errlen);
	if (r < 0) {
		release_target(x);
		json_object_set_new(x->result.doc, "error", json_string(err));
		write_result(x, true);
		return r;
	}
	if (x->scratch.image[0] && !x->scratch.loop_direct_io && x->obs && x->obs->note) {
		char note[sizeof(x->scratch.loop_note) + 8];

		snprintf(note, sizeof(note), "note: %s", x->scratch.loop_note);
		x->obs->note(x->obs_arg, note);
	}
	/* interleaved (suite_slot), so that drift cannot favour one side of a comparison */
	for (int i = 0; i < x->ncells * x->s.repetitions && !x->interrupted; i++) {
		const struct suite_cell *c;
		int ci, rep;

		suite_slot(x->ncells, i, &ci, &rep);
		c = &x->cells[ci];
		if (c->skip) {
			if (rep == 1 && x->obs && x->obs->skipped)
				x->obs->skipped(x->obs_arg, c);
			continue;
		}
		if (!run_rep(x, c, rep, t0))
			break;
	}
	release_target(x);
	if (x->drop_caches_failed)
		json_object_set_new(
			json_object_get(x->result.doc, "config"), "note",
			json_string("dropping caches failed (not root?): runs began warm"));
	/* never 0 without the result on disk */
	r = write_result(x, x->done == x->nrun);
	if (x->interrupted) {
		x->signal = base_signal_received ? base_signal_received : SIGINT;
		return -EINTR;
	}
	if (r < 0)
		return r;
	return x->failed ? -EIO : 0;
}
