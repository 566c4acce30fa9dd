/* `fsbench info` and `fsbench knobs`: look at and set knobs (`fsbench restore`: cli/restore.c). */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"
#include "fsbench/ext/knobs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/knob/journal.h"
#include "probes/knob/knob_session.h"
#include "fsbench/core/opt.h"
#include "probes/target/topology.h"

struct knobs_cfg {
	const char *path; /* the operand */
	bool json;
	struct opt_strlist set;
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

/* The one parser (args.h); only their tables and usages differ. */
static const struct cmd_spec info_cmd = { .name = "info",
					  .opts = info_opts,
					  .operand = path_operand,
					  .usage = info_usage };
static const struct cmd_spec knobs_cmd = { .name = "knobs",
					   .opts = knobs_opts,
					   .operand = path_operand,
					   .usage = knobs_usage,
					   .more_help = knobs_help };
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
		       d ? knob_touch_words(d) : "");
		free(s);
	}
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
	if (!path)
		return cmd_fail(FSB_EXIT_USAGE, "info",
				"which path? usage: fsbench info PATH [--json]");
	if (fsb_knob_target(path, &pt, &kt, err, sizeof(err)) < 0)
		return cmd_fail(FSB_EXIT_FAIL, "info", "%s", err);
	dev = knob_target_json(&kt);
	values = knob_values_json(&kt);
	topo = probe_topology_json();
	if (cfg.json) {
		json_t *o = json_pack("{s:o,s:o,s:O,s:o,s:o*}", "target", probe_target_json(&pt),
				      "device", dev, "knobs", values, "touches",
				      knob_touches_json(values), "topology", topo);

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
		status = cmd_fail(FSB_EXIT_USAGE, "knobs",
				  "which path? usage: fsbench knobs PATH [--set NAME=VALUE ...]");
		goto out;
	}
	if (fsb_knob_target(path, &pt, &kt, err, sizeof(err)) < 0) {
		status = cmd_fail(FSB_EXIT_FAIL, "knobs", "%s", err);
		goto out;
	}
	if (cfg.set.n) {
		b = calloc(1, sizeof(*b));
		if (!b) {
			status = cmd_fail(FSB_EXIT_FAIL, "knobs", "%s", strerror(ENOMEM));
			goto out;
		}
		b->t = &kt;
		r = knob_session_set(&session, b, cfg.set.v, cfg.set.n, journal_state_dir(),
				     "knobs --set", err, sizeof(err));
		if (r < 0 && session.failed <= KNOB_SESSION_VALIDATE) {
			status = cmd_fail(FSB_EXIT_USAGE, "knobs", "%s", err);
			goto out;
		}
		if (r < 0) {
			status = cmd_fail(
				FSB_EXIT_FAIL, "knobs", "%s%s; nothing was changed",
				r == -EBUSY && session.failed == KNOB_SESSION_LOCK ? "--set " : "",
				err);
			goto out;
		}
		for (int i = 0; i < b->n; i++)
			if (!cfg.json)
				printf("%s: %s -> %s\n", b->ch[i].name, b->ch[i].before,
				       b->ch[i].applied);
	}
	values = knob_values_json(&kt);
	if (cfg.json) {
		json_t *o = json_pack("{s:s,s:O,s:o}", "disk", kt.disk, "knobs", values, "touches",
				      knob_touches_json(values));

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
