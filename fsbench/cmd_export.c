/* `fsbench export`: a result or compare file in a format a dashboard or CI service ingests. */
#include "cmd_compare.h"
#include "commands.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../report/export.h"
#include "../report/result.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench export --format F [-o FILE] [--metrics GLOB,...] [--build-id ID] "
		"RESULT.json...|COMPARE.json\n\n"
		"Writes every metric's mean (with its 95 %% CI where the format has room) per sample and side.\n"
		"Result files are summarised first: runs that differ only in repetition form one sample.\n\n");
	for (int i = 0; rpt_exporters[i]; i++)
		fprintf(out, "  --format %-17s %s\n", rpt_exporters[i]->name,
			rpt_exporters[i]->summary);
	fprintf(out,
		"\n  --metrics GLOB,...      keep only these metrics (e.g. 'files_per_sec,bytes_per_sec')\n"
		"  --build-id ID           kcidb: the build the tests ran against (default: from the kernel)\n"
		"  -o FILE                 write to FILE instead of stdout\n");
}

/* A compare document as-is, or result files summarised as one side. NULL after printing why. */
static json_t *load_input(const char *cmd, char **files, int nfiles)
{
	json_t *docs[256] = { 0 }, *cmp = NULL;
	struct rpt_run_ref *refs = NULL;
	struct rpt_compare_opts o;
	const char *side[] = { "result" };
	size_t nrefs = 0;
	char err[1024];
	int n = 0, e;

	if (nfiles == 1) {
		json_t *peek = json_load_file(files[0], 0, NULL);
		const char *schema = json_string_value(json_object_get(peek, "schema"));

		if (schema && !strcmp(schema, RPT_COMPARE_SCHEMA)) {
			json_decref(peek);
			if (rpt_compare_load(files[0], &cmp, err, sizeof(err))) {
				fprintf(stderr, "fsbench %s: %s\n", cmd, err);
				return NULL;
			}
			return cmp;
		}
		json_decref(peek);
	}
	if (nfiles > 256) {
		fprintf(stderr, "fsbench %s: at most 256 result files\n", cmd);
		return NULL;
	}
	rpt_compare_opts_init(&o);
	for (n = 0; n < nfiles; n++) {
		if (cli_result_load(cmd, files[n], &docs[n]))
			goto out;
		if (cli_refs_add(&refs, &nrefs, docs[n], files[n], 0)) {
			n++;
			fprintf(stderr, "fsbench %s: %s\n", cmd, strerror(ENOMEM));
			goto out;
		}
	}
	e = rpt_compare_build(side, 1, refs, nrefs, &o, &cmp, err, sizeof(err));
	if (e)
		fprintf(stderr, "fsbench %s: %s\n", cmd, e == -EPROTO ? err : strerror(-e));
out:
	for (int i = 0; i < n; i++)
		json_decref(docs[i]);
	free(refs);
	return cmp;
}

int cmd_export(int argc, char **argv)
{
	const struct rpt_exporter *ex = NULL;
	struct rpt_export_opts eo = { 0 };
	const char *outpath = NULL;
	char *files[256], *tmp = NULL;
	int nfiles = 0, status = FSB_EXIT_USAGE, e;
	json_t *cmp = NULL;
	FILE *out = stdout;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if ((!strcmp(a, "--format") || !strcmp(a, "-f")) && v) {
			ex = rpt_exporter_find(v);
			if (!ex) {
				fprintf(stderr,
					"fsbench export: --format %s: not a format (see --help)\n",
					v);
				return FSB_EXIT_USAGE;
			}
			i++;
		} else if (!strcmp(a, "-o") && v) {
			outpath = argv[++i];
		} else if (!strcmp(a, "--metrics") && v) {
			eo.metrics = argv[++i];
		} else if (!strcmp(a, "--build-id") && v) {
			eo.build_id = argv[++i];
			if (!strchr(eo.build_id, ':')) {
				fprintf(stderr,
					"fsbench export: --build-id %s: KCIDB ids are ORIGIN:ID\n",
					eo.build_id);
				return FSB_EXIT_USAGE;
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"fsbench export: unknown or incomplete option '%s' (see --help)\n",
				a);
			return FSB_EXIT_USAGE;
		} else if (nfiles < 256) {
			files[nfiles++] = argv[i];
		}
	}
	if (!ex || !nfiles) {
		fprintf(stderr, "fsbench export: %s\n",
			!ex ? "--format is required (see --help)" : "no input file");
		return FSB_EXIT_USAGE;
	}
	cmp = load_input("export", files, nfiles);
	if (!cmp)
		return FSB_EXIT_USAGE;
	if (ex->check) {
		char err[1024];

		if (ex->check(cmp, &eo, err, sizeof(err))) {
			fprintf(stderr, "fsbench export: %s\n", err);
			goto out;
		}
	}
	if (outpath) {
		if (asprintf(&tmp, "%s.tmp", outpath) < 0 || !(out = fopen(tmp, "w"))) {
			fprintf(stderr, "fsbench export: writing %s: %s\n", tmp ? tmp : outpath,
				strerror(errno));
			goto out;
		}
	}
	e = ex->write(cmp, &eo, out);
	if (out != stdout) {
		if (fclose(out) && !e)
			e = -errno;
		if (!e && rename(tmp, outpath) < 0)
			e = -errno;
		if (e)
			unlink(tmp);
	} else {
		fflush(stdout);
	}
	if (e) {
		fprintf(stderr, "fsbench export: writing %s: %s\n", outpath ? outpath : "stdout",
			strerror(-e));
		status = FSB_EXIT_FAIL;
		goto out;
	}
	status = 0;
out:
	free(tmp);
	json_decref(cmp);
	return status;
}
