/* What kernel-gate, kernel-run and lava job share on the CLI side (cli/kgate.h): prepare, journal, one boot. */
#include "fsbench/cli/kgate.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/signal.h"
#include "model/result_file.h"
#include "probes/knob/journal.h"

int kg_cli_prepare(struct kg_ctx *x, int nk, const char *cmd)
{
	enum kg_prepare_fail fail;
	char err[4096];

	fflush(stdout); /* stderr's lines must not cut into a line stdout has buffered */
	if (kg_prepare(x, nk, &fail, err, sizeof(err))) {
		fprintf(stderr, "fsbench %s: %s\n", cmd, err);
		return fail == KG_PREPARE_USAGE ? FSB_EXIT_USAGE : FSB_EXIT_CANNOT_JUDGE;
	}
	for (int i = 0; i < nk; i++)
		fprintf(stderr, "fsbench %s: %s %s: %s, initramfs %s%s\n", cmd, x->k[i].label,
			x->k[i].release, x->k[i].image, x->initramfs[i],
			x->cached[i] ? " (cached)" : "");
	return 0;
}

int kg_cli_journal_open(struct kg_ctx *x, const char *cmd)
{
	int r;

	probe_scratch_init(&x->scratch);
	r = journal_open(journal_state_dir(), &x->scratch.journal);
	if (r < 0) {
		x->scratch.journal = NULL;
		if (geteuid() != 0)
			return 0;
		fprintf(stderr, "fsbench %s: creating the restore journal in %s: %s%s\n", cmd,
			journal_state_dir(), strerror(-r),
			r == -EPERM ? " (it must be root's and not writable by others)" : "");
		return FSB_EXIT_FAIL;
	}
	x->a.vm.scratch = &x->scratch;
	return 0;
}

void kg_cli_journal_close(struct kg_ctx *x)
{
	if (x->scratch.journal)
		journal_remove(x->scratch.journal);
	x->scratch.journal = journal_close(x->scratch.journal);
	x->a.vm.scratch = NULL;
}

/* The boot's record rides in its result, so one file says what ran where (kgate.h). */
int kg_cli_boot(struct kg_ctx *x, int side, int index, int total, bool gate, json_t *boots,
		char *ret_result, size_t len, const char *cmd)
{
	char dir[PATH_MAX + 32], err[8192];
	struct kg_boot b;
	json_t *rec, *doc;
	char why[1024];
	int r;

	snprintf(dir, sizeof(dir), "%s/boot-%02d-%s", x->workdir, index + 1, x->k[side].label);
	fprintf(stderr, "fsbench %s: boot %d/%d: %s %s%s%s ...\n", cmd, index + 1, total,
		x->k[side].label, x->k[side].release, x->k[side].append[0] ? " " : "",
		x->k[side].append);
	r = kg_boot_run(&x->k[side], x->initramfs[side], &x->a.vm, dir, &b, err, sizeof(err));
	r = r ? r : kg_result_bound(&x->k[side], &b, err, sizeof(err)); /* this boot's result? */
	rec = kg_boot_json(&x->k[side], &x->a.vm, &b);
	json_object_set_new(rec, "index", json_integer(index + 1));
	json_object_set_new(rec, "side", json_string(x->k[side].label));
	json_object_set_new(rec, "dir", json_string(dir));
	json_object_set_new(rec, "console", json_string(b.console));
	json_array_append(boots, rec);
	if (r) {
		json_decref(rec);
		fprintf(stderr, "fsbench %s: boot %d (%s): %s\n", cmd, index + 1, x->k[side].label,
			err);
		return r == -EINTR ? 128 + (int)base_signal_received : FSB_EXIT_CANNOT_JUDGE;
	}
	fprintf(stderr,
		"fsbench %s: boot %d/%d: %s %s: up in %.0f s, done in %.0f s, guest status %d, "
		"host load from others %.0f%%\n",
		cmd, index + 1, total, x->k[side].label, b.guest_release, b.boot_seconds, b.seconds,
		b.guest_status, b.host_load_pct);
	/* a gate judges complete runs only: a failed suite's partial result is no sample */
	if (gate && b.guest_status != 0) {
		json_decref(rec);
		fprintf(stderr,
			"fsbench %s: boot %d (%s): the suite failed in the guest (status %d): cannot "
			"judge; see %s/guest/stderr\n",
			cmd, index + 1, x->k[side].label, b.guest_status, dir);
		return FSB_EXIT_CANNOT_JUDGE;
	}
	if (!b.result[0]) {
		json_decref(rec);
		fprintf(stderr,
			"fsbench %s: boot %d (%s): the suite wrote no result (status %d); see %s/guest/stderr\n",
			cmd, index + 1, x->k[side].label, b.guest_status, dir);
		return b.guest_status > 0 && b.guest_status < 126 ? b.guest_status :
								    FSB_EXIT_CANNOT_JUDGE;
	}
	doc = mdl_json_file(b.result, why, sizeof(why));
	if (!doc) {
		json_decref(rec);
		fprintf(stderr, "fsbench %s: %s\n", cmd, why);
		return FSB_EXIT_CANNOT_JUDGE;
	}
	json_object_set_new(doc, "vm", rec);
	snprintf(ret_result, len, "%s/result.json", dir);
	r = mdl_json_write_atomic(doc, ret_result);
	json_decref(doc);
	if (r) {
		fprintf(stderr, "fsbench %s: writing %s: %s\n", cmd, ret_result, strerror(-r));
		return FSB_EXIT_CANNOT_JUDGE;
	}
	return 0;
}

int kg_cli_boot_one(struct kg_ctx *x, int side, int index, int total, bool gate, json_t **ret_rec,
		    char *ret_result, size_t len, const char *cmd)
{
	json_t *one = json_array();
	int r;

	if (!one) {
		fprintf(stderr, "fsbench %s: %s\n", cmd, strerror(ENOMEM));
		return FSB_EXIT_FAIL;
	}
	r = kg_cli_boot(x, side, index, total, gate, one, ret_result, len, cmd);
	*ret_rec = json_incref(json_array_get(one, 0));
	json_decref(one);
	return r;
}
