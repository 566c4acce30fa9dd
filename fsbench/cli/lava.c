/* `fsbench lava`: the suite as a LAVA job, its metrics as test cases, and LAVA's results back. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/kgate_cmd.h"
#include "fsbench/cli/commands.h"
#include "fsbench/lava/jobdef.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/runs.h"
#include "report/export.h"

struct cases_cfg {
	struct cmd_files files;
};

static const struct fsb_opt cases_opts[] = { { 0 } };

static void cases_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench lava cases RESULT.json\n\n"
		"One line per metric of each complete run: NAME VALUE UNIT, for lava-test-case,\n"
		"in the base units `fsbench export --format lava` uses (s, B, B/s, files/s, x).\n");
}

static int print_case(void *arg, const char *name, double value, const char *unit)
{
	char num[64];

	(void)arg;
	rpt_lava_number(value, num, sizeof(num));
	printf("%s %s %s\n", name, num, unit);
	return 0;
}

/* Prints one line per metric of each complete run: "NAME VALUE UNIT". */
static int lava_cases_cmd(void *cfg)
{
	const struct cases_cfg *c = cfg;
	const char *path = c->files.v[0];
	char err[1024];
	json_t *doc;
	int n;

	if (c->files.n != 1) {
		fprintf(stderr, "fsbench lava cases: one result file (see --help)\n");
		return FSB_EXIT_USAGE;
	}
	if (mdl_runs_load(path, &doc, err, sizeof(err))) {
		fprintf(stderr, "fsbench lava cases: %s\n", err);
		return FSB_EXIT_USAGE;
	}
	n = lava_cases(doc, print_case, NULL);
	json_decref(doc);
	if (n <= 0) {
		fprintf(stderr, "fsbench lava cases: %s: no complete run with a metric\n", path);
		return FSB_EXIT_FAIL;
	}
	return FSB_EXIT_OK;
}

/*
 * lava job's command line as its table fills it: the job's own fields straight into its spec
 * (@s; @s.suite is the operand), --kernel's into the request kg_prepare() takes (@a); the rest
 * in the forms they are given in, which lava_job() converts.
 */
struct job_cfg {
	struct lava_job_spec s;
	struct kg_args a; /* --kernel, --modules, --repetitions */
	char *output;
	int kernel_type; /* an index into kernel_types[] */
	int64_t timeout; /* minutes, @s.timeout_min */
};

/* LAVA's deploy types of a board's kernel; auto: by --arch for u-boot, else none said */
static const char *const kernel_types[] = { "auto", "image", "zimage", "uimage", NULL };

#define O(f) offsetof(struct job_cfg, f)
#define S(f) offsetof(struct job_cfg, s.f)
#define A(f) offsetof(struct job_cfg, a.f)
static const struct fsb_opt job_opts[] = {
	{ .name = "kernel",
	  .type = OPT_STRING,
	  .offset = A(spec[0]),
	  .file = OPT_FILE,
	  .help = "build the initramfs for kernel K (as kernel-gate takes it) and copy both "
		  "beside the job" },
	{ .name = "modules",
	  .type = OPT_STRING,
	  .offset = A(modules[0]),
	  .file = OPT_DIR,
	  .help = "K's modules: a directory holding lib/modules/RELEASE" },
	{ .name = "kernel-url",
	  .type = OPT_STRING,
	  .offset = S(kernel_url),
	  .help = "where LAVA fetches the kernel (default with --kernel: file:// of the copy)" },
	{ .name = "ramdisk-url",
	  .type = OPT_STRING,
	  .offset = S(ramdisk_url),
	  .help = "where LAVA fetches the fsbench initramfs (default with --kernel: file://)" },
	{ .name = "scratch-url",
	  .type = OPT_STRING,
	  .offset = S(scratch_url),
	  .help = "qemu: a raw disk image QEMU attaches as the scratch disk" },
	{ .name = "device-type",
	  .type = OPT_STRING,
	  .offset = S(device_type),
	  .def = "qemu",
	  .help = "qemu deploys to tmpfs and boots with QEMU (TCG, icount); any other type "
		  "deploys over tftp" },
	{ .name = "boot-method",
	  .type = OPT_STRING,
	  .offset = S(boot_method),
	  .def = "ipxe",
	  .help = "how a board boots (not qemu)" },
	{ .name = "arch",
	  .type = OPT_STRING,
	  .offset = S(arch),
	  .help = "a board's architecture as uname -m names it (default: x86_64 for qemu and "
		  "x86* types); --kernel's initramfs only for this host's, else give "
		  "--ramdisk-url" },
	{ .name = "kernel-type",
	  .type = OPT_ENUM,
	  .offset = O(kernel_type),
	  .choices = kernel_types,
	  .def = "auto",
	  .help = "a board's kernel format as LAVA deploys it (auto: image for an aarch64 "
		  "u-boot board, zimage for arm)" },
	{ .name = "device",
	  .type = OPT_STRING,
	  .offset = S(device),
	  .help = "the scratch disk in the guest, destroyed (qemu: /dev/vda; a board needs it)" },
	{ .name = "job-name",
	  .type = OPT_STRING,
	  .offset = S(job_name),
	  .help = "the job's name (default: fsbench SUITE RELEASE)" },
	{ .name = "priority",
	  .type = OPT_STRING,
	  .offset = S(priority),
	  .help = "LAVA's job priority: high, medium, low or 0..100 (default medium)" },
	{ .name = "tags",
	  .type = OPT_STRING,
	  .offset = S(tags),
	  .help = "device tags the job asks for, comma-separated (letters, digits, _.-)" },
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
	  .offset = A(repetitions),
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
#undef S
#undef A

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

	if (c->s.suite) {
		snprintf(err, errlen, "one suite only ('%s' is extra)", arg);
		return -EINVAL;
	}
	c->s.suite = arg;
	return 0;
}

/* --kernel: the kernel resolved, its initramfs built, both beside the job. 0 or the exit status. */
static int job_kernel(struct kg_ctx *x, const struct job_cfg *c, const char *outdir,
		      struct lava_job_spec *s, char *kurl, char *rurl, size_t urllen)
{
	enum kg_gate_fail fail;
	char err[4096];

	x->a = c->a;
	x->a.suite = s->suite; /* the default suite's name when none was given */
	if (lava_job_kernel(x, s->device_type, outdir, "", kurl, rurl, urllen, &fail, err,
			    sizeof(err))) {
		fprintf(stderr, "fsbench lava job: %s\n", err);
		return fail == KG_GATE_USAGE  ? FSB_EXIT_USAGE :
		       fail == KG_GATE_KERNEL ? FSB_EXIT_CANNOT_JUDGE :
						FSB_EXIT_FAIL;
	}
	kg_cli_prepared(x, 1, "lava job");
	s->kernel_url = s->kernel_url ? s->kernel_url : kurl;
	s->ramdisk_url = s->ramdisk_url ? s->ramdisk_url : rurl;
	s->release = x->k[0].release;
	return 0;
}

static int lava_job(void *cfg)
{
	const struct job_cfg *c = cfg;
	struct lava_job_spec s = c->s;
	struct kg_ctx *x = calloc(1, sizeof(*x));
	char outdir[4096], kurl[4500], rurl[4500], err[4200];
	int r = 0, e;

	s.suite = s.suite ? s.suite : KG_DEFAULT_SUITE;
	s.release = "";
	s.timeout_min = (int)c->timeout;
	s.kernel_type = c->kernel_type ? kernel_types[c->kernel_type] : NULL;
	if (!x) {
		fprintf(stderr, "fsbench lava job: %s\n", strerror(ENOMEM));
		return FSB_EXIT_FAIL;
	}
	if (lava_job_check_args(&s, c->a.spec[0], c->a.repetitions, c->output, err, sizeof(err))) {
		fprintf(stderr, "fsbench lava job: %s\n", err);
		r = FSB_EXIT_USAGE;
	}
	lava_job_outdir(c->output, outdir, sizeof(outdir));
	if (!r && c->a.spec[0])
		r = job_kernel(x, c, outdir, &s, kurl, rurl, sizeof(kurl));
	if (!r && (e = lava_job_save(&s, c->output))) {
		fprintf(stderr, "fsbench lava job: writing %s: %s\n",
			c->output ? c->output : "the job", strerror(-e));
		r = FSB_EXIT_FAIL;
	} else if (!r && c->output)
		fprintf(stderr, "fsbench lava job: %s\n", c->output);
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
	  .run = lava_cases_cmd },
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
