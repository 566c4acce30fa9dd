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

#include "base/fileio.h"
#include "report/compare.h"
#include "report/export.h"
#include "report/metric.h"
#include "model/result_file.h"
#include "model/runs.h"
#include "model/schema.h"

/*
 * A test case is "<workload>.t<threads>.<cell>.r<repetition>.<metric>": the workload and
 * threads let compare line runs up again, the cell (the suite's cell label, slugged) keeps
 * cells apart, and the metric is compare's own name ("files_per_sec", "create.p50"), from
 * report/metric.c's catalog. Each field is rpt_slug()ged with '-' (report/export.h says what
 * LAVA allows and why a slug is safe) and the fields are joined with '.'; metrics carry their
 * display unit, as compare shows them. Unlike `export --format lava`, which writes one mean
 * per sample, every run is its own case: compare needs the runs to judge a change.
 */

/*
 * lava-server keeps a test case name to RPT_LAVA_NAME_MAX characters. The metric part is at most
 * LAVA_SUFFIX_MAX (".sync_file_range.p99.9", the longest, is 22): a longer cell is
 * cut, and a hash of the whole cell added, so that two cells still differ.
 */
#define LAVA_SUFFIX_MAX 24

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
	if (mdl_runs_load(path, &doc, err, sizeof(err))) {
		fprintf(stderr, "fsbench lava cases: %s\n", err);
		return FSB_EXIT_USAGE;
	}
	json_array_foreach(json_object_get(doc, MDL_KEY_RUNS), i, run)
	{
		const json_t *coords = json_object_get(run, "coords"), *ops;
		json_t *op;
		const char *cell = json_string_value(json_object_get(coords, "cell")), *opname;
		char prefix[256], cs[160], name[400], wl[64];
		/* suite repetitions count from 0; a single run is repetition i */
		json_int_t rep = coords ?
					 json_integer_value(json_object_get(coords, "repetition")) :
					 (json_int_t)i;

		if (!mdl_run_complete(run))
			continue; /* compare leaves incomplete runs out too */
		/* names come from the result file: only what lava-test-case and a shell take */
		rpt_slug(mdl_json_str(run, MDL_KEY_WORKLOAD, ""), '-', wl, sizeof(wl));
		rpt_slug(cell ? cell : wl, '-', cs, sizeof(cs));
		snprintf(prefix, sizeof(prefix), "%s.t%lld.%s.r%lld", wl,
			 (long long)json_integer_value(json_object_get(run, "threads")), cs,
			 (long long)rep);
		if (strlen(prefix) + LAVA_SUFFIX_MAX > RPT_LAVA_NAME_MAX) {
			rpt_slug_shorten(
				cs,
				strlen(cs) - (strlen(prefix) + LAVA_SUFFIX_MAX - RPT_LAVA_NAME_MAX),
				'-');
			snprintf(prefix, sizeof(prefix), "%s.t%lld.%s.r%lld", wl,
				 (long long)json_integer_value(json_object_get(run, "threads")), cs,
				 (long long)rep);
		}
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
		ops = mdl_run_ops(run);
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
				if (strspn(opname, "abcdefghijklmnopqrstuvwxyz_") !=
					    strlen(opname) ||
				    strlen(prefix) + 1 + strlen(name) > RPT_LAVA_NAME_MAX)
					continue; /* not an operation fsbench names */
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

/* ---- the job ---- */

/* A YAML double-quoted scalar. */
static void yq(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f) /* a raw control character is not valid YAML */
			fprintf(f, "\\x%02x", c);
		else {
			if (c == '"' || c == '\\')
				fputc('\\', f);
			fputc(c, f);
		}
	}
	fputc('"', f);
}

/*
 * The test definition both device kinds share: the guest's init found the modules and
 * stopped at a shell (fsbench.shell on the command line); this runs the suite, reports each
 * metric as a test case and keeps the result JSON in the log between two marker lines.
 */
static int job_testdef(FILE *f, const char *suite, const char *device, int timeout_min)
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
	char *step = NULL;
	/* the suite and its arguments the initramfs was built with, as kernel-gate's guest */
	if (asprintf(&step,
		     "set -- $(cat /etc/fsbench/args); fsbench suite \"$@\" --device %s --force "
		     "--json /tmp/fsbench-result.json >/tmp/fsbench-suite.log 2>&1; rc=$?; "
		     "cat /tmp/fsbench-suite.log; "
		     "if [ $rc = 0 ]; then lava-test-case fsbench-suite --result pass; "
		     "else lava-test-case fsbench-suite --result fail; fi",
		     device) < 0)
		return -ENOMEM;
	yq(f, step);
	free(step);
	fprintf(f, "\n          - ");
	yq(f, "fsbench lava cases /tmp/fsbench-result.json | while read -r name value unit; do "
	      "lava-test-case \"$name\" --result pass --measurement \"$value\" --units \"$unit\"; "
	      "done");
	fprintf(f, "\n          - ");
	yq(f, "echo FSBENCH-RESULT-BEGIN; cat /tmp/fsbench-result.json; echo; echo "
	      "FSBENCH-RESULT-END");
	fprintf(f, "\n");
	return 0;
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
	  .file = OPT_FILE,
	  .help = "build the initramfs for kernel K (as kernel-gate takes it) and copy both "
		  "beside the job" },
	{ .name = "modules",
	  .type = OPT_STRING,
	  .offset = O(modules),
	  .file = OPT_DIR,
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
	  .file = OPT_FILE,
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

/* @src copied to @dst through base_out_open: a file planted at @dst or beside it is never written. */
static int copy_file(const char *src, const char *dst)
{
	char buf[65536], *tmp;
	FILE *in = fopen(src, "re"), *out;
	size_t n;
	int r = 0;

	if (!in)
		return -errno;
	out = base_out_open(dst, &tmp);
	if (!out) {
		r = -errno;
		fclose(in);
		return r;
	}
	while (!r && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			r = errno ? -errno : -EIO;
	if (!r && ferror(in))
		r = -EIO;
	fclose(in);
	return base_out_commit(out, tmp, dst, r);
}

/* Where LAVA fetches the kernel and the initramfs, and what the job says. */
struct job {
	const struct job_cfg *c;
	const char *kurl, *rurl, *device, *suite;
	char kbuf[4500], rbuf[4500], outdir[4096], sname[256], jname[512];
	struct kg_ctx x;
};

/* --kernel: its initramfs built, both copied beside the job, file:// URLs unless given. */
static int job_kernel(struct job *j)
{
	char ipath[4400], kpath[4400], abs[4096];
	struct kg_ctx *x = &j->x;
	int r;

	x->a.suite = j->suite;
	x->a.repetitions = (int)j->c->repetitions;
	x->a.workdir = j->outdir;
	x->lava = true;
	kg_vm_defaults(&x->a.vm);
	/* a .deb's extraction directory is journalled, as kernel-run's: restore removes it after a kill -9 */
	if ((r = kg_cli_journal_open(x, "lava job")))
		return r;
	r = kg_cli_prepare(x, 1, "lava job");
	kg_cli_journal_close(x);
	if (r)
		return r;
	if (!realpath(j->outdir, abs)) {
		fprintf(stderr, "fsbench lava job: %s: %s\n", j->outdir, strerror(errno));
		return FSB_EXIT_FAIL;
	}
	snprintf(ipath, sizeof(ipath), "%s/fsbench-initramfs-%s.cpio", abs, x->k[0].release);
	snprintf(kpath, sizeof(kpath), "%s/vmlinuz-%s", abs, x->k[0].release);
	if ((r = copy_file(x->initramfs[0], ipath)) || (r = copy_file(x->k[0].image, kpath))) {
		fprintf(stderr, "fsbench lava job: copying the kernel and initramfs into %s: %s\n",
			abs, strerror(-r));
		return FSB_EXIT_FAIL;
	}
	if (!j->kurl) {
		snprintf(j->kbuf, sizeof(j->kbuf), "file://%s", kpath);
		j->kurl = j->kbuf;
	}
	if (!j->rurl) {
		snprintf(j->rbuf, sizeof(j->rbuf), "file://%s", ipath);
		j->rurl = j->rbuf;
	}
	return 0;
}

/* The job's YAML: device, timeouts, deploy, boot and the test definition. */
static int job_write(const struct job *j, FILE *f)
{
	const char *dtype = j->c->device_type, *name = j->c->job_name;
	int timeout = (int)j->c->timeout;
	bool qemu = !strcmp(dtype, "qemu");

	fprintf(f,
		"# fsbench lava job: the suite in the fsbench initramfs, one test case per metric\n");
	fprintf(f, "device_type: ");
	yq(f, dtype);
	fprintf(f, "\njob_name: ");
	yq(f, name ? name : j->jname);
	fprintf(f,
		"\npriority: medium\nvisibility: public\n"
		"timeouts:\n  job:\n    minutes: %d\n  action:\n    minutes: %d\n"
		"  connection:\n    minutes: 2\n",
		timeout + 10, timeout);
	/*
	 * One vCPU with instruction counting and a reliable TSC: what makes timing repeatable
	 * under TCG. Without a scratch image the suite runs on kernel-gate's model disk with
	 * its defaults and sleep=off (docs/kernel-gate.md, "The model disk"), so a qemu
	 * worker's numbers are a local gate's; a scratch image is host-timed: sleep=on.
	 */
	struct kg_disk model = { .kind = qemu && !j->c->scratch_url ? KG_DISK_MODEL :
								      KG_DISK_VIRTIO,
				 .bytes = INT64_C(2) << 30,
				 .latency_ns = KG_DISK_LATENCY_NS,
				 .queue_depth = KG_DISK_QUEUE_DEPTH };
	char words[512];

	kg_disk_cmdline(&model, words, sizeof(words));
	if (qemu)
		fprintf(f,
			"context:\n  arch: amd64\n  no_kvm: true\n  memory: %d\n"
			"  extra_options:\n  - -smp 1\n  - -icount shift=0,sleep=%s\n",
			kg_disk_memory_mib(&model, 1024), words[0] ? "off" : "on");
	fprintf(f, "actions:\n- deploy:\n    timeout:\n      minutes: 10\n    to: %s\n",
		qemu ? "tmpfs" : "tftp");
	if (qemu) {
		/* fsbench.shell: the guest's init stops at a shell for LAVA's test shell */
		fprintf(f,
			"    images:\n      kernel:\n        image_arg: '-kernel {kernel} -append "
			"\"console=ttyS0,115200 rdinit=/init fsbench.shell tsc=reliable%s%s\"'\n"
			"        url: ",
			words[0] ? " " : "", words);
		yq(f, j->kurl);
		fprintf(f, "\n      ramdisk:\n        image_arg: -initrd {ramdisk}\n        url: ");
		yq(f, j->rurl);
		if (j->c->scratch_url) {
			fprintf(f,
				"\n      scratch:\n        image_arg: -drive "
				"format=raw,if=virtio,cache=none,aio=native,file={scratch}\n        url: ");
			yq(f, j->c->scratch_url);
		}
		fprintf(f, "\n");
	} else {
		fprintf(f, "    kernel:\n      url: ");
		yq(f, j->kurl);
		fprintf(f, "\n    ramdisk:\n      url: ");
		yq(f, j->rurl);
		fprintf(f, "\n    os: oe\n");
	}
	fprintf(f,
		"- boot:\n    timeout:\n      minutes: 5\n    method: %s\n%s"
		"    prompts:\n    - 'fsbench-guest# '\n",
		qemu ? "qemu" : j->c->boot_method,
		qemu ? "    media: tmpfs\n" : "    commands: ramdisk\n");
	return job_testdef(f, j->sname, j->device, timeout);
}

static int lava_job(void *cfg)
{
	const struct job_cfg *c = cfg;
	struct job *j = calloc(1, sizeof(*j));
	const char *out = c->output;
	char *tmp = NULL;
	int r = 0, e;
	FILE *f;

	if (!j) {
		fprintf(stderr, "fsbench lava job: %s\n", strerror(ENOMEM));
		return FSB_EXIT_FAIL;
	}
	j->c = c;
	j->kurl = c->kernel_url;
	j->rurl = c->ramdisk_url;
	j->suite = c->suite ? c->suite : KG_DEFAULT_SUITE;
	j->x.a.spec[0] = c->kernel;
	j->x.a.modules[0] = c->modules;
	if (!c->kernel && (!j->kurl || !j->rurl)) {
		fprintf(stderr,
			"fsbench lava job: give --kernel K (to build the initramfs) or both "
			"--kernel-url and --ramdisk-url\n");
		r = FSB_EXIT_USAGE;
		goto done;
	}
	if (strcmp(c->device_type, "qemu") && !c->device) {
		fprintf(stderr,
			"fsbench lava job: --device-type %s: give --device, the board's "
			"scratch disk (its contents are destroyed)\n",
			c->device_type);
		r = FSB_EXIT_USAGE;
		goto done;
	}
	/* the device reaches the guest's shell in the test definition: a path, nothing more */
	if (c->device && (!c->device[0] || c->device[0] != '/' ||
			  strspn(c->device, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "0123456789/._-") != strlen(c->device))) {
		fprintf(stderr,
			"fsbench lava job: --device '%s': not a device path (/dev/NAME, of letters, "
			"digits and /._-)\n",
			c->device);
		r = FSB_EXIT_USAGE;
		goto done;
	}
	if (out && (e = base_out_check(out))) {
		fprintf(stderr, "fsbench lava job: -o %s: %s\n", out, strerror(-e));
		r = FSB_EXIT_USAGE;
		goto done;
	}
	j->device = c->device					       ? c->device :
		    !strcmp(c->device_type, "qemu") && !c->scratch_url ? "/dev/nullb0" :
									 "/dev/vda";
	snprintf(j->outdir, sizeof(j->outdir), "%s", out ? out : "fsbench-lava.yaml");
	*(strrchr(j->outdir, '/') ? strrchr(j->outdir, '/') : j->outdir) = 0;
	if (!j->outdir[0])
		snprintf(j->outdir, sizeof(j->outdir), ".");
	if (c->kernel) {
		if ((r = job_kernel(j)))
			goto done;
	} else if (c->repetitions) {
		fprintf(stderr,
			"fsbench lava job: --repetitions needs --kernel (it is built into the initramfs)\n");
		r = FSB_EXIT_USAGE;
		goto done;
	}
	snprintf(j->sname, sizeof(j->sname), "%s%s",
		 strrchr(j->suite, '/') ? strrchr(j->suite, '/') + 1 : j->suite,
		 strstr(j->suite, ".json") ? "" : ".json");
	snprintf(j->jname, sizeof(j->jname), "fsbench %.*s%s%s", (int)(strlen(j->sname) - 5),
		 j->sname, j->x.k[0].release[0] ? " " : "", j->x.k[0].release);
	/* a new file renamed over -o: a full disk or a planted symlink leaves -o as it was */
	f = out ? base_out_open(out, &tmp) : stdout;
	if (!f) {
		fprintf(stderr, "fsbench lava job: writing %s: %s\n", out, strerror(errno));
		r = FSB_EXIT_FAIL;
		goto done;
	}
	e = job_write(j, f);
	if (f != stdout)
		e = base_out_commit(f, tmp, out, e ? e : ferror(f) ? -EIO : 0);
	if (e) {
		fprintf(stderr, "fsbench lava job: writing %s: %s\n", out ? out : "the job",
			strerror(-e));
		r = FSB_EXIT_FAIL;
	}
	if (!r && out)
		fprintf(stderr, "fsbench lava job: %s\n", out);
done:
	free(j);
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
	} cfg;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		lava_usage(stdout);
		return FSB_EXIT_OK;
	}
	if (argc >= 2 && !strcmp(argv[1], "import"))
		return cmd_lava_import(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "submit"))
		return cmd_lava_submit(argc - 1, argv + 1);
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
