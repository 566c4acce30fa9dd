/* The gate's boots as LAVA jobs (backend.h): jobdef.c writes each, client.c runs it, import.c reads it back. */
#include "fsbench/lava/backend.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/errf.h"
#include "base/fileio.h"
#include "fsbench/lava/client.h"
#include "fsbench/lava/import.h"
#include "fsbench/kgate/util.h"
#include "fsbench/lava/jobdef.h"
#include "fsbench/suite/suite.h"
#include "model/result_file.h"

/* Beyond the test action's own timeout: the job's queueing, deploy and boot. */
#define LAVA_JOB_MARGIN_S (15 * 60)

struct lava_be {
	char url[1024], token_file[PATH_MAX];
	const char *priority, *tags, *files_url; /* the caller's, for the backend's life */
	char kurl[2][4500], rurl[2][4500];
	struct suite suite; /* the cells the import gives their coordinates from */
	bool suite_loaded;
};

/* The kernels as a local gate prepares them, with an initramfs for LAVA, beside the boots. */
static int be_prepare(void *priv, struct kg_ctx *x, enum kg_gate_fail *ret_fail, char *err,
		      size_t errlen)
{
	struct lava_be *b = priv;
	enum kg_prepare_fail pf;
	int r, nk = kg_args_kernels(&x->a);

	*ret_fail = KG_GATE_SYSTEM;
	/* as a job's, but the boots' directories made beneath the work directory held */
	x->needs = lava_prep_needs;
	/* a .deb's extraction directory is journalled, as a local gate's */
	if ((r = kg_journal_open(x, err, errlen)))
		return r;
	r = kg_prepare(x, nk, &pf, err, errlen);
	kg_journal_close(x);
	if (r) {
		*ret_fail = pf == KG_PREPARE_USAGE ? KG_GATE_USAGE : KG_GATE_KERNEL;
		return r;
	}
	for (int i = 0; i < nk; i++)
		if ((r = lava_job_images(x, i, x->workdir, i ? "candidate-" : "baseline-",
					 b->files_url, b->kurl[i], b->rurl[i], sizeof(b->kurl[i]),
					 err, errlen)))
			return r;
	*ret_fail = KG_GATE_USAGE;
	b->suite_loaded = true; /* suite_load's suite is freed even when it fails */
	if ((r = suite_load(&b->suite, x->suite, err, errlen)))
		return r;
	if ((x->a.fs && (r = suite_select_fs(&b->suite, x->a.fs, err, errlen))) ||
	    (x->a.threads && (r = suite_set_threads(&b->suite, x->a.threads, err, errlen))))
		return r;
	return 0;
}

/* The job's YAML for boot @req, in a malloc'ed string. */
static char *job_yaml(const struct lava_be *b, const struct kg_boot_req *req, const char *token)
{
	const struct kg_ctx *x = req->x;
	const struct kg_kernel *k = &x->k[req->side];
	char name[256], boot[32], *buf = NULL;
	size_t len = 0;
	struct lava_job_spec s = { .device_type = LAVA_BACKEND_DEVICE_TYPE,
				   .job_name = name,
				   .kernel_url = b->kurl[req->side],
				   .ramdisk_url = b->rurl[req->side],
				   .suite = x->a.suite ? x->a.suite : KG_DEFAULT_SUITE,
				   .release = k->release,
				   .timeout_min = (x->a.vm.timeout_s + 59) / 60,
				   .token = token,
				   .priority = b->priority,
				   .tags = b->tags,
				   /* the work directory names the gate: no two gates share one */
				   .gate = req->gate ? x->workdir : NULL,
				   .side = k->label,
				   .boot = boot };
	FILE *f = open_memstream(&buf, &len);

	snprintf(boot, sizeof(boot), "%d/%d", req->index + 1, req->total);

	snprintf(name, sizeof(name), "fsbench %s boot %d/%d %s %s", req->gate ? "gate" : "run",
		 req->index + 1, req->total, k->label, k->release);
	if (!f)
		return NULL;
	if (lava_job_write(&s, f) || ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* The suite's own test case: pass 0, fail 1, absent -1 (the test definition never ran it). */
static int suite_status(const json_t *cases)
{
	const json_t *tc;
	size_t i;

	json_array_foreach(cases, i, tc)
	{
		const char *n = json_string_value(json_object_get(tc, "name"));
		const char *res = json_string_value(json_object_get(tc, "result"));

		if (n && !strcmp(n, "fsbench-suite"))
			return res && !strcmp(res, "pass") ? 0 : 1;
	}
	return -1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The job's results (@res, @len bytes) into the document at DIR/lava-result.json
 * (@ret->boot.result), after DIR/lava-results.yaml as LAVA gave them: the guest's own from the
 * job's log (@facts), else one imported from the test cases; DIR is @name beneath the work
 * directory's descriptor held since its check. 0 or -errno.
 */
static int import_results(struct lava_be *b, const struct kg_boot_req *req, const char *name,
			  long job, const char *token, const char *res, size_t len,
			  const struct lava_log_facts *facts, struct kg_boot_res *ret, char *err,
			  size_t errlen)
{
	struct lava_import im = { 0 };
	char ypath[PATH_MAX + 64], shown[PATH_MAX + 64], rpath[PATH_MAX + 64], rel[128];
	char *files[1] = { shown };
	json_t *cases = NULL, *doc = NULL;
	int r, n = req->index + 1;

	snprintf(shown, sizeof(shown), "%s/lava-results.yaml", ret->dir);
	snprintf(rel, sizeof(rel), "%s/lava-results.yaml", name);
	kg_fd_path(ypath, sizeof(ypath), req->x->workdir_fd, rel);
	snprintf(rel, sizeof(rel), "%s/lava-result.json", name);
	kg_fd_path(rpath, sizeof(rpath), req->x->workdir_fd, rel);
	if (base_path(ret->boot.result, sizeof(ret->boot.result), "%s/lava-result.json", ret->dir))
		return errf(err, errlen, -ENAMETOOLONG, "boot %d: %s: path too long", n, ret->dir);
	if ((r = lava_save(ypath, res, len)))
		return errf(err, errlen, r, "boot %d: writing %s: %s", n, shown, strerror(-r));
	if ((r = lava_results_load(ypath, &cases, err, errlen))) {
		kg_err_shown(err, errlen, ypath, shown);
		return r;
	}
	/* this job's results, from the kernel asked for, or nothing is judged of them */
	r = lava_cases_bound(cases, job, token, req->x->k[req->side].release,
			     ret->boot.guest_release, sizeof(ret->boot.guest_release), err, errlen);
	if (r) {
		json_decref(cases);
		return r;
	}
	ret->boot.guest_status = suite_status(cases);
	ret->booted = ret->boot.guest_status >= 0;
	/*
	 * The guest's own document from the job's log, bound to this job as its cases are
	 * (the job's id, its token, the kernel it booted), is what a local boot adopts from its
	 * results disk: every run, histogram and probe; else one made from the cases.
	 */
	if (facts->result) {
		json_decref(cases);
		if ((r = lava_save(rpath, facts->result, facts->result_len)))
			return errf(err, errlen, r, "boot %d: writing %s: %s", n, ret->boot.result,
				    strerror(-r));
		return 0;
	}
	if (!(r = lava_import_cases(&im, cases, err, errlen)) && im.used &&
	    !(r = lava_import_suite(&im, &b->suite, err, errlen))) {
		doc = lava_import_doc(&im, files, 1, NULL, NULL, NULL);
		r = doc ? mdl_json_write_atomic(doc, rpath) : -ENOMEM;
		if (r)
			errf(err, errlen, r, "boot %d: writing %s: %s", n, ret->boot.result,
			     strerror(-r));
	} else if (!r)
		r = -ENODATA;
	if (r)
		ret->boot.result[0] = 0;
	json_decref(doc);
	json_decref(cases);
	lava_import_free(&im);
	return r;
}

/* The work directory held since kg_prepare, let go once the gate's document is written. */
static void be_finish(void *priv, struct kg_ctx *x)
{
	(void)priv;
	kg_prepare_release(x);
}

static int be_run(void *priv, const struct kg_boot_req *req, struct kg_boot_res *ret, char *err,
		  size_t errlen)
{
	struct lava_be *b = priv;
	const struct kg_ctx *x = req->x;
	const struct kg_kernel *k = &x->k[req->side];
	struct lava_client *c = NULL;
	char why[8192], path[PATH_MAX + 64], job_url[1200] = "", name[32], rel[64], *yaml;
	char *res = NULL;
	double t0 = now_s();
	size_t len = 0;
	long id = 0;
	int r, n = req->index + 1;
	unsigned char tokbytes[16];
	char token[2 * sizeof(tokbytes) + 1];

	ret->boot.guest_status = -1;
	snprintf(name, sizeof(name), "boot-%02d-%s", n, k->label);
	snprintf(ret->dir, sizeof(ret->dir), "%s/%s", x->workdir, name);
	snprintf(ret->name, sizeof(ret->name), "%s", name);
	/* new, beneath the work directory held since its check: nothing earlier, nobody's link */
	if ((r = kg_dir_fresh_at(x->workdir_fd, name, ret->dir, why, sizeof(why))) < 0)
		return errf(err, errlen, r, "boot %d (%s): %s", n, k->label, why);
	close(r);
	/* a token of the job's own, in its definition only: the results must carry it back */
	if (getrandom(tokbytes, sizeof(tokbytes), 0) != (ssize_t)sizeof(tokbytes))
		return errf(err, errlen, -EIO, "boot %d (%s): a token for the job: %s", n, k->label,
			    strerror(errno));
	for (size_t i = 0; i < sizeof(tokbytes); i++)
		snprintf(token + 2 * i, 3, "%02x", tokbytes[i]);
	yaml = job_yaml(b, req, token);
	if (!yaml)
		return errf(err, errlen, -ENOMEM, "boot %d (%s): the job: %s", n, k->label,
			    strerror(ENOMEM));
	snprintf(rel, sizeof(rel), "%s/job.yaml", name);
	kg_fd_path(path, sizeof(path), x->workdir_fd, rel);
	if ((r = lava_save(path, yaml, strlen(yaml))))
		snprintf(why, sizeof(why), "writing %s/job.yaml: %s", ret->dir, strerror(-r));
	/* one client a boot: its connection is not shared between the gate's threads */
	else if (!(r = lava_client_open(b->url, b->token_file, &c, why, sizeof(why))))
		r = lava_boot(c, yaml, (unsigned)x->a.vm.timeout_s + LAVA_JOB_MARGIN_S, &id, &res,
			      &len, why, sizeof(why));
	free(yaml);
	ret->boot.seconds = now_s() - t0;
	if (id && c)
		snprintf(job_url, sizeof(job_url), "%s/scheduler/job/%ld", lava_client_url(c), id);
	/*
	 * What was booted: the job's command line, or the one the worker's log shows it gave
	 * QEMU, with what that QEMU had that a local boot's has not (the device's NIC, ...)
	 */
	struct lava_job_spec cs = { .device_type = LAVA_BACKEND_DEVICE_TYPE };
	struct lava_log_facts facts = { 0 };
	json_t *not_local = NULL;

	lava_job_cmdline(&cs, ret->boot.guest_cmdline, sizeof(ret->boot.guest_cmdline));
	if (id && c && !r && lava_job_log_facts(c, id, &facts, path, sizeof(path)))
		facts = (struct lava_log_facts){ 0 }; /* the results' import then, as before */
	if (facts.boot_command)
		not_local = lava_boot_command_diff(&cs, facts.boot_command, ret->boot.guest_cmdline,
						   sizeof(ret->boot.guest_cmdline));
	lava_client_close(c);
	if (!r)
		r = import_results(b, req, name, id, token, res, len, &facts, ret, why,
				   sizeof(why));
	free(res);
	ret->record = kg_boot_json(k, &x->a.vm, &ret->boot);
	json_object_set_new(ret->record, "index", json_integer(n));
	json_object_set_new(ret->record, "side", json_string(k->label));
	json_object_set_new(ret->record, "dir", json_string(ret->dir));
	json_object_set_new(ret->record, "backend", json_string("lava"));
	if (id)
		json_object_set_new(
			ret->record, "lava",
			json_pack("{s:I, s:s, s:s*, s:o*, s:s, s:s*}", "job", (json_int_t)id, "url",
				  job_url, "boot_command", facts.boot_command, "not_local",
				  not_local, "result_from", facts.result ? "log" : "test cases",
				  "log_result_why", facts.result_why[0] ? facts.result_why : NULL));
	else
		json_decref(not_local);
	lava_log_facts_free(&facts);
	if (req->gate && ret->booted && ret->boot.guest_status) {
		snprintf(err, errlen,
			 "boot %d (%s): LAVA job %ld (%s): the suite failed in the guest: cannot "
			 "judge; see the job's log",
			 n, k->label, id, job_url);
		return -ECANCELED;
	}
	if (r == -ENODATA) {
		snprintf(
			err, errlen,
			"boot %d (%s): LAVA job %ld (%s) reported no fsbench test case (suite %s); "
			"see the job's log",
			n, k->label, id, job_url, ret->boot.guest_status < 0 ? "never ran" : "ran");
		return r;
	}
	if (r) {
		/* the client's message names the job, its URL, its health and the log's tail */
		snprintf(err, errlen, "boot %d (%s): %s", n, k->label, why);
		/* LAVA canceling a job is a boot that failed, not the suite failing in the
		 * guest; -EINTR (a signal: the job canceled) stays what it is */
		return r == -ECANCELED || r == -ENODATA ? -EIO : r;
	}
	r = kg_boot_adopt_at(ret, x->workdir_fd, name, "lava-result.json", req->gate, err, errlen);
	return r == -EINTR || r == -ECANCELED || r == -ENODATA ? -EIO : r;
}

/*
 * The gate's verdict as a LAVA job of its own (metadata fsbench.side "verdict" and
 * fsbench.verdict), so that the lab sees in LAVA which kernel regressed and by how much: it
 * boots the baseline's kernel and initramfs, as the gate's boots did, and its test reports a
 * case per gated metric (lava_verdict_steps). Submitted, not waited for: the verdict is made.
 */
static json_t *be_publish(void *priv, const struct kg_ctx *x, const json_t *doc, char *err,
			  size_t errlen)
{
	struct lava_be *b = priv;
	const char *verdict = json_string_value(json_object_get(doc, "verdict"));
	char name[512], said[1400], url[1200], *yaml = NULL;
	struct lava_client *c = NULL;
	size_t n = 0, len = 0;
	char **steps = lava_verdict_steps(doc, &n);
	json_t *ret = NULL;
	long id = 0;
	FILE *f = steps ? open_memstream(&yaml, &len) : NULL;

	snprintf(name, sizeof(name), "fsbench gate verdict: %s, %s against %s",
		 verdict ? verdict : "none", x->k[1].release, x->k[0].release);
	struct lava_job_spec s = { .device_type = LAVA_BACKEND_DEVICE_TYPE,
				   .job_name = name,
				   .kernel_url = b->kurl[0],
				   .ramdisk_url = b->rurl[0],
				   .suite = x->a.suite ? x->a.suite : KG_DEFAULT_SUITE,
				   .release = x->k[1].release,
				   .timeout_min = LAVA_VERDICT_JOB_MIN,
				   .priority = b->priority,
				   .tags = b->tags,
				   .gate = x->workdir,
				   .side = "verdict",
				   .steps = steps,
				   .verdict = verdict };
	int r = !f ? -ENOMEM : lava_job_write(&s, f) || ferror(f) ? -EIO : 0;

	if (f)
		fclose(f);
	if (r)
		errf(err, errlen, r, "the verdict job: %s", strerror(-r));
	else if (!(r = lava_client_open(b->url, b->token_file, &c, err, errlen)) &&
		 !(r = lava_job_submit(c, yaml, &id, err, errlen))) {
		snprintf(url, sizeof(url), "%s/scheduler/job/%ld", lava_client_url(c), id);
		snprintf(said, sizeof(said),
			 "LAVA job %ld (%s): %zu test cases, one per gated metric and the verdict",
			 id, url, n);
		ret = json_pack("{s:s, s:I, s:s, s:I, s:s}", "where", "LAVA", "job", (json_int_t)id,
				"url", url, "cases", (json_int_t)n, "said", said);
	}
	lava_client_close(c);
	free(yaml);
	lava_steps_free(steps);
	return ret;
}

int lava_backend_open(const struct lava_backend_opts *o, struct kg_boot_backend *ret,
		      bool *ret_usage, char *err, size_t errlen)
{
	struct lava_be *b = calloc(1, sizeof(*b));
	struct lava_client *c = NULL;
	int r, idle = 0;

	*ret_usage = false;
	*ret = (struct kg_boot_backend){ .name = "LAVA",
					 .prepare = be_prepare,
					 .run = be_run,
					 .finish = be_finish,
					 .publish = be_publish,
					 .priv = b };
	if (!b)
		return errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
	b->priority = o->priority;
	b->tags = o->tags;
	b->files_url = o->files_url;
	if (snprintf(b->url, sizeof(b->url), "%s", o->url) >= (int)sizeof(b->url) ||
	    snprintf(b->token_file, sizeof(b->token_file), "%s", o->token_file) >=
		    (int)sizeof(b->token_file))
		return errf(err, errlen, -ENAMETOOLONG, "--lava %s: too long", o->url);
	/* the client checks the URL and the token file here, before any work */
	*ret_usage = true;
	if ((r = lava_client_open(b->url, b->token_file, &c, err, errlen)))
		return r;
	*ret_usage = false;
	r = lava_devices_idle(c, LAVA_BACKEND_DEVICE_TYPE, &idle, err, errlen);
	if (!r && idle < 1)
		r = errf(err, errlen, -ENODEV, "%s: no idle %s device (GET /api/v0.2/devices/)",
			 lava_client_url(c), LAVA_BACKEND_DEVICE_TYPE);
	lava_client_close(c);
	ret->slots = idle;
	return r;
}

void lava_backend_close(struct kg_boot_backend *be)
{
	struct lava_be *b = be->priv;

	if (b && b->suite_loaded)
		suite_free(&b->suite);
	free(b);
	be->priv = NULL;
}

const char *const lava_backend_fixed_opts[] = {
	"accel",
	"no-icount",
	"disk",
	"disk-latency",
	"disk-cache",
	"disk-flush-latency",
	"disk-mbps",
	"disk-queue-depth",
	"cpu",
	"memory",
	"qemu",
	"disk-size",
	"disk-dir",
	"boot-timeout",
	"append",
	"baseline-append",
	"candidate-append",
	"jobs",
	"max-host-load",
	NULL,
};
