/* `fsbench restore`: put back the knobs, and undo what dead runs made, from their journals. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsbench/core/opt.h"
#include "probes/knob/journal.h"
#include "probes/knob/knob_replay.h"
#include "probes/scratch/scratch.h"

struct restore_cfg {
	bool discard;
};

#define O(f) offsetof(struct restore_cfg, f)
static const struct fsb_opt restore_opts[] = {
	{ .name = "discard",
	  .type = OPT_BOOL,
	  .offset = O(discard),
	  .max = 1,
	  .help = "remove the journals of dead runs whose entries cannot be restored (a device that is gone), "
		  "after trying" },
	{ 0 },
};
#undef O

static void restore_usage(FILE *out)
{
	fprintf(out, "usage: fsbench restore [--discard]\n\n");
}

static const struct cmd_spec restore_cmd = { .name = "restore",
					     .opts = restore_opts,
					     .operand = cmd_no_operand,
					     .usage = restore_usage };

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

/* Prints what undoing the run's scratch entries said about each. */
static void print_undone(json_t *undone, long long pid)
{
	json_t *e;
	size_t k;

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
}

/*
 * Replays one dead run's journal @name (knob_replay.h) in the state directory open on
 * @dfd. Returns 1 when it was handled (restored, or kept and reported), 0 when it was not
 * ours to touch (a live run's), with *@status lowered to failure where something was not
 * restored.
 */
static int restore_one(int dfd, const char *dir, const char *lock_dir, const char *name, int pass,
		       bool discard, int *status)
{
	struct knob_replay x;
	enum knob_replay_end end = knob_replay(dfd, name, pass, lock_dir, KNOB_REPLAY_WAIT_MS,
					       discard, probe_scratch_entries_restore, &x);

	switch (end) {
	case KNOB_REPLAY_UNREADABLE:
		fprintf(stderr, "fsbench restore: in %s: %s; it stays\n", dir, x.err);
		*status = FSB_EXIT_FAIL;
		return 1;
	case KNOB_REPLAY_ALIVE:
		printf("%s/%s: pid %lld still runs and restores its own knobs: skipped\n", dir,
		       name, x.pid);
		return 0;
	case KNOB_REPLAY_LOCKED:
		fprintf(stderr, "fsbench restore: %s/%s: %s: skipped, it stays\n", dir, name,
			x.err);
		*status = FSB_EXIT_FAIL;
		return 1;
	case KNOB_REPLAY_OTHER_PASS:
	case KNOB_REPLAY_GONE:
		return 0;
	case KNOB_REPLAY_DONE:
		break;
	}
	if (x.owners_r)
		fprintf(stderr, "fsbench restore: %s/%s: finding whose knobs it holds: %s\n", dir,
			name, strerror(-x.owners_r));
	print_knob_results(x.knobs, x.pid);
	print_undone(x.undone, x.pid);
	if (x.remove_errno) {
		fprintf(stderr, "fsbench restore: removing %s/%s: %s\n", dir, name,
			strerror(x.remove_errno));
		*status = FSB_EXIT_FAIL;
	} else if (x.removed && x.r < 0) {
		printf("%s/%s: removed with entries that could not be restored (--discard)\n", dir,
		       name);
	} else if (!x.removed) {
		fprintf(stderr, "fsbench restore: %s/%s stays: not everything was restored%s\n",
			dir, name,
			x.r == -ESTALE || x.r == -EBADMSG ?
				" (an entry was refused; --discard drops the journal)" :
				"");
		*status = FSB_EXIT_FAIL;
	}
	knob_replay_free(&x);
	return 1;
}

/* dispatch.c lists it in fsb_commands[] */
int cmd_restore(int argc, char **argv)
{
	struct restore_cfg cfg = { 0 };
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
