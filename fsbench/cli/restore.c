/* `fsbench restore`: put back the knobs, and undo what dead runs made, from their journals. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The state directory and how the replays went so far, for said(). */
struct restore_ctx {
	const char *dir;
	int status, done; /* done: journals handled (restored, or kept and reported) */
};

/* Says how replaying the journal @name ended (knob_replay_dir's @said). */
static void said(void *arg, const char *name, enum knob_replay_end end, const struct knob_replay *x)
{
	struct restore_ctx *c = arg;
	const char *dir = c->dir;

	switch (end) {
	case KNOB_REPLAY_UNREADABLE:
		fprintf(stderr, "fsbench restore: in %s: %s; it stays\n", dir, x->err);
		c->status = FSB_EXIT_FAIL;
		c->done++;
		return;
	case KNOB_REPLAY_ALIVE:
		printf("%s/%s: pid %lld still runs and restores its own knobs: skipped\n", dir,
		       name, x->pid);
		return;
	case KNOB_REPLAY_LOCKED:
		fprintf(stderr, "fsbench restore: %s/%s: %s: skipped, it stays\n", dir, name,
			x->err);
		c->status = FSB_EXIT_FAIL;
		c->done++;
		return;
	case KNOB_REPLAY_OTHER_PASS:
	case KNOB_REPLAY_GONE:
		return;
	case KNOB_REPLAY_DONE:
		break;
	}
	c->done++;
	if (x->owners_r)
		fprintf(stderr, "fsbench restore: %s/%s: finding whose knobs it holds: %s\n", dir,
			name, strerror(-x->owners_r));
	print_knob_results(x->knobs, x->pid);
	print_undone(x->undone, x->pid);
	if (x->remove_errno) {
		fprintf(stderr, "fsbench restore: removing %s/%s: %s\n", dir, name,
			strerror(x->remove_errno));
		c->status = FSB_EXIT_FAIL;
	} else if (x->removed && x->r < 0) {
		printf("%s/%s: removed with entries that could not be restored (--discard)\n", dir,
		       name);
	} else if (!x->removed) {
		fprintf(stderr, "fsbench restore: %s/%s stays: not everything was restored%s\n",
			dir, name,
			x->r == -ESTALE || x->r == -EBADMSG ?
				" (an entry was refused; --discard drops the journal)" :
				"");
		c->status = FSB_EXIT_FAIL;
	}
}

/* dispatch.c lists it in fsb_commands[] */
int cmd_restore(int argc, char **argv)
{
	struct restore_cfg cfg = { 0 };
	struct restore_ctx c = { .dir = journal_state_dir() };
	char err[1024];
	int r;

	if (!cmd_args_parse(&restore_cmd, &cfg, argc, argv, &c.status))
		return c.status;
	r = knob_replay_dir(c.dir, cfg.discard, probe_scratch_entries_restore, said, &c, err,
			    sizeof(err));
	if (r == -ENOENT || (!r && !c.done && c.status == FSB_EXIT_OK))
		printf("nothing to restore in %s\n", c.dir);
	else if (r < 0)
		fprintf(stderr, "fsbench restore: %s\n", err);
	return r == -ENOENT ? FSB_EXIT_OK : r < 0 ? FSB_EXIT_FAIL : c.status;
}
