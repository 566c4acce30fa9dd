/* `fsbench compare`: two sides (files, or the values of one coordinate) judged metric by metric. */
#include "cmd_compare.h"
#include "commands.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../report/result.h"

#define EXIT_REGRESSED 1
#define EXIT_UNUSABLE 2

int cli_result_load(const char *cmd, const char *path, json_t **ret)
{
	char err[512];
	json_t *doc, *run;
	size_t i;
	int e = rpt_result_load(path, &doc, err, sizeof(err));

	if (e == -EPROTO) {
		fprintf(stderr, "fsbench %s: %s\n", cmd, err);
		return e;
	}
	if (e) {
		fprintf(stderr, "fsbench %s: reading %s: %s\n", cmd, path, strerror(-e));
		return -EPROTO;
	}
	if (!json_is_array(json_object_get(doc, "runs")) ||
	    !json_array_size(json_object_get(doc, "runs"))) {
		fprintf(stderr, "fsbench %s: %s: no runs[] in the result\n", cmd, path);
		json_decref(doc);
		return -EPROTO;
	}
	json_array_foreach(json_object_get(doc, "runs"), i, run)
	{
		const char *miss =
			!json_is_string(json_object_get(run, "workload")) ? "workload" :
			!json_is_integer(json_object_get(run, "threads")) ? "threads" :
			!json_is_object(json_object_get(run, "summary"))  ? "summary" :
			!json_is_boolean(
				json_object_get(json_object_get(run, "summary"), "complete")) ?
									   "summary.complete" :
									   NULL;

		if (miss) {
			fprintf(stderr,
				"fsbench %s: %s: run %zu has no valid '%s' (not an %s document?)\n",
				cmd, path, i, miss, RPT_RESULT_SCHEMA);
			json_decref(doc);
			return -EPROTO;
		}
	}
	*ret = doc;
	return 0;
}

int cli_refs_add(struct rpt_run_ref **refs, size_t *n, const json_t *doc, const char *path,
		 int side)
{
	const json_t *runs = json_object_get(doc, "runs"), *run;
	size_t i;

	json_array_foreach(runs, i, run)
	{
		struct rpt_run_ref *nr = realloc(*refs, (*n + 1) * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		*refs = nr;
		nr[(*n)++] = (struct rpt_run_ref){
			.run = run, .doc = doc, .file = path, .index = i, .side = side
		};
	}
	return 0;
}

int cli_sides_across(const char *cmd, struct rpt_run_ref *refs, size_t n, const char *field,
		     const char *first, const char ***ret_names)
{
	const char **names = calloc(n + 1, sizeof(*names));
	int nsides = 0;

	if (!names)
		return -ENOMEM;
	if (first)
		names[nsides++] = first;
	for (size_t i = 0; i < n; i++) {
		const char *v = json_string_value(
			json_object_get(json_object_get(refs[i].run, "coords"), field));
		int k;

		if (!v) {
			fprintf(stderr,
				"fsbench %s: %s: run %zu has no string coords.%s (--across needs suite results)\n",
				cmd, refs[i].file, refs[i].index, field);
			free(names);
			return -EPROTO;
		}
		for (k = 0; k < nsides && strcmp(names[k], v); k++)
			;
		if (k == nsides)
			names[nsides++] = v;
		refs[i].side = k;
	}
	if (first) {
		bool used = false;

		for (size_t i = 0; i < n; i++)
			used |= refs[i].side == 0;
		if (!used) {
			fprintf(stderr,
				"fsbench %s: --baseline-value %s: no run has coords.%s = %s\n", cmd,
				first, field, first);
			free(names);
			return -EPROTO;
		}
	}
	*ret_names = names;
	return nsides;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench compare [options] [--baseline] A.json... --candidate B.json...\n"
		"       fsbench compare [options] A.json B.json\n"
		"       fsbench compare [options] --across FIELD [--baseline-value V] SUITE.json...\n\n"
		"Runs that share coordinates (or workload, threads and parameters) form a sample; each\n"
		"metric's sides are compared with Welch's t-test (latency percentiles: the Mann-Whitney\n"
		"rank test when both sides have at least 4 samples). A metric regresses when p < alpha\n"
		"AND the change exceeds the threshold in the metric's bad direction.\n\n"
		"  --across FIELD        the sides are the values of coords.FIELD (e.g. fs) in suite results\n"
		"  --baseline-value V    with --across: the value compared against (default: the first seen)\n"
		"  --alpha A             significance level (default %g)\n"
		"  --threshold PCT       smallest change that counts, in percent (default %g)\n"
		"  --noise PCT           CoV above which an unproven change is 'noisy' (default %g)\n"
		"  --test auto|welch|rank  which test decides (default auto)\n"
		"  --gate                exit 1 when a metric regressed (2: unusable input)\n"
		"  --gate-file FILE      per-metric alpha/threshold_pct/noise_cov_pct/gate, and top-level\n"
		"                        strict/allow_noisy (implies --gate)\n"
		"  --strict              a gate that cannot judge fails: exit 2 when a gated metric is\n"
		"                        'insufficient' (fewer than %d samples a side) or 'noisy', or\n"
		"                        nothing was compared; a regression still exits 1 (implies --gate).\n"
		"                        Without it those metrics are only warned about on stderr\n"
		"  --allow-noisy         with --strict: 'noisy' metrics pass with a warning\n"
		"  --allow-unmatched     drop samples missing on a side instead of failing\n"
		"  --format text|markdown|json   what goes to stdout (default text)\n"
		"  --json FILE           also write the comparison (fsbench-compare/1) to FILE\n",
		RPT_DEFAULT_ALPHA, RPT_DEFAULT_THRESHOLD_PCT, RPT_DEFAULT_NOISE_COV_PCT,
		RPT_MIN_SAMPLES);
}

static int parse_double(const char *flag, const char *s, double lo, double hi, double *ret)
{
	char *end;
	double v;

	if (!s) {
		fprintf(stderr, "fsbench compare: %s needs a value\n", flag);
		return -EINVAL;
	}
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "fsbench compare: %s %s: expected a number from %g to %g\n", flag,
			s, lo, hi);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

/* Appends "SIDE N, SIDE N" (complete runs per side) of metric @m to @f. */
static void side_counts(FILE *f, const json_t *m)
{
	const json_t *st;
	size_t k;

	json_array_foreach(json_object_get(m, "sides"), k, st)
		fprintf(f, "%s%s %lld", k ? ", " : "",
			json_string_value(json_object_get(st, "side")),
			(long long)json_integer_value(json_object_get(st, "n")));
}

static double side_cov(const json_t *m, const char *side)
{
	const json_t *st;
	size_t k;

	json_array_foreach(json_object_get(m, "sides"), k, st) if (
		!strcmp(side,
			json_string_value(json_object_get(
				st, "side")))) return json_number_value(json_object_get(st,
											"cov_pct"));
	return NAN;
}

/*
 * A strict gate's complaint about one sample: which of its metrics it could not judge and
 * what would fix that. Returns the number of blocking comparisons.
 */
static size_t strict_sample_report(const json_t *cmp, const json_t *s)
{
	const json_t *m, *c, *few = NULL;
	char *noisy = NULL;
	size_t nlen = 0, j, k, n = 0;
	FILE *nf = open_memstream(&noisy, &nlen);
	double limit = NAN;

	if (!nf)
		return 0;
	json_array_foreach(json_object_get(s, "metrics"), j, m)
		json_array_foreach(json_object_get(m, "comparisons"), k, c)
	{
		const char *side = json_string_value(json_object_get(c, "side")),
			   *base = json_string_value(json_object_get(c, "baseline"));

		if (!rpt_gate_blocks(cmp, c))
			continue;
		n++;
		if (!strcmp(json_string_value(json_object_get(c, "verdict")), "insufficient")) {
			if (!few)
				few = m;
			continue;
		}
		limit = json_number_value(json_object_get(c, "noise_cov_pct"));
		fprintf(nf, "%s%s (CoV %s %.1f%%, %s %.1f%%)", ftell(nf) ? ", " : "",
			json_string_value(json_object_get(m, "name")), base, side_cov(m, base),
			side, side_cov(m, side));
	}
	fclose(nf);
	if (few) {
		fprintf(stderr, "fsbench compare: gate --strict: sample '%s': complete runs ",
			json_string_value(json_object_get(s, "label")));
		side_counts(stderr, few);
		fprintf(stderr,
			"; %d a side are needed to judge it (repeat each side's runs, or suite --repetitions %d)\n",
			RPT_MIN_SAMPLES, RPT_MIN_SAMPLES);
	}
	if (noisy && *noisy)
		fprintf(stderr,
			"fsbench compare: gate --strict: sample '%s': noisy, CoV above %g%% and no proven change: %s "
			"(more repetitions or a quieter machine; --allow-noisy lets them pass)\n",
			json_string_value(json_object_get(s, "label")), limit, noisy);
	free(noisy);
	return n;
}

/* Says on stderr what the gate decided and why; returns the exit status. */
static int gate_report(const json_t *cmp)
{
	const json_t *set = json_object_get(cmp, "settings"), *s;
	bool strict = json_is_true(json_object_get(set, "strict"));
	enum rpt_gate_status st = rpt_gate_status(cmp);
	size_t reg = rpt_compare_count(cmp, RPT_REGRESSION, true);
	size_t few = rpt_compare_count(cmp, RPT_INSUFFICIENT, true);
	size_t noisy = rpt_compare_count(cmp, RPT_NOISY, true);
	size_t i, blocking = 0, samples = 0;

	if (strict) {
		json_array_foreach(json_object_get(cmp, "samples"), i, s)
		{
			size_t b = strict_sample_report(cmp, s);

			blocking += b;
			samples += b > 0;
		}
	}
	if (few && !strict)
		fprintf(stderr,
			"fsbench compare: %zu metric(s) had fewer than %d samples a side and were not judged (--strict fails the gate on them)\n",
			few, RPT_MIN_SAMPLES);
	if (noisy && (!strict || json_is_true(json_object_get(set, "allow_noisy"))))
		fprintf(stderr,
			"fsbench compare: %zu metric(s) were noisy (CoV above the noise limit, no proven change) and were not judged%s\n",
			noisy, strict ? " (--allow-noisy)" : " (--strict fails the gate on them)");
	if (reg)
		fprintf(stderr, "fsbench compare: gate: %zu regression(s)\n", reg);
	if (st == RPT_GATE_UNJUDGED) {
		if (blocking)
			fprintf(stderr,
				"fsbench compare: gate --strict: %zu metric(s) in %zu sample(s) could not be judged\n",
				blocking, samples);
		else
			fprintf(stderr,
				"fsbench compare: gate --strict: no gated metric was compared, nothing was judged\n");
	}
	return st == RPT_GATE_REGRESSED ? EXIT_REGRESSED :
	       st == RPT_GATE_UNJUDGED	? EXIT_UNUSABLE :
					  0;
}

int cmd_compare(int argc, char **argv)
{
	struct rpt_compare_opts o;
	const char *files[2][256], *json_out = NULL, *format = "text", *gate_file = NULL,
				   *first = NULL;
	size_t nfiles[2] = { 0, 0 }, nrefs = 0, ndocs = 0;
	json_t *docs[512], *gate = NULL, *cmp = NULL;
	struct rpt_run_ref *refs = NULL;
	const char **names = NULL, *default_names[2] = { "baseline", "candidate" };
	bool do_gate = false, saw_candidate = false;
	int side = 0, nsides, status = EXIT_UNUSABLE, e;
	char err[1024];

	rpt_compare_opts_init(&o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--baseline")) {
			side = 0;
		} else if (!strcmp(a, "--candidate")) {
			side = 1;
			saw_candidate = true;
		} else if (!strcmp(a, "--gate")) {
			do_gate = true;
		} else if (!strcmp(a, "--strict")) {
			o.strict = true;
			do_gate = true;
		} else if (!strcmp(a, "--allow-noisy")) {
			o.allow_noisy = true;
		} else if (!strcmp(a, "--allow-unmatched")) {
			o.allow_unmatched = true;
		} else if (!strcmp(a, "--alpha")) {
			if (parse_double(a, v, 1e-9, 0.5, &o.alpha))
				return EXIT_UNUSABLE;
			i++;
		} else if (!strcmp(a, "--threshold")) {
			if (parse_double(a, v, 0, 1000, &o.threshold_pct))
				return EXIT_UNUSABLE;
			i++;
		} else if (!strcmp(a, "--noise")) {
			if (parse_double(a, v, 0, 1000, &o.noise_cov_pct))
				return EXIT_UNUSABLE;
			i++;
		} else if (!strcmp(a, "--test") && v) {
			if (!strcmp(v, "auto"))
				o.test = RPT_TEST_AUTO;
			else if (!strcmp(v, "welch"))
				o.test = RPT_TEST_ONLY_WELCH;
			else if (!strcmp(v, "rank") || !strcmp(v, "mann-whitney"))
				o.test = RPT_TEST_ONLY_RANK;
			else {
				fprintf(stderr,
					"fsbench compare: --test %s: expected auto, welch or rank\n",
					v);
				return EXIT_UNUSABLE;
			}
			i++;
		} else if ((!strcmp(a, "--format") || !strcmp(a, "--json") ||
			    !strcmp(a, "--gate-file") || !strcmp(a, "--across") ||
			    !strcmp(a, "--baseline-value")) &&
			   v) {
			if (!strcmp(a, "--format"))
				format = v;
			else if (!strcmp(a, "--json"))
				json_out = v;
			else if (!strcmp(a, "--gate-file"))
				gate_file = v;
			else if (!strcmp(a, "--across"))
				o.across = v;
			else
				first = v;
			i++;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"fsbench compare: unknown or incomplete option '%s' (see --help)\n",
				a);
			return EXIT_UNUSABLE;
		} else if (nfiles[side] >= 256) {
			fprintf(stderr, "fsbench compare: %s: at most 256 files a side\n", a);
			return EXIT_UNUSABLE;
		} else {
			files[side][nfiles[side]++] = a;
		}
	}
	if (strcmp(format, "text") && strcmp(format, "markdown") && strcmp(format, "json")) {
		fprintf(stderr, "fsbench compare: --format %s: expected text, markdown or json\n",
			format);
		return EXIT_UNUSABLE;
	}
	if (first && !o.across) {
		fprintf(stderr, "fsbench compare: --baseline-value needs --across\n");
		return EXIT_UNUSABLE;
	}
	/* `compare A.json B.json`: the design's short form */
	if (!o.across && !saw_candidate && nfiles[0] == 2) {
		files[1][nfiles[1]++] = files[0][1];
		nfiles[0] = 1;
	}
	if (!nfiles[0] && !nfiles[1]) {
		fprintf(stderr, "fsbench compare: no result files (see --help)\n");
		return EXIT_UNUSABLE;
	}
	if (!o.across && (!nfiles[0] || !nfiles[1])) {
		fprintf(stderr,
			"fsbench compare: nothing to compare against: give --baseline FILE... --candidate "
			"FILE..., or --across FIELD\n");
		return EXIT_UNUSABLE;
	}
	if (gate_file) {
		json_error_t je;

		do_gate = true;
		gate = json_load_file(gate_file, 0, &je);
		if (!gate) {
			fprintf(stderr, "fsbench compare: gate file %s:%d:%d: %s\n", gate_file,
				je.line, je.column, je.text);
			return EXIT_UNUSABLE;
		}
		if (rpt_gate_check(gate, err, sizeof(err))) {
			fprintf(stderr, "fsbench compare: %s: %s\n", gate_file, err);
			goto out;
		}
		o.gate = gate;
		if (json_is_true(json_object_get(gate, "strict")))
			o.strict = true;
		if (json_is_true(json_object_get(gate, "allow_noisy")))
			o.allow_noisy = true;
	}
	if (o.allow_noisy && !o.strict) {
		fprintf(stderr,
			"fsbench compare: --allow-noisy only relaxes a strict gate: add --strict (or \"strict\": true in the gate file)\n");
		goto out;
	}
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < nfiles[s]; i++) {
			if (cli_result_load("compare", files[s][i], &docs[ndocs]))
				goto out;
			if (cli_refs_add(&refs, &nrefs, docs[ndocs], files[s][i], s) < 0) {
				ndocs++;
				fprintf(stderr, "fsbench compare: %s\n", strerror(ENOMEM));
				goto out;
			}
			ndocs++;
		}
	if (o.across) {
		nsides = cli_sides_across("compare", refs, nrefs, o.across, first, &names);
		if (nsides < 0)
			goto out;
		if (nsides < 2)
			fprintf(stderr,
				"fsbench compare: every run has coords.%s = %s: statistics only, nothing compared\n",
				o.across, names[0]);
	} else {
		nsides = 2;
	}
	e = rpt_compare_build(names ? names : default_names, nsides, refs, nrefs, &o, &cmp, err,
			      sizeof(err));
	if (e) {
		fprintf(stderr, "fsbench compare: %s\n", e == -EPROTO ? err : strerror(-e));
		goto out;
	}
	if (!strcmp(format, "json")) {
		json_dumpf(cmp, stdout, JSON_INDENT(1) | JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
		fputc('\n', stdout);
	} else {
		rpt_compare_print(cmp, stdout, !strcmp(format, "markdown"));
	}
	fflush(stdout);
	if (json_out) {
		e = rpt_json_write_atomic(cmp, json_out);
		if (e) {
			fprintf(stderr, "fsbench compare: writing %s: %s\n", json_out,
				strerror(-e));
			goto out;
		}
	}
	for (size_t i = 0; i < json_array_size(json_object_get(cmp, "excluded")); i++) {
		const json_t *x = json_array_get(json_object_get(cmp, "excluded"), i);

		fprintf(stderr, "fsbench compare: %s: run %lld is incomplete and left out: %s\n",
			json_string_value(json_object_get(x, "file")),
			(long long)json_integer_value(json_object_get(x, "run")),
			json_string_value(json_object_get(x, "reason")));
	}
	status = 0;
	if (do_gate)
		status = gate_report(cmp);
out:
	json_decref(cmp);
	json_decref(gate);
	for (size_t i = 0; i < ndocs; i++)
		json_decref(docs[i]);
	free(refs);
	free(names);
	return status;
}
