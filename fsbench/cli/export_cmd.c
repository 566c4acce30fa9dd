/* `fsbench export`: a result or compare file in a format a dashboard or CI service ingests. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <string.h>

#include "base/fileio.h"
#include "report/export.h"

struct export_cfg {
	char *format, *output, *metrics, *build_id;
	bool timestamps;
	struct cmd_files files;
};

#define O(f) offsetof(struct export_cfg, f)
static const struct fsb_opt export_opts[] = {
	{ .name = "format",
	  .short_name = 'f',
	  .type = OPT_STRING,
	  .offset = O(format),
	  .help = "the output format (required; listed above)" },
	{ .name = "output",
	  .short_name = 'o',
	  .type = OPT_STRING,
	  .offset = O(output),
	  .file = OPT_FILE,
	  .help = "write to FILE instead of stdout" },
	{ .name = "metrics",
	  .type = OPT_STRING,
	  .offset = O(metrics),
	  .help = "keep only these metrics, GLOB,... (e.g. 'files_per_sec,bytes_per_sec')" },
	{ .name = "build-id",
	  .type = OPT_STRING,
	  .offset = O(build_id),
	  .help = "kcidb: the build the tests ran against, ORIGIN:ID (default: from the kernel)" },
	{ .name = "timestamps",
	  .type = OPT_BOOL,
	  .offset = O(timestamps),
	  .help = "openmetrics, prometheus: stamp each sample with its run's start time, for Prometheus backfill "
		  "(promtool tsdb create-blocks-from openmetrics); off by default, since "
		  "node_exporter's textfile collector refuses timestamps" },
	{ 0 },
};
#undef O

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench export --format F [-o FILE] [--metrics GLOB,...] [--build-id ID] [--timestamps] "
		"RESULT.json...|COMPARE.json\n\n"
		"Writes every metric's mean (with its 95 %% CI where the format has room) per sample and side.\n"
		"Result files are summarised first: runs that differ only in repetition form one sample.\n\n");
	for (int i = 0; rpt_exporters[i]; i++)
		fprintf(out, "  --format %-17s %s\n", rpt_exporters[i]->name,
			rpt_exporters[i]->summary);
	fprintf(out, "\n");
}

/* Writes @cmp as @ex to @outpath (atomically: base_out_open, then rename) or stdout. */
static int export_write(const struct rpt_exporter *ex, const struct rpt_cmp *cmp,
			const struct rpt_export_opts *eo, const char *outpath)
{
	char *tmp = NULL;
	FILE *out = stdout;
	int e;

	if (outpath) {
		out = base_out_open(outpath, &tmp);
		if (!out)
			return cmd_fail(FSB_EXIT_USAGE, "export",
					"creating a temporary file beside %s: %s", outpath,
					strerror(errno));
	}
	e = ex->write(cmp, eo, out);
	if (out != stdout)
		e = base_out_commit(out, tmp, outpath, e);
	else if (fflush(stdout) && !e)
		e = -errno;
	if (e)
		return cmd_fail(FSB_EXIT_FAIL, "export", "writing %s: %s",
				outpath ? outpath : "stdout", strerror(-e));
	return FSB_EXIT_OK;
}

static int export_run(void *cfg)
{
	const struct export_cfg *c = cfg;
	const struct rpt_exporter *ex;
	struct rpt_export_opts eo = { .metrics = c->metrics,
				      .build_id = c->build_id,
				      .timestamps = c->timestamps };
	struct rpt_cmp *cmp = NULL;
	char err[4096];
	int status;

	if (!c->format)
		return cmd_fail(FSB_EXIT_USAGE, "export", "--format is required (see --help)");
	ex = rpt_exporter_find(c->format);
	if (!ex)
		return cmd_fail(FSB_EXIT_USAGE, "export", "--format %s: not a format (see --help)",
				c->format);
	if (c->build_id && !strchr(c->build_id, ':'))
		return cmd_fail(FSB_EXIT_USAGE, "export", "--build-id %s: KCIDB ids are ORIGIN:ID",
				c->build_id);
	if (!c->files.n)
		return cmd_fail(FSB_EXIT_USAGE, "export", "no input file");
	if (rpt_export_input((const char *const *)c->files.v, (size_t)c->files.n, &cmp, err,
			     sizeof(err)) ||
	    rpt_export_metrics_check(cmp, c->metrics, err, sizeof(err)) ||
	    /* before any output: a refused export writes no file */
	    (ex->check && ex->check(cmp, &eo, err, sizeof(err)))) {
		fprintf(stderr, "fsbench export: %s\n", err);
		rpt_cmp_free(cmp);
		return FSB_EXIT_USAGE;
	}
	status = export_write(ex, cmp, &eo, c->output);
	rpt_cmp_free(cmp);
	return status;
}

static const struct cmd_spec export_cmd = {
	.name = "export",
	.opts = export_opts,
	.files_offset = offsetof(struct export_cfg, files),
	.usage = usage,
	.run = export_run,
};

int cmd_export(int argc, char **argv)
{
	struct export_cfg c = { 0 };

	return cmd_args_run(&export_cmd, &c, argc, argv);
}
