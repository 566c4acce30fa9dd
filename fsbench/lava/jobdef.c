/* A LAVA job for a suite (jobdef.h): its YAML, the kernel and initramfs beside it, its test cases. */
#include "fsbench/lava/jobdef.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>
#include <sys/utsname.h>

#include "base/errf.h"
#include "base/url.h"
#include "base/fileio.h"
#include "fsbench/kgate/gate_flow.h"
#include "report/export.h"
#include "report/metric.h"
#include "model/schema.h"

/*
 * A test case is "<workload>.t<threads>.<cell>.r<repetition>.<metric>": the workload and
 * threads let compare line runs up again, the cell (the suite's cell label, slugged) keeps
 * cells apart, and the metric is compare's own name ("files_per_sec", "create.p50"), from
 * report/metric.c's catalog. Each field is rpt_slug()ged with '-' (report/export.h says what
 * LAVA allows and why a slug is safe) and the fields are joined with '.'. Values are in the
 * base units `export --format lava` writes (rpt_metric_base_unit: s, B, B/s, files/s, x), so
 * a LAVA server gets one spelling per quantity. Unlike that export, which writes one mean
 * per sample, every run is its own case: compare needs the runs to judge a change.
 */

/*
 * lava-server keeps a test case name to RPT_LAVA_NAME_MAX characters. The metric part is at most
 * LAVA_SUFFIX_MAX (".sync_file_range.p99.9", the longest, is 22): a longer cell is
 * cut, and a hash of the whole cell added, so that two cells still differ.
 */
#define LAVA_SUFFIX_MAX 24

void lava_case_prefix(const char *workload, long long threads, const char *cell, long long rep,
		      char *out, size_t len)
{
	char cs[160], wl[64];

	/* names come from the result file: only what lava-test-case and a shell take */
	rpt_slug(workload, '-', wl, sizeof(wl));
	rpt_slug(cell ? cell : wl, '-', cs, sizeof(cs));
	snprintf(out, len, "%s.t%lld.%s.r%lld", wl, threads, cs, rep);
	if (strlen(out) + LAVA_SUFFIX_MAX > RPT_LAVA_NAME_MAX) {
		rpt_slug_shorten(
			cs, strlen(cs) - (strlen(out) + LAVA_SUFFIX_MAX - RPT_LAVA_NAME_MAX), '-');
		snprintf(out, len, "%s.t%lld.%s.r%lld", wl, threads, cs, rep);
	}
}

int lava_cases(const json_t *doc,
	       int (*emit)(void *arg, const char *name, double value, const char *unit), void *arg)
{
	json_t *run;
	size_t i;
	int n = 0, r;

	json_array_foreach(json_object_get(doc, MDL_KEY_RUNS), i, run)
	{
		const json_t *coords = json_object_get(run, "coords"), *ops;
		json_t *op;
		const char *cell = json_string_value(json_object_get(coords, "cell")), *opname;
		char prefix[256], name[400], full[700];
		/* suite repetitions count from 0; a single run is repetition i */
		json_int_t rep = coords ?
					 json_integer_value(json_object_get(coords, "repetition")) :
					 (json_int_t)i;

		if (!mdl_run_complete(run))
			continue; /* compare leaves incomplete runs out too */
		lava_case_prefix(mdl_json_str(run, MDL_KEY_WORKLOAD, ""),
				 (long long)json_integer_value(json_object_get(run, "threads")),
				 cell, (long long)rep, prefix, sizeof(prefix));
		for (size_t m = 0; m < rpt_n_run_metrics; m++) {
			const struct rpt_metric_def *d = &rpt_run_metrics[m];
			double v;

			/* files/s for file runs, bytes/s for byte runs: what compare judges */
			if (!rpt_metric_applies(run, d, NULL) ||
			    !rpt_metric_value(run, d, NULL, &v))
				continue;
			snprintf(name, sizeof(name), "%s.%s", prefix, d->name);
			if ((r = emit(arg, name, rpt_metric_base(d, v * d->scale),
				      rpt_metric_base_unit(d))))
				return r;
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
				snprintf(full, sizeof(full), "%s.%s", prefix, name);
				if ((r = emit(arg, full, rpt_metric_base(d, v * d->scale),
					      rpt_metric_base_unit(d))))
					return r;
				n++;
			}
		}
	}
	return n;
}

/* "kgate.json" for "kgate", "configs/kgate.json" or "/x/kgate.json": what the job names. */
static void suite_file_name(const char *suite, char *out, size_t len)
{
	snprintf(out, len, "%s%s", strrchr(suite, '/') ? strrchr(suite, '/') + 1 : suite,
		 strstr(suite, ".json") ? "" : ".json");
}

/* The scratch disk in the guest: the model's null_blk under qemu unless a scratch image is given. */
static const char *lava_job_device(const struct lava_job_spec *s)
{
	return s->device					  ? s->device :
	       !strcmp(s->device_type, "qemu") && !s->scratch_url ? "/dev/nullb0" :
								    "/dev/vda";
}

int lava_job_controls_check(const char *priority, const char *tags, const char *opt_priority,
			    const char *opt_tags, char *err, size_t errlen)
{
	static const char tagchars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				       "0123456789_.-";
	int n = 0;

	if (priority && strcmp(priority, "high") && strcmp(priority, "medium") &&
	    strcmp(priority, "low") &&
	    (!priority[0] || strspn(priority, "0123456789") != strlen(priority) ||
	     strlen(priority) > 3 || atoi(priority) > 100))
		return errf(err, errlen, -EINVAL,
			    "%s '%s': high, medium, low or a whole number 0..100 (LAVA's job "
			    "priority)",
			    opt_priority, priority);
	for (const char *t = tags; t; t = strchr(t, ',') ? strchr(t, ',') + 1 : NULL) {
		size_t len = strcspn(t, ",");

		if (!len || len > LAVA_TAG_LEN_MAX || strspn(t, tagchars) < len ||
		    ++n > LAVA_TAGS_MAX)
			return errf(err, errlen, -EINVAL,
				    "%s '%s': 1 to %d comma-separated device tags, each 1 to %d "
				    "letters, digits or _.-",
				    opt_tags, tags, LAVA_TAGS_MAX, LAVA_TAG_LEN_MAX);
	}
	return 0;
}

/* Whether @type boots x86_64 code: LAVA's qemu (the job says arch amd64) and x86 types. */
static bool device_x86(const char *type)
{
	return !strcmp(type, "qemu") || !strncmp(type, "x86", 3);
}

/* A board's kernel type: given, else what u-boot boots for its architecture, else NULL. */
static const char *job_kernel_type(const struct lava_job_spec *s)
{
	const char *a = s->arch ? s->arch : "";

	if (s->kernel_type)
		return s->kernel_type;
	if (!s->boot_method || strcmp(s->boot_method, "u-boot"))
		return NULL;
	/* arm64's Image boots with booti, 32-bit arm's zImage with bootz */
	if (!strcmp(a, "aarch64") || !strcmp(a, "arm64"))
		return "image";
	if (!strncmp(a, "arm", 3))
		return "zimage";
	return NULL;
}

int lava_job_check(const struct lava_job_spec *s, char *err, size_t errlen)
{
	int e;

	if (s->kernel_type && !strcmp(s->device_type, "qemu"))
		return errf(err, errlen, -EINVAL,
			    "--kernel-type %s: for a board's job (qemu boots the kernel itself)",
			    s->kernel_type);
	if (strcmp(s->device_type, "qemu") && s->boot_method && !strcmp(s->boot_method, "u-boot") &&
	    !job_kernel_type(s))
		return errf(
			err, errlen, -EINVAL,
			"--boot-method u-boot: give --kernel-type image, zimage or uimage (what "
			"u-boot boots with booti, bootz or bootm), or the board's --arch "
			"(aarch64: image, arm*: zimage)");
	if (s->arch &&
	    (!s->arch[0] || strlen(s->arch) > 32 ||
	     strspn(s->arch, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(s->arch)))
		return errf(err, errlen, -EINVAL,
			    "--arch '%s': an architecture as uname -m names it (aarch64, armv7l, "
			    "x86_64)",
			    s->arch);

	if ((e = lava_job_controls_check(s->priority, s->tags, "--priority", "--tags", err,
					 errlen)))
		return e;
	if (strcmp(s->device_type, "qemu") && !s->device)
		return errf(err, errlen, -EINVAL,
			    "--device-type %s: give --device, the board's scratch disk (its "
			    "contents are destroyed)",
			    s->device_type);
	/* the device reaches the guest's shell in the test definition: a path, nothing more */
	if (s->device && (!s->device[0] || s->device[0] != '/' ||
			  strspn(s->device, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "0123456789/._-") != strlen(s->device)))
		return errf(err, errlen, -EINVAL,
			    "--device '%s': not a device path (/dev/NAME, of letters, digits and "
			    "/._-)",
			    s->device);
	return 0;
}

int lava_job_check_args(const struct lava_job_spec *s, const char *kernel, int64_t repetitions,
			const char *output, char *err, size_t errlen)
{
	int e;

	if (!kernel && (!s->kernel_url || !s->ramdisk_url))
		return errf(err, errlen, -EINVAL,
			    "give --kernel K (to build the initramfs) or both --kernel-url and "
			    "--ramdisk-url");
	if ((e = lava_job_check(s, err, errlen)))
		return e;
	if (output && (e = base_out_check(output)))
		return errf(err, errlen, -EINVAL, "-o %s: %s", output, strerror(-e));
	if (!kernel && repetitions)
		return errf(err, errlen, -EINVAL,
			    "--repetitions needs --kernel (it is built into the initramfs)");
	/* --kernel's initramfs holds this host's programs: a board of another kind cannot run them */
	if (kernel && !s->ramdisk_url && strcmp(s->device_type, "qemu")) {
		const char *arch = s->arch ? s->arch : device_x86(s->device_type) ? "x86_64" : NULL;
		struct utsname u;

		if (uname(&u))
			return errf(err, errlen, -errno, "uname: %s", strerror(errno));
		if (!arch || strcmp(arch, u.machine))
			return errf(err, errlen, -EINVAL,
				    "--device-type %s: the initramfs --kernel builds holds this "
				    "host's %s programs, and the device's architecture is %s: give "
				    "--ramdisk-url with an initramfs for it%s",
				    s->device_type, u.machine, arch ? arch : "not known",
				    arch ? "" : " (or --arch, if it is this host's)");
	}
	return 0;
}

void lava_job_outdir(const char *out, char *dir, size_t len)
{
	snprintf(dir, len, "%s", out ? out : "fsbench-lava.yaml");
	*(strrchr(dir, '/') ? strrchr(dir, '/') : dir) = 0;
	if (!dir[0])
		snprintf(dir, len, ".");
}

/*
 * Bytes of a copy's SHA-256 in its name, as 32 hex digits: 128 bits, so two contents of one
 * release never share a name by chance.
 */
#define LAVA_COPY_HASH_BYTES 16

/*
 * @src copied into @dir as "STEM-HASH@suffix" (its path into @ret, @len bytes), HASH its
 * content's: a job names the bytes it boots, and a second job of the same release (another
 * suite, another build) writes a file of its own instead of replacing the first one's. The
 * copy goes through base_out_open (a temporary file renamed over the name, so a file planted
 * there is never written) and is named once its bytes are hashed. 0 or -errno.
 */
static int copy_hashed(const char *src, const char *dir, const char *stem, const char *suffix,
		       char *ret, size_t len)
{
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	char *tmp = NULL, first[PATH_MAX], hex[2 * LAVA_COPY_HASH_BYTES + 1];
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	FILE *in = NULL, *out = NULL;
	unsigned int mdlen = 0;
	size_t n;
	int r = 0;

	if (!ctx)
		return -ENOMEM;
	if (base_path(first, sizeof(first), "%s/%s%s", dir, stem, suffix) ||
	    base_path(ret, len, "%s/%s-%0*d%s", dir, stem, 2 * LAVA_COPY_HASH_BYTES, 0, suffix))
		r = -ENAMETOOLONG;
	else if (!(in = fopen(src, "re")) || !(out = base_out_open(first, &tmp)))
		r = -errno;
	else if (!tmp) /* a device or FIFO where the copy is made: not a file to rename */
		r = -EEXIST;
	if (!r && !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		r = -EIO;
	while (!r && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			r = errno ? -errno : -EIO;
		else if (!EVP_DigestUpdate(ctx, buf, n))
			r = -EIO;
	if (!r && ferror(in))
		r = -EIO;
	if (!r && (!EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen < LAVA_COPY_HASH_BYTES))
		r = -EIO;
	EVP_MD_CTX_free(ctx);
	if (in)
		fclose(in);
	if (!r) {
		for (int i = 0; i < LAVA_COPY_HASH_BYTES; i++)
			snprintf(hex + 2 * i, 3, "%02x", md[i]);
		/* the same length as the zeros it replaces */
		memcpy(ret + strlen(ret) - strlen(suffix) - 2 * LAVA_COPY_HASH_BYTES, hex,
		       2 * LAVA_COPY_HASH_BYTES);
	}
	if (out)
		return base_out_commit(out, tmp, ret, r);
	return r;
}

const struct kg_prep_needs lava_prep_needs = {
	.remote = true,
};

int lava_job_kernel(struct kg_ctx *x, const char *device_type, const char *outdir, const char *tag,
		    char *kurl, char *rurl, size_t urllen, enum kg_gate_fail *ret_fail, char *err,
		    size_t errlen)
{
	enum kg_prepare_fail pf;
	int r;

	x->a.workdir = outdir;
	x->needs = lava_prep_needs;
	/*
	 * A qemu job boots what a local boot boots: the PVH vmlinux and the same initramfs (its
	 * test shell rides in the ramdisk). A board's boot loader takes the bzImage, and its
	 * initramfs has the drivers of a test shell's overlay disk.
	 */
	x->needs.keep_bzimage = x->needs.shell_disk = strcmp(device_type, "qemu") != 0;
	x->needs.plain_outdir = true; /* -o's directory: the job's files, written by rename */
	kg_vm_defaults(&x->a.vm);
	*ret_fail = KG_GATE_SYSTEM;
	/* a .deb's extraction directory is journalled, as kernel-run's: restore removes it after a kill -9 */
	if ((r = kg_journal_open(x, err, errlen)))
		return r;
	r = kg_prepare(x, 1, &pf, err, errlen);
	kg_journal_close(x);
	if (r) {
		*ret_fail = pf == KG_PREPARE_USAGE ? KG_GATE_USAGE : KG_GATE_KERNEL;
		return r;
	}
	/* the images copied, what kg_prepare held (a fetched kernel's directory) is let go */
	r = lava_job_images(x, 0, outdir, tag, NULL, kurl, rurl, urllen, err, errlen);
	kg_prepare_release(x);
	return r;
}

int lava_files_url_check(const char *url, char *err, size_t errlen)
{
	return base_url_http_check(url, "--lava-files-url", LAVA_FILES_URL_MAX, err, errlen);
}

/* Where a worker fetches @path, a file of the work directory: file://, or @files_url's. */
static int image_url(const char *files_url, const char *path, char *url, size_t len)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int n = files_url ? snprintf(url, len, "%s%s%s", files_url,
				     files_url[strlen(files_url) - 1] == '/' ? "" : "/", name) :
			    snprintf(url, len, "file://%s", path);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int lava_job_images(const struct kg_ctx *x, int i, const char *outdir, const char *tag,
		    const char *files_url, char *kurl, char *rurl, size_t urllen, char *err,
		    size_t errlen)
{
	char ipath[PATH_MAX], kpath[PATH_MAX], abs[PATH_MAX], istem[512], kstem[512];
	int r;

	if (!realpath(outdir, abs))
		return errf(err, errlen, -errno, "%s: %s", outdir, strerror(errno));
	snprintf(istem, sizeof(istem), "fsbench-initramfs-%s%s", tag, x->k[i].release);
	const struct kg_kernel *k = &x->k[i];
	/* what a local boot boots: the PVH vmlinux where the kernel has that entry */
	bool pvh = !strcmp(k->entry, "pvh") && k->boot_image[0];
	const char *image = pvh ? k->boot_image : k->image_at[0] ? k->image_at : k->image;

	snprintf(kstem, sizeof(kstem), "%s-%s%s", pvh ? "vmlinux" : "vmlinuz", tag, k->release);

	if ((r = copy_hashed(x->initramfs_at[i], abs, istem, ".cpio", ipath, sizeof(ipath))))
		return errf(err, errlen, r, "copying the initramfs %s into %s: %s",
			    x->initramfs_at[i], abs, strerror(-r));
	if ((r = copy_hashed(image, abs, kstem, "", kpath, sizeof(kpath))))
		return errf(err, errlen, r, "copying the kernel %s into %s: %s", image, abs,
			    strerror(-r));
	if ((r = image_url(files_url, kpath, kurl, urllen)) ||
	    (r = image_url(files_url, ipath, rurl, urllen)))
		return errf(err, errlen, r, "the URL of %s: longer than %zu bytes", kpath,
			    urllen - 1);
	return 0;
}

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

/* A test action's head, an inline definition @name of @timeout_min, up to its steps. */
static void test_head(FILE *f, int timeout_min, const char *name, const char *description)
{
	fprintf(f,
		"- test:\n"
		"    timeout:\n"
		"      minutes: %d\n"
		"    definitions:\n"
		"    - from: inline\n"
		"      name: %s\n"
		"      path: inline/%s.yaml\n"
		"      repository:\n"
		"        metadata:\n"
		"          format: Lava-Test Test Definition 1.0\n"
		"          name: %s\n"
		"          description: %s\n"
		"        run:\n"
		"          steps:\n",
		timeout_min, name, name, name, description);
}

/*
 * The test definition both device kinds share: the guest's init found the modules and
 * stopped at a shell (fsbench.shell on the command line), after running the suite when
 * @init_ran; this reports the suite (or runs it), each metric as a test case, and keeps the
 * result JSON in the log between two marker lines.
 */
static int job_testdef(FILE *f, const char *suite, const char *device, bool init_ran,
		       int timeout_min, const char *token)
{
	char what[320];

	snprintf(what, sizeof(what), "fsbench suite %s; one test case per metric and run", suite);
	test_head(f, timeout_min, "fsbench", what);
	fprintf(f, "          - ");
	char *step = NULL;
	/*
	 * On the model disk the guest's /init ran the suite before the shell, as a local boot's
	 * (kgate/initramfs.c): what it left in /out is reported. Else the suite runs here, with
	 * the arguments the initramfs was built with and the command /init gives it.
	 */
	if (init_ran)
		step = strdup(
			"rc=$(cat /out/status 2>/dev/null || echo 125); "
			"cat /out/stdout /out/stderr 2>/dev/null; "
			"if [ \"$rc\" = 0 ]; then lava-test-case fsbench-suite --result pass; "
			"else lava-test-case fsbench-suite --result fail; fi");
	else if (asprintf(&step,
			  "set -- $(cat /etc/fsbench/args); mkdir -p /out; fsbench suite \"$@\" "
			  "--device %s --force --no-canary --json /out/result.json >/out/stdout "
			  "2>/out/stderr; rc=$?; cat /out/stdout /out/stderr; "
			  "if [ $rc = 0 ]; then lava-test-case fsbench-suite --result pass; "
			  "else lava-test-case fsbench-suite --result fail; fi",
			  device) < 0)
		step = NULL;
	if (!step)
		return -ENOMEM;
	yq(f, step);
	free(step);
	fprintf(f, "\n          - ");
	yq(f, "fsbench lava cases /out/result.json | while read -r name value unit; do "
	      "lava-test-case \"$name\" --result pass --measurement \"$value\" --units \"$unit\"; "
	      "done");
	fprintf(f, "\n          - ");
	/* the whole document, base64 (no quote or backslash for the log to escape): a gate
	 * takes it from the job's log, as a local boot's from its results disk */
	yq(f, "echo FSBENCH-RESULT-BEGIN; base64 /out/result.json; echo FSBENCH-RESULT-END");
	fprintf(f, "\n");
	if (token) {
		/* what binds the results to this job: its token and the kernel the guest booted */
		step = NULL;
		if (asprintf(&step,
			     "lava-test-case fsbench-token-%s --result pass; "
			     "lava-test-case \"fsbench-release-$(uname -r | tr -c 'A-Za-z0-9._\\n-' _)\" "
			     "--result pass",
			     token) < 0)
			return -ENOMEM;
		fprintf(f, "          - ");
		yq(f, step);
		free(step);
		fprintf(f, "\n");
	}
	return 0;
}

/*
 * The model disk a qemu job's guest runs its suite on: kernel-gate's defaults (docs/
 * kernel-gate.md, "The model disk"); with a scratch image the suite's disk is that image,
 * host-timed (virtio).
 */
static void job_model(const struct lava_job_spec *s, struct kg_disk *d)
{
	/* a verdict job (@s->steps) runs no suite: without the model, /init runs none either */
	*d = (struct kg_disk){ .kind = !strcmp(s->device_type, "qemu") && !s->scratch_url &&
						       !s->steps ?
					       KG_DISK_MODEL :
					       KG_DISK_VIRTIO,
			       .bytes = INT64_C(2) << 30,
			       .latency_ns = KG_DISK_LATENCY_NS,
			       .queue_depth = KG_DISK_QUEUE_DEPTH };
}

int lava_job_cmdline(const struct lava_job_spec *s, char *out, size_t len)
{
	struct kg_disk model;
	char words[512];
	int n;

	job_model(s, &model);
	kg_disk_cmdline(&model, words, sizeof(words));
	/* fsbench.shell: the guest's init stops at a shell for LAVA's test shell */
	n = snprintf(out, len, KG_CMDLINE_BASE " fsbench.shell%s%s", words[0] ? " " : "", words);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The next word of @p (a "..." one without its quotes, as a shell reads it), or NULL. */
static const char *next_word(const char **p, char *w, size_t len)
{
	size_t n = 0;

	while (**p == ' ')
		(*p)++;
	if (!**p)
		return NULL;
	for (bool q = false; **p && (q || **p != ' '); (*p)++)
		if (**p == '"')
			q = !q;
		else if (n + 1 < len)
			w[n++] = **p;
	w[n] = 0;
	return w;
}

json_t *lava_boot_command_diff(const struct lava_job_spec *s, const char *cmd, char *cmdline,
			       size_t len)
{
	/* a local boot's options (kgate/boot.c) and whether each takes a value */
	static const char *const local[][2] = {
		{ "-nodefaults", "" }, { "-no-reboot", "" }, { "-no-user-config", "" },
		{ "-display", "v" },   { "-sandbox", "v" },  { "-accel", "v" },
		{ "-icount", "v" },    { "-cpu", "v" },	     { "-smp", "v" },
		{ "-m", "v" },	       { "-kernel", "v" },   { "-initrd", "v" },
		{ "-append", "v" },    { "-serial", "v" },   { "-drive", "v" },
	};
	struct kg_disk model;
	struct kg_vm vm;
	char w[KG_CMDLINE_MAX + 64], v[KG_CMDLINE_MAX + 64], mem[16];
	json_t *diff = json_array();
	const char *p = cmd;

	job_model(s, &model);
	kg_vm_defaults(&vm);
	snprintf(mem, sizeof(mem), "%d", kg_disk_memory_mib(&model, vm.memory_mib));
	const char *const want[][2] = { { "-smp", "1" },
					{ "-cpu", vm.cpu },
					{ "-m", mem },
					{ "-icount", model.kind == KG_DISK_MODEL ?
							     "shift=0,sleep=off" :
							     "shift=0,sleep=on" } };
	cmdline[0] = 0;
	if (!diff || !next_word(&p, w, sizeof(w))) /* the program */
		return diff;
	while (next_word(&p, w, sizeof(w))) {
		size_t i = 0, n = sizeof(local) / sizeof(local[0]);
		const char *q = p;
		bool arg;

		while (i < n && strcmp(local[i][0], w))
			i++;
		/* an option's value: the next word, unless that is an option itself */
		arg = i < n ? local[i][1][0] != 0 : next_word(&q, v, sizeof(v)) && v[0] != '-';
		if (!arg || !next_word(&p, v, sizeof(v)))
			v[0] = 0;
		if (!strcmp(w, "-append"))
			snprintf(cmdline, len, "%s", v);
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
			if (!strcmp(want[k][0], w) && strcmp(want[k][1], v))
				i = n; /* a local option with another value: named too */
		if (i == n &&
		    json_array_append_new(diff, json_sprintf("%s%s%s", w, v[0] ? " " : "", v))) {
			json_decref(diff);
			return NULL;
		}
	}
	return diff;
}

/* @in (NULL: none) as a LAVA test case name's part: [A-Za-z0-9._-], anything else '_'. */
static void case_part(char *out, size_t len, const char *in)
{
	size_t o = 0;

	in = in ? in : "";
	for (; *in && o + 1 < len; in++)
		out[o++] = isalnum((unsigned char)*in) || strchr("._-", *in) ? *in : '_';
	out[o] = 0;
}

/* Appends a step to the NULL-ended @v of @n (room for one more and the NULL); -ENOMEM. */
static int steps_add(char ***v, size_t *n, char *step)
{
	char **nv = step ? realloc(*v, (*n + 2) * sizeof(**v)) : NULL;

	if (!nv) {
		free(step);
		return -ENOMEM;
	}
	nv[(*n)++] = step;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}

#define VERDICT_CASE_HEAD "fsbench-gate-"

/*
 * The step of gated comparison @c of metric @name in @cell: malloc'ed, NULL for none or
 * ENOMEM. The case is VERDICT_CASE_HEAD CELL-METRIC, kept to RPT_LAVA_NAME_MAX as `lava
 * cases` keeps its own: a long metric is cut to VERDICT_METRIC_MAX, then the cell to what
 * is left, each with a hash of the whole (rpt_slug_shorten), so that two still differ.
 */
#define VERDICT_METRIC_MAX 40
static char *verdict_case(const char *cell_in, const char *name_in, const json_t *c)
{
	const char *vd = json_string_value(json_object_get(c, "verdict"));
	const json_t *ch = json_object_get(c, "change_pct");
	const char *res;
	char *step = NULL, m[64] = "", cell[128], name[128];

	if (!vd)
		return NULL;
	snprintf(name, sizeof(name), "%s", name_in);
	rpt_slug_shorten(name, VERDICT_METRIC_MAX, '_');
	snprintf(cell, sizeof(cell), "%s", cell_in);
	rpt_slug_shorten(cell, RPT_LAVA_NAME_MAX - strlen(VERDICT_CASE_HEAD) - 1 - strlen(name),
			 '_');
	res = !strcmp(vd, "regression")				     ? "fail" :
	      !strcmp(vd, "unchanged") || !strcmp(vd, "improvement") ? "pass" :
								       "skip";
	if (json_is_number(ch))
		snprintf(m, sizeof(m), " --measurement %.4f --units %%", json_number_value(ch));
	return asprintf(&step, "lava-test-case " VERDICT_CASE_HEAD "%s-%s --result %s%s", cell,
			name, res, m) < 0 ?
		       NULL :
		       step;
}

char **lava_verdict_steps(const json_t *doc, size_t *ret_n)
{
	const char *verdict = json_string_value(json_object_get(doc, "verdict"));
	const json_t *sample, *metric, *c;
	char **v = calloc(1, sizeof(*v)), cell[128], name[128], *step = NULL;
	size_t i, k, l, n = 0;

	*ret_n = 0;
	json_array_foreach(json_object_get(json_object_get(doc, "compare"), "samples"), i, sample)
	{
		case_part(cell, sizeof(cell), json_string_value(json_object_get(sample, "label")));
		json_array_foreach(json_object_get(sample, "metrics"), k, metric)
		{
			case_part(name, sizeof(name),
				  json_string_value(json_object_get(metric, "name")));
			json_array_foreach(json_object_get(metric, "comparisons"), l, c)
			{
				/* the gated ones: what the gate's verdict rests on */
				if (!json_is_true(json_object_get(c, "gate")) ||
				    json_object_get(c, "not_gated") ||
				    !json_object_get(c, "verdict"))
					continue;
				if (!v || steps_add(&v, &n, verdict_case(cell, name, c)))
					goto nomem;
			}
		}
	}
	*ret_n = n + 1;
	if (asprintf(&step, "lava-test-case fsbench-gate-verdict --result %s",
		     verdict && !strcmp(verdict, "good")      ? "pass" :
		     verdict && !strcmp(verdict, "regressed") ? "fail" :
								"skip") < 0)
		step = NULL;
	if (!v)
		free(step);
	else if (!steps_add(&v, &n, step)) /* it frees @step when it fails */
		return v;
nomem:
	lava_steps_free(v);
	return NULL;
}

void lava_steps_free(char **steps)
{
	for (char **p = steps; p && *p; p++)
		free(*p);
	free(steps);
}

/* The test action of a verdict job: @steps, and no suite. */
static int job_steps(FILE *f, char *const *steps, int timeout_min)
{
	test_head(f, timeout_min, "fsbench-verdict",
		  "an fsbench kernel gate's verdict; a test case per gated metric");
	for (char *const *p = steps; *p; p++) {
		fprintf(f, "          - ");
		yq(f, *p);
		fprintf(f, "\n");
	}
	return 0;
}

int lava_job_write(const struct lava_job_spec *s, FILE *f)
{
	const char *dtype = s->device_type;
	char sname[256], jname[512];
	int timeout = s->timeout_min;
	bool qemu = !strcmp(dtype, "qemu");

	fprintf(f,
		"# fsbench lava job: the suite in the fsbench initramfs, one test case per metric\n");
	fprintf(f, "device_type: ");
	yq(f, dtype);
	fprintf(f, "\njob_name: ");
	suite_file_name(s->suite, sname, sizeof(sname));
	snprintf(jname, sizeof(jname), "fsbench %.*s%s%s", (int)(strlen(sname) - 5), sname,
		 s->release && s->release[0] ? " " : "", s->release ? s->release : "");
	yq(f, s->job_name ? s->job_name : jname);
	/* whose job this is, for the lab: LAVA shows and searches a job's metadata */
	fprintf(f, "\nmetadata:\n  fsbench.version: ");
	yq(f, FSB_VERSION);
	fprintf(f, "\n  fsbench.suite: ");
	snprintf(jname, sizeof(jname), "%.*s", (int)(strlen(sname) - 5), sname);
	yq(f, jname);
	if (s->release && s->release[0]) {
		fprintf(f, "\n  fsbench.kernel: ");
		yq(f, s->release);
	}
	const char *const meta[][2] = { { "fsbench.gate", s->gate },
					{ "fsbench.side", s->side },
					{ "fsbench.boot", s->boot },
					{ "fsbench.verdict", s->verdict } };
	for (size_t i = 0; i < sizeof(meta) / sizeof(meta[0]); i++)
		if (meta[i][1]) {
			fprintf(f, "\n  %s: ", meta[i][0]);
			yq(f, meta[i][1]);
		}
	/* checked (lava_job_controls_check): a word or a number, as the schema takes it */
	fprintf(f, "\npriority: %s", s->priority ? s->priority : "medium");
	if (s->tags) {
		fprintf(f, "\ntags:");
		for (const char *t = s->tags; t; t = strchr(t, ',') ? strchr(t, ',') + 1 : NULL) {
			char tag[LAVA_TAG_LEN_MAX + 1];

			/* quoted: "1" or "-" unquoted would be a number or a sequence */
			snprintf(tag, sizeof(tag), "%.*s", (int)strcspn(t, ","), t);
			fprintf(f, "\n- ");
			yq(f, tag);
		}
	}
	fprintf(f,
		"\nvisibility: public\n"
		"timeouts:\n  job:\n    minutes: %d\n  action:\n    minutes: %d\n"
		"  connection:\n    minutes: 2\n",
		timeout + 10, timeout);
	struct kg_disk model;
	char cmdline[KG_CMDLINE_MAX];

	job_model(s, &model);
	lava_job_cmdline(s, cmdline, sizeof(cmdline));
	kg_cmdline_seed(cmdline, sizeof(cmdline)); /* a job's own, as a local boot's */
	if (qemu) {
		/*
		 * What a local boot gives QEMU to shape the guest (docs/lava.md, "The same
		 * boot"): one vCPU of the same model with instruction counting, its memory, no
		 * default devices (LAVA's device adds -nographic and a NIC: the console then
		 * needs its serial port on stdio), no reboot after a panic.
		 */
		static const char *const guest_opts[] = KG_QEMU_GUEST_OPTS;
		struct kg_vm vm;

		kg_vm_defaults(&vm);
		fprintf(f,
			"context:\n  arch: amd64\n  no_kvm: true\n  memory: %d\n"
			"  extra_options:\n  - -smp 1\n  - -cpu %s\n  - -icount shift=0,sleep=%s\n",
			kg_disk_memory_mib(&model, vm.memory_mib), vm.cpu,
			model.kind == KG_DISK_MODEL ? "off" : "on");
		for (size_t i = 0; i < sizeof(guest_opts) / sizeof(guest_opts[0]); i++)
			fprintf(f, "  - %s\n", guest_opts[i]);
		fprintf(f, "  - -serial stdio\n");
	}
	fprintf(f, "actions:\n- deploy:\n    timeout:\n      minutes: 10\n    to: %s\n",
		qemu ? "tmpfs" : "tftp");
	if (qemu) {
		fprintf(f,
			"    images:\n      kernel:\n        image_arg: '-kernel {kernel} -append "
			"\"%s\"'\n        url: ",
			cmdline);
		yq(f, s->kernel_url);
		/*
		 * LAVA's test shell unpacked into the ramdisk (a cpio, uncompressed as fsbench
		 * builds it) rather than on a disk image it makes with libguestfs, which needs a
		 * kernel in the worker's /boot and took about 80 s a job.
		 */
		fprintf(f, "\n      ramdisk:\n        image_arg: -initrd {ramdisk}\n"
			   "        format: cpio.newc\n        overlays:\n          lava: true\n"
			   "        url: ");
		yq(f, s->ramdisk_url);
		if (s->scratch_url) {
			fprintf(f,
				"\n      scratch:\n        image_arg: -drive "
				"format=raw,if=virtio,cache=none,aio=native,file={scratch}\n        url: ");
			yq(f, s->scratch_url);
		}
		fprintf(f, "\n");
	} else {
		const char *ktype = job_kernel_type(s);

		fprintf(f, "    kernel:\n      url: ");
		yq(f, s->kernel_url);
		/* checked: one of the schema's words (the CLI's choices, or job_kernel_type's) */
		if (ktype)
			fprintf(f, "\n      type: %s", ktype);
		fprintf(f, "\n    ramdisk:\n      url: ");
		yq(f, s->ramdisk_url);
		fprintf(f, "\n    os: oe\n");
	}
	fprintf(f,
		"- boot:\n    timeout:\n      minutes: 5\n    method: %s\n%s"
		"    prompts:\n    - 'fsbench-guest# '\n",
		qemu ? "qemu" : s->boot_method,
		qemu ? "    media: tmpfs\n" : "    commands: ramdisk\n");
	if (s->steps)
		return job_steps(f, s->steps, timeout);
	return job_testdef(f, sname, lava_job_device(s), qemu && !s->scratch_url, timeout,
			   s->token);
}

int lava_job_save(const struct lava_job_spec *s, const char *out)
{
	char *tmp = NULL;
	FILE *f = out ? base_out_open(out, &tmp) : stdout;
	int e;

	if (!f)
		return errno ? -errno : -EIO;
	e = lava_job_write(s, f);
	if (f != stdout)
		e = base_out_commit(f, tmp, out, e ? e : ferror(f) ? -EIO : 0);
	return e;
}
