/* The local QEMU boot as the gate's backend (gate_flow.h), its guest result adopted once; the journal. */
#include "fsbench/kgate/gate_flow.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fsbench/kgate/util.h"
#include "model/result_file.h"
#include "model/runs.h"
#include "model/schema.h"
#include "probes/knob/journal.h"

int kg_journal_open(struct kg_ctx *x, char *err, size_t errlen)
{
	int r;

	probe_scratch_init(&x->scratch);
	r = journal_open(journal_state_dir(), &x->scratch.journal);
	if (r < 0) {
		x->scratch.journal = NULL;
		if (geteuid() != 0)
			return 0;
		snprintf(err, errlen, "creating the restore journal in %s: %s%s",
			 journal_state_dir(), strerror(-r),
			 r == -EPERM ? " (it must be root's and not writable by others)" : "");
		return r;
	}
	x->a.vm.scratch = &x->scratch;
	return 0;
}

void kg_journal_close(struct kg_ctx *x)
{
	if (x->scratch.journal)
		journal_remove(x->scratch.journal);
	x->scratch.journal = journal_close(x->scratch.journal);
	x->a.vm.scratch = NULL;
}

void kg_boot_res_free(struct kg_boot_res *res)
{
	if (!res)
		return;
	json_decref(res->record);
	json_decref(res->result);
	res->record = res->result = NULL;
}

/*
 * The guest's result, once: parsed as untrusted (mdl_json_file), the boot's record added
 * as "vm" so that one file says what ran where, written beside the boot, and checked as
 * compare will read it when @check (a gate's: a version 1 document brought to version 2,
 * runs[] in shape): -EBADMSG when it is not a result compare can read.
 */
/*
 * The guest's result read at @rpath and the adopted one written to @wpath, both beneath the
 * work directory's descriptor held since its check.
 */
static int boot_adopt(struct kg_boot_res *ret, const char *rpath, const char *wpath, bool check,
		      char *err, size_t errlen)
{
	json_t *doc = mdl_json_file(rpath, err, errlen);
	const char *schema;
	int r;

	snprintf(ret->path, sizeof(ret->path), "%s/result.json", ret->dir);
	if (!doc) {
		kg_err_shown(err, errlen, rpath, ret->boot.result);
		return -EPROTO;
	}
	json_object_set(doc, "vm", ret->record);
	if ((r = mdl_json_write_atomic(doc, wpath))) {
		snprintf(err, errlen, "writing %s: %s", ret->path, strerror(-r));
		json_decref(doc);
		return r;
	}
	schema = json_string_value(json_object_get(doc, MDL_KEY_SCHEMA));
	if (!check)
		r = 0;
	else if (mdl_result_upgrade(doc)) {
		snprintf(err, errlen, "%s: schema is '%s', expected '%s' or '%s'", ret->path,
			 schema ? schema : "(none)", MDL_RESULT_SCHEMA, MDL_RESULT_SCHEMA_V1);
		r = -EBADMSG;
	} else if (mdl_runs_check(doc, ret->path, err, errlen))
		r = -EBADMSG;
	if (r)
		json_decref(doc);
	else
		ret->result = doc;
	return r;
}

int kg_boot_adopt_at(struct kg_boot_res *ret, int wfd, const char *name, const char *rfile,
		     bool check, char *err, size_t errlen)
{
	char rel[PATH_MAX], rpath[PATH_MAX], wpath[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/%s", name, rfile);
	kg_fd_path(rpath, sizeof(rpath), wfd, rel);
	snprintf(rel, sizeof(rel), "%s/result.json", name);
	kg_fd_path(wpath, sizeof(wpath), wfd, rel);
	return boot_adopt(ret, rpath, wpath, check, err, errlen);
}

int kg_local_boot(void *priv, const struct kg_boot_req *req, struct kg_boot_res *ret, char *err,
		  size_t errlen)
{
	const struct kg_ctx *x = req->x;
	const struct kg_kernel *k = &x->k[req->side];
	struct kg_boot *b = &ret->boot;
	char why[8192], name[32], rel[128], rpath[192], wpath[192];
	int r, n = req->index + 1;

	(void)priv;
	snprintf(name, sizeof(name), "boot-%02d-%s", n, k->label);
	snprintf(ret->dir, sizeof(ret->dir), "%s/%s", x->workdir, name);
	snprintf(ret->name, sizeof(ret->name), "%s", name);
	r = kg_boot_run(k, x->initramfs_at[req->side], &x->a.vm, x->workdir_fd, name, ret->dir, b,
			why, sizeof(why));
	r = r ? r : kg_result_bound(k, b, why, sizeof(why)); /* this boot's result? */
	ret->record = kg_boot_json(k, &x->a.vm, b);
	json_object_set_new(ret->record, "index", json_integer(n));
	json_object_set_new(ret->record, "side", json_string(k->label));
	json_object_set_new(ret->record, "dir", json_string(ret->dir));
	json_object_set_new(ret->record, "console", json_string(b->console));
	if (r) {
		snprintf(err, errlen, "boot %d (%s): %s", n, k->label, why);
		return r == -EINTR ? r : r < 0 ? r : -EIO;
	}
	ret->booted = true;
	if (req->gate && b->guest_status != 0) {
		snprintf(
			err, errlen,
			"boot %d (%s): the suite failed in the guest (status %d): cannot judge; see "
			"%s/guest/stderr",
			n, k->label, b->guest_status, ret->dir);
		return -ECANCELED;
	}
	if (!b->result[0]) {
		snprintf(err, errlen,
			 "boot %d (%s): the suite wrote no result (status %d); see %s/guest/stderr",
			 n, k->label, b->guest_status, ret->dir);
		return -ENODATA;
	}
	/* read and written back beneath the work directory held since its check */
	snprintf(rel, sizeof(rel), "%s/guest/result.json", name);
	kg_fd_path(rpath, sizeof(rpath), x->workdir_fd, rel);
	snprintf(rel, sizeof(rel), "%s/result.json", name);
	kg_fd_path(wpath, sizeof(wpath), x->workdir_fd, rel);
	r = boot_adopt(ret, rpath, wpath, req->gate, err, errlen);
	/* a refused result is the boot's failure: -EINTR, -ECANCELED, -ENODATA say other things */
	return r == -EINTR || r == -ECANCELED || r == -ENODATA ? -EIO : r;
}

/* The journal before the kernels: it records a .deb's extraction directory too. */
static int local_prepare(void *priv, struct kg_ctx *x, enum kg_gate_fail *ret_fail, char *err,
			 size_t errlen)
{
	enum kg_prepare_fail pf;
	int r;

	(void)priv;
	*ret_fail = KG_GATE_SYSTEM;
	if ((r = kg_journal_open(x, err, errlen)))
		return r;
	/* kernel-run's one kernel, or the gate's two */
	if ((r = kg_prepare(x, kg_args_kernels(&x->a), &pf, err, errlen)))
		*ret_fail = pf == KG_PREPARE_USAGE ? KG_GATE_USAGE : KG_GATE_KERNEL;
	return r;
}

static void local_finish(void *priv, struct kg_ctx *x)
{
	(void)priv;
	kg_journal_close(x);
	kg_prepare_release(x);
}

struct kg_boot_backend kg_local_backend(int slots)
{
	return (struct kg_boot_backend){ .name = "local QEMU",
					 .slots = slots,
					 .prepare = local_prepare,
					 .run = kg_local_boot,
					 .finish = local_finish };
}
