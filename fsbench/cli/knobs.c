/* `fsbench info`, `fsbench knobs` and `fsbench restore`: look at, set and put back knobs. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"
#include "fsbench/ext/knobs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/knob/journal.h"
#include "probes/knob/knob_session.h"
#include "fsbench/core/opt.h"
#include "probes/scratch/scratch.h"
#include "probes/target/topology.h"

/*
 * How long `restore` waits for a knob's lock. Its holder can only be another restore or a
 * run that is about to refuse (it finds this dead run's journal): both let go at once.
 */
#define FSB_RESTORE_WAIT_MS 5000

struct knobs_cfg {
	const char *path; /* the operand of info and knobs */
	bool json;
	struct opt_strlist set;
	bool discard;
};

#define O(f) offsetof(struct knobs_cfg, f)
/* info's and knobs' --json */
#define OPT_JSON                                                                                 \
	{                                                                                        \
		.name = "json", .type = OPT_BOOL, .offset = O(json), .file = OPT_FILE, .max = 1, \
		.help = "print JSON instead of text"                                             \
	}
static const struct fsb_opt info_opts[] = {
	OPT_JSON,
	{ 0 },
};
static const struct fsb_opt knobs_opts[] = {
	{ .name = "set",
	  .type = OPT_STRLIST,
	  .offset = O(set),
	  .unit = "NAME=VALUE",
	  .help = "set a knob (repeatable); all are validated first and a refused one undoes the others. "
		  "This is a deliberate, lasting change: unlike --knob of a run it is NOT restored afterwards" },
	OPT_JSON,
	{ 0 },
};
static const struct fsb_opt restore_opts[] = {
	{ .name = "discard",
	  .type = OPT_BOOL,
	  .offset = O(discard),
	  .max = 1,
	  .help = "remove the journals of dead runs whose entries cannot be restored (a device that is gone), "
		  "after trying" },
	{ 0 },
};
#undef OPT_JSON
#undef O

static void knobs_help(FILE *out)
{
	fprintf(out,
		"\nknobs (also for --knob NAME=VALUE of a run, which restores them afterwards):\n");
	for (const struct knob_def *d = knob_defs; d->name; d++)
		fprintf(out, "  %-26s %s [%s]\n",
			d->scope == KNOB_SCOPE_IOSCHED ? "iosched/NAME" : d->name, d->help,
			knob_touch_name(d->touch));
	fprintf(out,
		"\nOld values of a run's knobs go to a journal in %s ($FSBENCH_STATE_DIR) before they\n"
		"change; `fsbench restore` replays journals of runs that died.\n",
		journal_state_dir());
}

static int path_operand(void *cfg, char *arg, char *err, size_t errlen)
{
	return cmd_one_operand(&((struct knobs_cfg *)cfg)->path, arg, err, errlen);
}

static void info_usage(FILE *out)
{
	fprintf(out, "usage: fsbench info PATH [--json]\n\n");
}

static void knobs_usage(FILE *out)
{
	fprintf(out, "usage: fsbench knobs PATH [--set NAME=VALUE ...] [--json]\n\n");
}

static void restore_usage(FILE *out)
{
	fprintf(out, "usage: fsbench restore [--discard]\n\n");
}

/* The one parser (args.h); only their tables, usages and operands differ. */
static const struct cmd_spec info_cmd = { .name = "info",
					  .opts = info_opts,
					  .operand = path_operand,
					  .usage = info_usage };
static const struct cmd_spec knobs_cmd = { .name = "knobs",
					   .opts = knobs_opts,
					   .operand = path_operand,
					   .usage = knobs_usage,
					   .more_help = knobs_help };
static const struct cmd_spec restore_cmd = { .name = "restore",
					     .opts = restore_opts,
					     .operand = cmd_no_operand,
					     .usage = restore_usage };

/* Why a knob's change matters, as `info` and `knobs` say it next to its value. */
static const char *touch_words(const struct knob_def *d)
{
	if (!strcmp(d->name, "write_cache"))
		return "kernel: whether it sends flushes; the drive's cache is unchanged";
	switch (d->touch) {
	case KNOB_TOUCH_DRIVE:
		return "drive: switches the drive's own write cache";
	case KNOB_TOUCH_MOUNT:
		return "mount: remount option";
	case KNOB_TOUCH_KERNEL:
		break;
	}
	return "kernel";
}

static void print_knobs(const json_t *values)
{
	const char *name;
	json_t *v;

	json_object_foreach((json_t *)values, name, v)
	{
		const struct knob_def *d = knob_def_find(name);
		char *s = json_dumps(v, JSON_ENCODE_ANY);

		printf("  %-26s %-16s %s\n", name,
		       json_is_string(v) ? json_string_value(v) :
		       s		 ? s :
					   "?",
		       d ? touch_words(d) : "");
		free(s);
	}
}

static json_t *touches_json(const json_t *values)
{
	json_t *o = json_object(), *v;
	const char *name;

	json_object_foreach((json_t *)values, name, v)
	{
		const struct knob_def *d = knob_def_find(name);

		if (d)
			json_object_set_new(o, name, json_string(knob_touch_name(d->touch)));
	}
	return o;
}

static void print_json(json_t *o)
{
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	if (s)
		puts(s);
	free(s);
}

/* dispatch.c lists it in fsb_commands[] */
int cmd_info(int argc, char **argv)
{
	struct knobs_cfg cfg = { 0 };
	struct probe_target pt;
	struct knob_target kt;
	json_t *dev, *values, *topo;
	char err[512];
	const char *path;
	int status;

	if (!cmd_args_parse(&info_cmd, &cfg, argc, argv, &status))
		return status;
	path = cfg.path;
	if (!path) {
		fprintf(stderr, "fsbench info: which path? usage: fsbench info PATH [--json]\n");
		return FSB_EXIT_USAGE;
	}
	if (fsb_knob_target(path, &pt, &kt, err, sizeof(err)) < 0) {
		fprintf(stderr, "fsbench info: %s\n", err);
		return FSB_EXIT_FAIL;
	}
	dev = knob_target_json(&kt);
	values = knob_values_json(&kt);
	topo = probe_topology_json();
	if (cfg.json) {
		json_t *o = json_pack("{s:o,s:o,s:O,s:o,s:o*}", "target", probe_target_json(&pt),
				      "device", dev, "knobs", values, "touches",
				      touches_json(values), "topology", topo);

		print_json(o);
		json_decref(o);
		json_decref(values);
		return FSB_EXIT_OK;
	}
	printf("path             %s\n", pt.path);
	printf("mount point      %s\n", pt.mountpoint);
	printf("fs type          %s\n", pt.fstype);
	printf("mount options    %s\n", pt.mount_options);
	printf("source           %s\n", pt.source);
	if (pt.has_block_device) {
		json_t *sl = json_object_get(dev, "slaves");
		size_t i;
		json_t *s;

		printf("device           %s (%u:%u)%s\n", pt.device, pt.dev_major, pt.dev_minor,
		       pt.partition ? ", a partition" : "");
		printf("whole disk       %s (%u:%u", kt.disk, kt.major, kt.minor);
		if (kt.diskseq >= 0)
			printf(", diskseq %lld", kt.diskseq);
		printf(")\n");
		if (kt.backing_file[0])
			printf("loop backing     %s\n", kt.backing_file);
		if (json_array_size(sl)) {
			printf("stacked on      ");
			json_array_foreach(sl, i, s) printf(" %s", json_string_value(s));
			printf("\n");
		}
		if (json_object_get(dev, "rotational"))
			printf("rotational       %s\n",
			       json_is_true(json_object_get(dev, "rotational")) ? "yes" : "no");
		printf("block size       logical %lld, physical %lld\n",
		       (long long)json_integer_value(json_object_get(dev, "logical_block_size")),
		       (long long)json_integer_value(json_object_get(dev, "physical_block_size")));
		if (kt.scsi_dir[0])
			printf("SCSI disk        %s (drive_cache switches the drive's cache)\n",
			       json_string_value(json_object_get(dev, "scsi_disk")));
	} else {
		printf("device           none%s%s\n", pt.note[0] ? ": " : "", pt.note);
	}
	printf("knobs:\n");
	print_knobs(values);
	if (kt.disk[0] && !kt.scsi_dir[0])
		printf("  %-26s %-16s %s\n", "drive_cache", "-",
		       "not a SCSI/SATA disk: no drive cache to switch (write_cache only decides flushes)");
	if (topo)
		printf("topology         %lld packages, %lld NUMA nodes, %lld cores, %lld PUs (allowed: %s)\n",
		       (long long)json_integer_value(json_object_get(topo, "packages")),
		       (long long)json_integer_value(json_object_get(topo, "numa_nodes")),
		       (long long)json_integer_value(json_object_get(topo, "cores")),
		       (long long)json_integer_value(json_object_get(topo, "pus")),
		       json_string_value(json_object_get(topo, "allowed_cpus")));
	json_decref(dev);
	json_decref(values);
	json_decref(topo);
	return FSB_EXIT_OK;
}

/* dispatch.c lists it in fsb_commands[] */
int cmd_knobs(int argc, char **argv)
{
	struct knobs_cfg cfg = { 0 };
	struct probe_target pt;
	struct knob_target kt;
	struct knob_batch *b = NULL;
	struct knob_session session = { 0 };
	json_t *values;
	char err[512];
	const char *path;
	int status, r;

	if (!cmd_args_parse(&knobs_cmd, &cfg, argc, argv, &status))
		goto out;
	path = cfg.path;
	if (!path) {
		fprintf(stderr,
			"fsbench knobs: which path? usage: fsbench knobs PATH [--set NAME=VALUE ...]\n");
		status = FSB_EXIT_USAGE;
		goto out;
	}
	if (fsb_knob_target(path, &pt, &kt, err, sizeof(err)) < 0) {
		fprintf(stderr, "fsbench knobs: %s\n", err);
		status = FSB_EXIT_FAIL;
		goto out;
	}
	if (cfg.set.n) {
		b = calloc(1, sizeof(*b));
		if (!b) {
			fprintf(stderr, "fsbench knobs: %s\n", strerror(ENOMEM));
			status = FSB_EXIT_FAIL;
			goto out;
		}
		b->t = &kt;
		r = 0;
		for (int i = 0; i < cfg.set.n && r == 0; i++)
			r = knob_batch_add(b, cfg.set.v[i], err, sizeof(err));
		if (r == 0)
			r = knob_session_begin(&session, b, journal_state_dir(), "knobs --set", err,
					       sizeof(err));
		if (r < 0 && session.failed <= KNOB_SESSION_VALIDATE) {
			fprintf(stderr, "fsbench knobs: %s\n", err);
			status = FSB_EXIT_USAGE;
			goto out;
		}
		if (r < 0) {
			fprintf(stderr, "fsbench knobs: %s%s; nothing was changed\n",
				r == -EBUSY && session.failed == KNOB_SESSION_LOCK ? "--set " : "",
				err);
			status = FSB_EXIT_FAIL;
			goto out;
		}
		/* the new values stay: the journal only covered the batch in flight */
		knob_session_end(&session, false, NULL);
		for (int i = 0; i < b->n; i++)
			if (!cfg.json)
				printf("%s: %s -> %s\n", b->ch[i].name, b->ch[i].before,
				       b->ch[i].applied);
	}
	values = knob_values_json(&kt);
	if (cfg.json) {
		json_t *o = json_pack("{s:s,s:O,s:o}", "disk", kt.disk, "knobs", values, "touches",
				      touches_json(values));

		if (b)
			json_object_set_new(o, "applied", knob_batch_applied_json(b));
		print_json(o);
		json_decref(o);
	} else if (!b) {
		printf("%s on %s (%s%s%s):\n", pt.mountpoint,
		       kt.disk[0] ? kt.disk : "no block device", pt.fstype,
		       kt.nslaves ? ", stacked" : "", kt.backing_file[0] ? ", loop" : "");
		print_knobs(values);
	}
	json_decref(values);
out:
	knob_session_free(&session);
	free(b);
	opt_free(knobs_opts, &cfg);
	return status;
}

/* Prints what knob_entries_restore() said about each knob; "pid" names the dead run. */
static void print_knob_results(json_t *results, long long pid)
{
	json_t *res;
	size_t k;

	json_array_foreach(results, k, res)
	{
		const char *st = json_string_value(json_object_get(res, "status"));
		char *v = json_dumps(json_object_get(res, "value"), JSON_ENCODE_ANY);
		const char *knob = json_string_value(json_object_get(res, "knob"));

		if (!strcmp(st, "restored"))
			printf("%s=%s: restored (from the run of pid %lld)\n", knob, v ? v : "?",
			       pid);
		else
			fprintf(stderr, "fsbench restore: %s=%s: %s: %s\n", knob ? knob : "?",
				v ? v : "?", st, json_string_value(json_object_get(res, "error")));
		free(v);
	}
}

/*
 * Replays one dead run's journal @name in the state directory open on @dfd. Returns 1
 * when it was handled (restored, or kept and reported), 0 when it was not ours to touch
 * (a live run's), with *@status lowered to failure where something was not restored.
 */
static int restore_one(int dfd, const char *dir, const char *lock_dir, const char *name, int pass,
		       bool discard, int *status)
{
	struct knob_locks locks = { 0 };
	json_t *hdr, *entries, *results, *knobs, *e, *undone;
	char err[1024];
	long long pid;
	size_t k;
	int r, rs;

	r = journal_load_at(dfd, name, &hdr, &entries, err, sizeof(err));
	if (r < 0) {
		if (pass == 0) {
			fprintf(stderr, "fsbench restore: in %s: %s; it stays\n", dir, err);
			*status = FSB_EXIT_FAIL;
		}
		return pass == 0;
	}
	/* knobs first (of devices and mounts that scratch entries may then take away) */
	knobs = json_array();
	json_array_foreach(entries, k, e) if (!json_is_string(json_object_get(e, "kind")) ||
					      strcmp(json_string_value(json_object_get(e, "kind")),
						     "scratch")) json_array_append(knobs, e);
	if ((json_array_size(knobs) < json_array_size(entries)) != (pass == 1)) {
		json_decref(hdr);
		json_decref(entries);
		json_decref(knobs);
		return 0;
	}
	pid = (long long)json_integer_value(json_object_get(hdr, "pid"));
	if (journal_owner_alive(hdr)) {
		printf("%s/%s: pid %lld still runs and restores its own knobs: skipped\n", dir,
		       name, pid);
		json_decref(knobs);
		json_decref(hdr);
		json_decref(entries);
		return 0;
	}
	/* the same locks as a run: a run or a restore that holds one is still at work */
	r = knob_entries_owners(entries, &locks);
	if (r == 0) {
		r = knob_locks_take(&locks, lock_dir, "restore", FSB_RESTORE_WAIT_MS, err,
				    sizeof(err));
		if (r < 0) {
			fprintf(stderr, "fsbench restore: %s/%s: %s: skipped, it stays\n", dir,
				name, err);
			*status = FSB_EXIT_FAIL;
			json_decref(knobs);
			json_decref(hdr);
			json_decref(entries);
			return 1;
		}
		/* another restore may have finished it while we waited */
		if (faccessat(dfd, name, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT) {
			knob_locks_release(&locks, lock_dir);
			json_decref(knobs);
			json_decref(hdr);
			json_decref(entries);
			return 0;
		}
	}
	results = json_array();
	if (r == 0)
		r = knob_entries_restore("", knobs, 0, results);
	else
		fprintf(stderr, "fsbench restore: %s/%s: finding whose knobs it holds: %s\n", dir,
			name, strerror(-r));
	print_knob_results(results, pid);
	/* then what the run made: unmounted, detached, removed, each only if still its own */
	undone = json_array();
	rs = probe_scratch_entries_restore(entries, undone);
	if (rs < 0 && r == 0)
		r = rs;
	json_array_foreach(undone, k, e)
	{
		if (!strcmp(json_string_value(json_object_get(e, "status")), "undone"))
			printf("%s (made by the run of pid %lld)\n",
			       json_string_value(json_object_get(e, "message")), pid);
		else
			fprintf(stderr, "fsbench restore: %s: %s\n",
				json_string_value(json_object_get(e, "status")),
				json_string_value(json_object_get(e, "error")));
	}
	json_decref(undone);
	if (r == 0 || discard) {
		if (unlinkat(dfd, name, 0) < 0) {
			fprintf(stderr, "fsbench restore: removing %s/%s: %s\n", dir, name,
				strerror(errno));
			*status = FSB_EXIT_FAIL;
		} else if (r < 0) {
			printf("%s/%s: removed with entries that could not be restored (--discard)\n",
			       dir, name);
		}
	} else {
		fprintf(stderr, "fsbench restore: %s/%s stays: not everything was restored%s\n",
			dir, name,
			r == -ESTALE || r == -EBADMSG ?
				" (an entry was refused; --discard drops the journal)" :
				"");
		*status = FSB_EXIT_FAIL;
	}
	knob_locks_release(&locks, lock_dir);
	json_decref(results);
	json_decref(knobs);
	json_decref(hdr);
	json_decref(entries);
	return 1;
}

/* dispatch.c lists it in fsb_commands[] */
int cmd_restore(int argc, char **argv)
{
	struct knobs_cfg cfg = { 0 };
	const char *dir = journal_state_dir();
	char err[1024], lock_dir[PATH_MAX];
	json_t *names, *p;
	size_t i;
	int status, r, dfd, done = 0;

	if (!cmd_args_parse(&restore_cmd, &cfg, argc, argv, &status))
		return status;
	journal_lock_dir("", lock_dir, sizeof(lock_dir));
	/* one descriptor for the directory checked: no path is looked up again through it */
	r = journal_dir_open(dir, &dfd, err, sizeof(err));
	if (r == -ENOENT) {
		printf("nothing to restore in %s\n", dir);
		return FSB_EXIT_OK;
	}
	if (r < 0) {
		fprintf(stderr, "fsbench restore: %s\n", err);
		return FSB_EXIT_FAIL;
	}
	r = journal_list_at(dfd, &names);
	if (r < 0) {
		fprintf(stderr, "fsbench restore: reading %s: %s\n", dir, strerror(-r));
		close(dfd);
		return FSB_EXIT_FAIL;
	}
	/* two passes: knob journals first, then the scratch ones that take devices away */
	for (int pass = 0; pass < 2; pass++)
		json_array_foreach(names, i, p) done += restore_one(
			dfd, dir, lock_dir, json_string_value(p), pass, cfg.discard, &status);
	if (!done && status == FSB_EXIT_OK)
		printf("nothing to restore in %s\n", dir);
	json_decref(names);
	close(dfd);
	return status;
}
