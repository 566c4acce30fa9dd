/* `fsbench lava`: the suite as a LAVA job, its metrics as test cases, and LAVA's results back. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/kgate.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#include "report/compare.h"
#include "report/metric.h"
#include "model/result_file.h"
#include "model/runs.h"

/*
 * A test case is "<workload>.t<threads>.<cell>.r<repetition>.<metric>": the workload and
 * threads let compare line runs up again, the cell (the suite's cell label, slugged) keeps
 * cells apart, and the metric is compare's own name ("files_per_sec", "create.p50"), from
 * report/metric.c's catalog. LAVA allows [A-Za-z0-9_.-] in a name; metrics carry their
 * display unit, as compare shows them. Unlike `export --format lava`, which writes one mean
 * per sample, every run is its own case: compare needs the runs to judge a change.
 */
static void slug(const char *in, char *out, size_t len)
{
	size_t j = 0;

	for (size_t i = 0; in[i] && j + 1 < len; i++) {
		char c = in[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-';

		if (!ok && (j == 0 || out[j - 1] == '-'))
			continue;
		out[j++] = ok ? c : '-';
	}
	while (j && out[j - 1] == '-')
		j--;
	out[j] = 0;
}

struct cases_cfg {
	struct cmd_files files;
};

static const struct fsb_opt cases_opts[] = { { 0 } };

static void cases_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench lava cases RESULT.json\n\n"
		"One line per metric of each complete run: NAME VALUE UNIT, for lava-test-case.\n");
}

/* Prints one line per metric of each complete run: "NAME VALUE UNIT". */
static int lava_cases(void *cfg)
{
	const struct cases_cfg *c = cfg;
	const char *path = c->files.v[0];
	json_t *doc, *run;
	size_t i;
	int n = 0;

	char err[1024];

	if (c->files.n != 1) {
		fprintf(stderr, "fsbench lava cases: one result file (see --help)\n");
		return FSB_EXIT_USAGE;
	}
	if (rpt_runs_load(path, &doc, err, sizeof(err))) {
		fprintf(stderr, "fsbench lava cases: %s\n", err);
		return FSB_EXIT_USAGE;
	}
	json_array_foreach(json_object_get(doc, "runs"), i, run)
	{
		const json_t *coords = json_object_get(run, "coords"), *ops;
		json_t *op;
		const char *cell = json_string_value(json_object_get(coords, "cell")), *opname;
		char prefix[256], cs[160], name[400];
		/* suite repetitions count from 0; a single run is repetition i */
		json_int_t rep = coords ?
					 json_integer_value(json_object_get(coords, "repetition")) :
					 (json_int_t)i;

		if (!json_is_true(json_object_get(json_object_get(run, "summary"), "complete")))
			continue; /* compare leaves incomplete runs out too */
		slug(cell ? cell : json_string_value(json_object_get(run, "workload")), cs,
		     sizeof(cs));
		snprintf(prefix, sizeof(prefix), "%s.t%lld.%s.r%lld",
			 json_string_value(json_object_get(run, "workload")),
			 (long long)json_integer_value(json_object_get(run, "threads")), cs,
			 (long long)rep);
		for (size_t m = 0; m < rpt_n_run_metrics; m++) {
			const struct rpt_metric_def *d = &rpt_run_metrics[m];
			double v;

			/* files/s for file runs, MB/s for byte runs: what compare judges */
			if (!rpt_metric_applies(run, d, NULL) ||
			    !rpt_metric_value(run, d, NULL, &v))
				continue;
			printf("%s.%s %.10g %s\n", prefix, d->name, v * d->scale, d->unit);
			n++;
		}
		ops = json_object_get(run, "ops");
		json_object_foreach((json_t *)ops, opname, op)
		{
			if (!json_integer_value(json_object_get(op, "count")))
				continue;
			for (size_t k = 0; k < rpt_n_latency_metrics; k++) {
				const struct rpt_metric_def *d = &rpt_latency_metrics[k];
				double v;

				if (!rpt_metric_value(run, d, opname, &v))
					continue;
				snprintf(name, sizeof(name), "%s.%s", opname, d->name);
				printf("%s.%s %.10g %s\n", prefix, name, v * d->scale, d->unit);
				n++;
			}
		}
	}
	json_decref(doc);
	if (!n) {
		fprintf(stderr, "fsbench lava cases: %s: no complete run with a metric\n", path);
		return FSB_EXIT_FAIL;
	}
	return FSB_EXIT_OK;
}

/* ---- LAVA's results back into fsbench results ---- */

/* A YAML node as JSON: mappings, sequences, and every scalar a string. */
static json_t *yaml_to_json(yaml_document_t *d, yaml_node_t *n, int depth)
{
	json_t *j;

	if (!n || depth > 64)
		return NULL;
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return json_stringn((const char *)n->data.scalar.value, n->data.scalar.length);
	case YAML_SEQUENCE_NODE:
		j = json_array();
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     j && it < n->data.sequence.items.top; it++) {
			json_t *v = yaml_to_json(d, yaml_document_get_node(d, *it), depth + 1);
			if (v)
				json_array_append_new(j, v);
		}
		return j;
	case YAML_MAPPING_NODE:
		j = json_object();
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     j && p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(d, p->key);
			json_t *v = yaml_to_json(d, yaml_document_get_node(d, p->value), depth + 1);

			if (k && k->type == YAML_SCALAR_NODE && v)
				json_object_set_new(j, (const char *)k->data.scalar.value, v);
			else
				json_decref(v);
		}
		return j;
	default:
		return NULL;
	}
}

/* LAVA's results as its API gives them: YAML (a JSON document is YAML too). */
static int load_lava(const char *path, json_t **ret)
{
	FILE *f = fopen(path, "re");
	yaml_parser_t p;
	yaml_document_t d;
	json_t *j;

	if (!f) {
		fprintf(stderr, "fsbench lava import: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	if (!yaml_parser_load(&p, &d)) {
		fprintf(stderr, "fsbench lava import: %s:%zu: %s\n", path, p.problem_mark.line + 1,
			p.problem ? p.problem : "not YAML or JSON");
		yaml_parser_delete(&p);
		fclose(f);
		return -EPROTO;
	}
	j = yaml_to_json(&d, yaml_document_get_root_node(&d), 0);
	yaml_document_delete(&d);
	yaml_parser_delete(&p);
	fclose(f);
	/* REST API pages: {"count": N, "results": [...]}; lavacli and /results/JOB/yaml: a list */
	if (json_is_object(j) && json_is_array(json_object_get(j, "results"))) {
		json_t *r = json_incref(json_object_get(j, "results"));
		json_decref(j);
		j = r;
	}
	if (!json_is_array(j)) {
		fprintf(stderr, "fsbench lava import: %s: expected a list of test cases\n", path);
		json_decref(j);
		return -EPROTO;
	}
	*ret = j;
	return 0;
}

/* The run of @runs with these coordinates, made on first sight. */
static json_t *run_for(json_t *runs, const char *workload, long threads, const char *cell, long rep)
{
	json_t *run;
	size_t i;

	json_array_foreach(runs, i, run)
	{
		const json_t *c = json_object_get(run, "coords");
		if (!strcmp(json_string_value(json_object_get(c, "cell")), cell) &&
		    json_integer_value(json_object_get(c, "repetition")) == rep)
			return run;
	}
	run = json_pack("{s:s, s:i, s:{s:s, s:s, s:i, s:i, s:s}, s:{s:b}, s:{}, s:{}}", "workload",
			workload, "threads", (json_int_t)threads, "coords", "fs", cell, "workload",
			workload, "threads", (json_int_t)threads, "repetition", (json_int_t)rep,
			"cell", cell, "summary", "complete", 1, "ops", "kernel");
	json_array_append_new(runs, run);
	return run;
}

/* The object at @path ("kernel", "probes/sources/jbd2/...") in @run, made as needed. */
static json_t *section_make(json_t *run, const char *path)
{
	json_t *o = run;
	char key[128];

	while (o && *path) {
		size_t n = strcspn(path, "/");
		json_t *next;

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = 0;
		next = json_object_get(o, key);
		if (!next) {
			next = json_object();
			if (json_object_set_new(o, key, next))
				return NULL;
		}
		o = json_is_object(next) ? next : NULL;
		path += n + (path[n] == '/');
	}
	return o;
}

struct import_cfg {
	char *output;
	struct cmd_files files;
};

static const struct fsb_opt import_opts[] = {
	{ .name = "output",
	  .short_name = 'o',
	  .type = OPT_STRING,
	  .offset = offsetof(struct import_cfg, output),
	  .help = "the fsbench result to write (required)" },
	{ 0 },
};

static void import_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench lava import -o RESULT.json LAVA-RESULTS.yaml|json...\n\n"
		"LAVA's test cases (as its API or lavacli gives them) back as an fsbench result\n"
		"that compare can gate.\n\n");
}

static int lava_import(void *cfg)
{
	const struct import_cfg *c = cfg;
	const char *out = c->output;
	json_t *runs = NULL, *doc, *all = NULL, *tc;
	size_t i, used = 0, skipped = 0;
	int r = FSB_EXIT_OK;

	if (!out || !c->files.n) {
		fprintf(stderr, "fsbench lava import: %s (see --help)\n",
			out ? "no LAVA results file" : "-o RESULT.json is required");
		return FSB_EXIT_USAGE;
	}
	runs = json_array();
	all = json_array();
	for (int a = 0; a < c->files.n && all; a++) {
		json_t *j;

		if (load_lava(c->files.v[a], &j)) {
			r = FSB_EXIT_USAGE;
			goto done;
		}
		json_array_extend(all, j);
		json_decref(j);
	}
	if (!runs || !all) {
		fprintf(stderr, "fsbench lava import: %s\n", strerror(ENOMEM));
		r = FSB_EXIT_FAIL;
		goto done;
	}
	json_array_foreach(all, i, tc)
	{
		const char *name = json_string_value(json_object_get(tc, "name"));
		const char *res = json_string_value(json_object_get(tc, "result"));
		const json_t *mv = json_object_get(tc, "measurement");
		char wl[64], cell[160], metric[96], *end;
		long threads, rep;
		double v;
		int pos = 0;

		if (!name || !mv || json_is_null(mv) ||
		    sscanf(name, "%63[^.].t%ld.%159[^.].r%ld.%95s%n", wl, &threads, cell, &rep,
			   metric, &pos) != 5 ||
		    name[pos]) {
			skipped++; /* lava's own cases (job, boot...) and others' */
			continue;
		}
		v = json_is_number(mv) ?
			    json_number_value(mv) :
			    strtod(json_string_value(mv) ? json_string_value(mv) : "", &end);
		const struct rpt_metric_def *d = rpt_metric_lookup(metric);
		if (!d || !isfinite(v) || (res && strcmp(res, "pass"))) {
			skipped++;
			continue;
		}
		json_t *run = run_for(runs, wl, threads, cell, rep), *sect;
		double raw = v / d->scale;

		if (d->kind == RPT_KIND_LATENCY) {
			char op[64];
			snprintf(op, sizeof(op), "%.*s", (int)(strchr(metric, '.') - metric),
				 metric);
			sect = json_object_get(json_object_get(run, "ops"), op);
			if (!sect) { /* LAVA reports no call count: only the quantiles */
				sect = json_object();
				json_object_set_new(json_object_get(run, "ops"), op, sect);
			}
			/* schema 2: "p99_ns" beside count, nanoseconds as integers */
			json_object_set_new(sect, d->key, json_integer((json_int_t)llround(raw)));
		} else {
			sect = section_make(run, d->section);
			if (!sect) {
				skipped++;
				continue;
			}
			json_object_set_new(sect, d->key, json_real(raw));
		}
		used++;
	}
	if (!used) {
		fprintf(stderr,
			"fsbench lava import: no fsbench test case among %zu (names like "
			"smallfile.t1.ext4-smallfile-t-1.r1.files_per_sec)\n",
			json_array_size(all));
		r = FSB_EXIT_FAIL;
		goto done;
	}
	{
		time_t t = time(NULL);
		struct tm tm;
		char when[32];

		gmtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		json_t *files = json_array();

		for (int a = 0; a < c->files.n && files; a++)
			json_array_append_new(files, json_string(c->files.v[a]));
		doc = files ? json_pack(
				      "{s:s, s:{s:s, s:s}, s:s, s:b, s:{s:s, s:i}, s:{s:[s], s:s},"
				      " s:O, s:{s:s, s:o}}",
				      "schema", RPT_RESULT_SCHEMA, "tool", "name", "fsbench",
				      "version", FSB_VERSION, "created", when, "complete", 1,
				      "host", "kernel", "unknown (imported from LAVA)", "cores", 1,
				      "config", "argv", "lava", "command", "lava-import", "runs",
				      runs, "imported", "from", "lava", "files", files) :
			      NULL;
	}
	int e = doc ? rpt_json_write_atomic(doc, out) : -ENOMEM;

	if (e) {
		fprintf(stderr, "fsbench lava import: writing %s: %s\n", out, strerror(-e));
		r = FSB_EXIT_FAIL;
	} else
		fprintf(stderr,
			"fsbench lava import: %zu measurements in %zu runs into %s (%zu other test cases)\n",
			used, json_array_size(runs), out, skipped);
	json_decref(doc);
done:
	json_decref(all);
	json_decref(runs);
	return r;
}

/* ---- the job ---- */

/* A YAML double-quoted scalar. */
static void yq(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/*
 * The test definition both device kinds share: the guest's init found the modules and
 * stopped at a shell (fsbench.shell on the command line); this runs the suite, reports each
 * metric as a test case and keeps the result JSON in the log between two marker lines.
 */
static void job_testdef(FILE *f, const char *suite, const char *device, int timeout_min)
{
	fprintf(f,
		"- test:\n"
		"    timeout:\n"
		"      minutes: %d\n"
		"    definitions:\n"
		"    - from: inline\n"
		"      name: fsbench\n"
		"      path: inline/fsbench.yaml\n"
		"      repository:\n"
		"        metadata:\n"
		"          format: Lava-Test Test Definition 1.0\n"
		"          name: fsbench\n"
		"          description: fsbench suite %s; one test case per metric and run\n"
		"        run:\n"
		"          steps:\n",
		timeout_min, suite);
	fprintf(f, "          - ");
	char step[1024];
	snprintf(
		step, sizeof(step),
		/* the suite and its arguments the initramfs was built with, as kernel-gate's guest */
		"set -- $(cat /etc/fsbench/args); fsbench suite \"$@\" --device %s --force "
		"--json /tmp/fsbench-result.json >/tmp/fsbench-suite.log 2>&1; rc=$?; "
		"cat /tmp/fsbench-suite.log; "
		"if [ $rc = 0 ]; then lava-test-case fsbench-suite --result pass; "
		"else lava-test-case fsbench-suite --result fail; fi",
		device);
	yq(f, step);
	fprintf(f, "\n          - ");
	yq(f, "fsbench lava cases /tmp/fsbench-result.json | while read -r name value unit; do "
	      "lava-test-case \"$name\" --result pass --measurement \"$value\" --units \"$unit\"; "
	      "done");
	fprintf(f, "\n          - ");
	yq(f, "echo FSBENCH-RESULT-BEGIN; cat /tmp/fsbench-result.json; echo; echo "
	      "FSBENCH-RESULT-END");
	fprintf(f, "\n");
}

struct job_cfg {
	char *kernel_url, *ramdisk_url, *scratch_url, *device_type, *boot_method, *device;
	char *job_name, *output, *kernel, *modules;
	int64_t timeout, repetitions;
	char *suite; /* the operand; a second one is an error */
};

#define O(f) offsetof(struct job_cfg, f)
static const struct fsb_opt job_opts[] = {
	{ .name = "kernel",
	  .type = OPT_STRING,
	  .offset = O(kernel),
	  .help = "build the initramfs for kernel K (as kernel-gate takes it) and copy both "
		  "beside the job" },
	{ .name = "modules",
	  .type = OPT_STRING,
	  .offset = O(modules),
	  .help = "K's modules: a directory holding lib/modules/RELEASE" },
	{ .name = "kernel-url",
	  .type = OPT_STRING,
	  .offset = O(kernel_url),
	  .help = "where LAVA fetches the kernel (default with --kernel: file:// of the copy)" },
	{ .name = "ramdisk-url",
	  .type = OPT_STRING,
	  .offset = O(ramdisk_url),
	  .help = "where LAVA fetches the fsbench initramfs (default with --kernel: file://)" },
	{ .name = "scratch-url",
	  .type = OPT_STRING,
	  .offset = O(scratch_url),
	  .help = "qemu: a raw disk image QEMU attaches as the scratch disk" },
	{ .name = "device-type",
	  .type = OPT_STRING,
	  .offset = O(device_type),
	  .def = "qemu",
	  .help = "qemu deploys to tmpfs and boots with QEMU (TCG, icount); any other type "
		  "deploys over tftp" },
	{ .name = "boot-method",
	  .type = OPT_STRING,
	  .offset = O(boot_method),
	  .def = "ipxe",
	  .help = "how a board boots (not qemu)" },
	{ .name = "device",
	  .type = OPT_STRING,
	  .offset = O(device),
	  .help = "the scratch disk in the guest, destroyed (qemu: /dev/vda; a board needs it)" },
	{ .name = "job-name",
	  .type = OPT_STRING,
	  .offset = O(job_name),
	  .help = "the job's name (default: fsbench SUITE RELEASE)" },
	{ .name = "timeout",
	  .type = OPT_INT,
	  .offset = O(timeout),
	  .min = 1,
	  .max = 10080,
	  .def = "60",
	  .unit = "min",
	  .help = "the test action's timeout" },
	{ .name = "repetitions",
	  .type = OPT_INT,
	  .offset = O(repetitions),
	  .min = 1,
	  .max = 1000,
	  .help = "passed to the suite (needs --kernel: built into the initramfs)" },
	{ .name = "output",
	  .short_name = 'o',
	  .type = OPT_STRING,
	  .offset = O(output),
	  .help = "write the job to FILE (default stdout)" },
	{ 0 },
};
#undef O

static void job_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench lava job [--kernel K [--modules DIR]] [--kernel-url URL]\n"
		"                        [--ramdisk-url URL] [options] [-o FILE] [SUITE]\n\n"
		"Writes a LAVA job: deploy the kernel and the fsbench initramfs, boot, and an inline\n"
		"test definition that runs SUITE (default '%s') on the scratch disk and reports\n"
		"every metric with lava-test-case. Give --kernel, or both URLs.\n\n",
		KG_DEFAULT_SUITE);
}

static int job_suite(void *cfg, char *arg, char *err, size_t errlen)
{
	struct job_cfg *c = cfg;

	if (c->suite) {
		snprintf(err, errlen, "one suite only ('%s' is extra)", arg);
		return -EINVAL;
	}
	c->suite = arg;
	return 0;
}

static int copy_file(const char *src, const char *dst)
{
	char tmp[4096 + 8], buf[65536];
	FILE *in = fopen(src, "re"), *out;
	size_t n;
	int r = 0;

	if (!in)
		return -errno;
	snprintf(tmp, sizeof(tmp), "%s.tmp", dst);
	out = fopen(tmp, "we");
	if (!out) {
		r = -errno;
		fclose(in);
		return r;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n) {
			r = -errno;
			break;
		}
	fclose(in);
	if (fclose(out) && !r)
		r = -errno;
	if (!r && rename(tmp, dst))
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

static int lava_job(void *cfg)
{
	const struct job_cfg *c = cfg;
	const char *kurl = c->kernel_url, *rurl = c->ramdisk_url, *surl = c->scratch_url,
		   *dtype = c->device_type, *boot = c->boot_method, *device = c->device,
		   *name = c->job_name, *out = c->output,
		   *suite = c->suite ? c->suite : KG_DEFAULT_SUITE;
	char kbuf[4500], rbuf[4500], outdir[4096], sname[256], jname[512];
	struct kg_ctx *x = calloc(1, sizeof(*x));
	int timeout = (int)c->timeout, reps = (int)c->repetitions, r = 0;
	FILE *f;

	if (!x) {
		fprintf(stderr, "fsbench lava job: %s\n", strerror(ENOMEM));
		return FSB_EXIT_FAIL;
	}
	x->a.spec[0] = c->kernel;
	x->a.modules[0] = c->modules;
	if (!x->a.spec[0] && (!kurl || !rurl)) {
		fprintf(stderr,
			"fsbench lava job: give --kernel K (to build the initramfs) or both "
			"--kernel-url and --ramdisk-url\n");
		free(x);
		return FSB_EXIT_USAGE;
	}
	if (strcmp(dtype, "qemu") && !device) {
		fprintf(stderr,
			"fsbench lava job: --device-type %s: give --device, the board's "
			"scratch disk (its contents are destroyed)\n",
			dtype);
		free(x);
		return FSB_EXIT_USAGE;
	}
	if (!device)
		device = "/dev/vda";
	snprintf(outdir, sizeof(outdir), "%s", out ? out : "fsbench-lava.yaml");
	*(strrchr(outdir, '/') ? strrchr(outdir, '/') : outdir) = 0;
	if (!outdir[0])
		snprintf(outdir, sizeof(outdir), ".");
	if (x->a.spec[0]) {
		char ipath[4400], kpath[4400], abs[4096];

		x->a.suite = suite;
		x->a.repetitions = reps;
		x->a.workdir = outdir;
		x->lava = true;
		kg_vm_defaults(&x->a.vm);
		if ((r = kg_prepare(x, 1, "lava job")))
			goto done;
		if (!realpath(outdir, abs)) {
			fprintf(stderr, "fsbench lava job: %s: %s\n", outdir, strerror(errno));
			r = FSB_EXIT_FAIL;
			goto done;
		}
		snprintf(ipath, sizeof(ipath), "%s/fsbench-initramfs-%s.cpio", abs,
			 x->k[0].release);
		snprintf(kpath, sizeof(kpath), "%s/vmlinuz-%s", abs, x->k[0].release);
		if ((r = copy_file(x->initramfs[0], ipath)) ||
		    (r = copy_file(x->k[0].image, kpath))) {
			fprintf(stderr,
				"fsbench lava job: copying the kernel and initramfs into %s: %s\n",
				abs, strerror(-r));
			r = FSB_EXIT_FAIL;
			goto done;
		}
		if (!kurl) {
			snprintf(kbuf, sizeof(kbuf), "file://%s", kpath);
			kurl = kbuf;
		}
		if (!rurl) {
			snprintf(rbuf, sizeof(rbuf), "file://%s", ipath);
			rurl = rbuf;
		}
	} else if (reps) {
		fprintf(stderr,
			"fsbench lava job: --repetitions needs --kernel (it is built into the initramfs)\n");
		r = FSB_EXIT_USAGE;
		goto done;
	}
	snprintf(sname, sizeof(sname), "%s%s",
		 strrchr(suite, '/') ? strrchr(suite, '/') + 1 : suite,
		 strstr(suite, ".json") ? "" : ".json");
	snprintf(jname, sizeof(jname), "fsbench %.*s %s", (int)(strlen(sname) - 5), sname,
		 x->k[0].release[0] ? x->k[0].release : "");
	f = out ? fopen(out, "we") : stdout;
	if (!f) {
		fprintf(stderr, "fsbench lava job: %s: %s\n", out, strerror(errno));
		r = FSB_EXIT_FAIL;
		goto done;
	}
	fprintf(f,
		"# fsbench lava job: the suite in the fsbench initramfs, one test case per metric\n");
	fprintf(f, "device_type: ");
	yq(f, dtype);
	fprintf(f, "\njob_name: ");
	yq(f, name ? name : jname);
	fprintf(f,
		"\npriority: medium\nvisibility: public\n"
		"timeouts:\n  job:\n    minutes: %d\n  action:\n    minutes: %d\n"
		"  connection:\n    minutes: 2\n",
		timeout + 10, timeout);
	bool qemu = !strcmp(dtype, "qemu");
	if (qemu)
		/*
		 * One vCPU with instruction counting and a reliable TSC: what makes timing
		 * repeatable under TCG (see README, "Gating a kernel").
		 */
		fprintf(f, "context:\n  arch: amd64\n  no_kvm: true\n  memory: 1024\n"
			   "  extra_options:\n  - -smp 1\n  - -icount shift=0,sleep=on\n");
	fprintf(f, "actions:\n- deploy:\n    timeout:\n      minutes: 10\n    to: %s\n",
		qemu ? "tmpfs" : "tftp");
	if (qemu) {
		/* fsbench.shell: the guest's init stops at a shell for LAVA's test shell */
		fprintf(f,
			"    images:\n      kernel:\n        image_arg: '-kernel {kernel} -append "
			"\"console=ttyS0,115200 rdinit=/init fsbench.shell tsc=reliable\"'\n"
			"        url: ");
		yq(f, kurl);
		fprintf(f, "\n      ramdisk:\n        image_arg: -initrd {ramdisk}\n        url: ");
		yq(f, rurl);
		if (surl) {
			fprintf(f,
				"\n      scratch:\n        image_arg: -drive "
				"format=raw,if=virtio,cache=none,aio=native,file={scratch}\n        url: ");
			yq(f, surl);
		}
		fprintf(f, "\n");
	} else {
		fprintf(f, "    kernel:\n      url: ");
		yq(f, kurl);
		fprintf(f, "\n    ramdisk:\n      url: ");
		yq(f, rurl);
		fprintf(f, "\n    os: oe\n");
	}
	fprintf(f,
		"- boot:\n    timeout:\n      minutes: 5\n    method: %s\n%s"
		"    prompts:\n    - 'fsbench-guest# '\n",
		qemu ? "qemu" : boot, qemu ? "    media: tmpfs\n" : "    commands: ramdisk\n");
	job_testdef(f, sname, device, timeout);
	if (f != stdout && fclose(f)) {
		fprintf(stderr, "fsbench lava job: writing %s: %s\n", out, strerror(errno));
		r = FSB_EXIT_FAIL;
	}
	if (!r && out)
		fprintf(stderr, "fsbench lava job: %s\n", out);
done:
	free(x);
	return r;
}

static const struct cmd_spec lava_cmds[] = {
	{ .name = "lava job",
	  .opts = job_opts,
	  .operand = job_suite,
	  .usage = job_usage,
	  .run = lava_job },
	{ .name = "lava cases",
	  .opts = cases_opts,
	  .files_offset = offsetof(struct cases_cfg, files),
	  .usage = cases_usage,
	  .run = lava_cases },
	{ .name = "lava import",
	  .opts = import_opts,
	  .files_offset = offsetof(struct import_cfg, files),
	  .usage = import_usage,
	  .run = lava_import },
};

static void lava_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench lava job [options] [SUITE]     a LAVA job for the suite\n"
		"       fsbench lava cases RESULT.json         NAME VALUE UNIT per metric and run\n"
		"       fsbench lava import -o OUT.json LAVA-RESULTS.yaml|json...\n"
		"                                              LAVA's test cases back as a result\n"
		"(fsbench lava SUBCOMMAND --help for its options)\n");
}

int cmd_lava(int argc, char **argv)
{
	union {
		struct job_cfg job;
		struct cases_cfg cases;
		struct import_cfg import;
	} cfg;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		lava_usage(stdout);
		return FSB_EXIT_OK;
	}
	for (size_t i = 0; argc >= 2 && i < sizeof(lava_cmds) / sizeof(lava_cmds[0]); i++)
		if (!strcmp(argv[1], lava_cmds[i].name + strlen("lava "))) {
			memset(&cfg, 0, sizeof(cfg));
			return cmd_args_run(&lava_cmds[i], &cfg, argc - 1, argv + 1);
		}
	if (argc >= 2)
		fprintf(stderr, "fsbench lava: '%s' is not a subcommand\n", argv[1]);
	lava_usage(stderr);
	return FSB_EXIT_USAGE;
}
