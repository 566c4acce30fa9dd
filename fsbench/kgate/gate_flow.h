/*
 * The kernel gate below the CLI: boots through a backend, the A/A floor, the verdict, the document.
 *
 * Adding a boot backend (where a boot runs: the local QEMU, kgate/local.c, is the default;
 * the others are rows of fsbench/cli/backends.c's table). The gate's flow (kg_gate_run,
 * gate_flow.c) and kernel-run's (kg_run_boot, run_flow.c) call every backend alike and
 * report to one struct kg_gate_observer, so neither changes:
 *  1. Its own file, in its own folder when it brings a client: a function that fills a
 *     struct kg_boot_backend (below) and one that releases what it opened. Its @prepare
 *     sets x->needs (struct kg_prep_needs: what it asks of kg_prepare, as a remote machine
 *     or one that boots the bzImage itself) before kg_prepare. Its @run hands the guest's
 *     result to kg_boot_adopt_at(), so every backend's result is checked alike.
 *  2. One row in cmd_backends[] (fsbench/cli/backends.c): the option that selects it and
 *     its options' rules, the options it fixes itself (refused on the command line with
 *     the row's reason), its open and close, and how its boot record is worded; its
 *     options in CMD_BACKEND_OPTS and struct cmd_backend_cfg (backends.h). Nothing in
 *     kgate/ or the rest of the CLI names it.
 *  3. The file in its folder's meson.build; a test against a fake backend as in
 *     tests/unit/test-gate.c (the gate's boots and kernel-run's one).
 */
#ifndef FSB_KGATE_GATE_FLOW_H
#define FSB_KGATE_GATE_FLOW_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "fsbench/kgate/preboot.h"

/*
 * Boots a side by default. The model disk: 20 real A/A gates of 2 boots a side and pooled
 * A/A gates dealt from their boots raised no false alarm once a one-bucket step of a
 * percentile stopped counting as a change (report/floor.c; docs/kernel-gate.md, "How a
 * regression is decided"), so 2, the fewest that give the A/A floor two runs to compare.
 * virtio: p-values from 9 samples a side, host-timed. kg_args.boots 0 asks for these.
 */
#define KG_MODEL_BOOTS 2
#define KG_VIRTIO_BOOTS 3
#define KG_MODEL_BOOTS_P999 4
#define KG_MAX_BOOTS 50

/* One boot the gate (or kernel-run) asks of a backend. */
struct kg_boot_req {
	const struct kg_ctx *x; /* the kernels prepared, the VM, the work directory */
	int side; /* 0: x->k[0] (baseline), 1: x->k[1] (candidate) */
	int index; /* 0-based, in the gate's order of boots */
	int total;
	bool gate; /* a gate judges complete runs only: a failed suite is no sample */
};

/* What one boot gave back; the caller owns the references. */
struct kg_boot_res {
	/*
	 * The boot's record (what ran where, its times, the guest's status), also when the
	 * boot failed; NULL only without memory. It rides in @result as "vm".
	 */
	json_t *record;
	/* The guest's result, adopted once: parsed as untrusted, "vm" added, checked and
	 * written to @path; NULL unless the backend returned 0. */
	json_t *result;
	struct kg_boot boot; /* times, status and release; valid when @booted */
	bool booted; /* the guest ran to its end and reported a status */
	char dir[PATH_MAX + 32]; /* the boot's directory: console, guest/stdout, guest/stderr */
	char name[32]; /* its name beneath the work directory (x->workdir_fd) */
	char path[PATH_MAX + 64]; /* DIR/result.json */
};

/*
 * How a boot is run. The gate knows nothing of QEMU: it asks @prepare for the kernels, hands
 * each boot of its order (A B B A ...) to @run, @slots at a time from as many threads, calls
 * @finish after the last, and judges the results it got back: the local QEMU boot
 * (kg_local_backend), or one that boots elsewhere (a row of fsbench/cli/backends.c), which
 * builds the kernels' initramfs in @prepare, hands each boot to its machines in @run, waits
 * for it and returns its result, with @slots the machines it may use.
 *
 * @prepare (may be NULL): before the first boot, the kernels x->a.spec[0..1] resolved and
 * ready (kg_prepare, which also makes x->workdir). 0, or -errno with @err one line and
 * *@ret_fail the kind.
 *
 * @run fills @ret (zeroed by the caller) and returns 0 with @ret->result set, or a negative
 * errno with @err one line (naming the boot): -EINTR interrupted (base_signal_received),
 * -ECANCELED the suite failed in the guest and @req->gate, -ENODATA the suite wrote no
 * result (@ret->boot.guest_status says why), -EBADMSG a result that is not one compare
 * can read, anything else a boot that failed. It must be safe to call from several threads
 * at once with different requests.
 *
 * @finish (may be NULL): after the last boot, or after a @prepare that failed.
 *
 * @publish (may be NULL): with the gate's document @doc, before it is written, shows the
 * verdict where the backend's boots are seen (LAVA: a job of its own, a test case per gated
 * metric) and returns what it made, for the document's "published"; NULL with @err saying
 * why when it could not (the verdict stands: the gate warns).
 */
/* Why kg_gate_run stopped before a verdict: the caller's exit status depends on it. */
enum kg_gate_fail {
	KG_GATE_USAGE, /* an option or the suite asks for something the gate cannot do */
	KG_GATE_KERNEL, /* a kernel or its initramfs is unusable: cannot judge */
	KG_GATE_SYSTEM, /* no memory, no restore journal */
};

struct kg_boot_backend {
	const char *name;
	int slots; /* boots at a time; 1 or less runs them one by one */
	int (*prepare)(void *priv, struct kg_ctx *x, enum kg_gate_fail *ret_fail, char *err,
		       size_t errlen);
	int (*run)(void *priv, const struct kg_boot_req *req, struct kg_boot_res *ret, char *err,
		   size_t errlen);
	void (*finish)(void *priv, struct kg_ctx *x);
	json_t *(*publish)(void *priv, const struct kg_ctx *x, const json_t *doc, char *err,
			   size_t errlen);
	void *priv;
};

/* The local QEMU boot (kg_boot_run on this host, kgate/local.c), @slots at a time. */
struct kg_boot_backend kg_local_backend(int slots);

/* The local backend's run, for kernel-run's one boot: @priv is unused. */
int kg_local_boot(void *priv, const struct kg_boot_req *req, struct kg_boot_res *ret, char *err,
		  size_t errlen);

/*
 * A backend's result, @rfile in the boot's directory @name beneath the work directory held
 * at @wfd (@ret->dir names it to the user), adopted as the local boot adopts its guest's:
 * parsed as untrusted, @ret->record added as "vm", written to NAME/result.json (shown as
 * @ret->path) beneath @wfd, never by a path re-resolved from the top, and, when @check,
 * refused (-EBADMSG) unless compare can read it; @ret->result on 0.
 */
int kg_boot_adopt_at(struct kg_boot_res *ret, int wfd, const char *name, const char *rfile,
		     bool check, char *err, size_t errlen);

/* Drops @res's references; @res may be NULL. */
void kg_boot_res_free(struct kg_boot_res *res);

/*
 * What the suite printed in the guest (@name/guest/stdout beneath the work directory held
 * as @wfd, opened beneath it following no symlink: never found again from the top) onto
 * @out, as if it had run here; the guest wrote it, so escaped (base_escape) line by line.
 * Anything but a regular file there is not read.
 */
void kg_guest_stdout_copy(int wfd, const char *name, FILE *out);

/*
 * Opens the restore journal that the boots' scratch and results disks are recorded in, so
 * that `fsbench restore` removes them after a kill -9. Not root: no journal (restore is
 * root's), 0. -errno with @err when root's journal cannot be created.
 */
int kg_journal_open(struct kg_ctx *x, char *err, size_t errlen);

/* Removes the journal once the boots cleaned up after themselves. */
void kg_journal_close(struct kg_ctx *x);

enum kg_verdict {
	KG_VERDICT_GOOD,
	KG_VERDICT_REGRESSED,
	KG_VERDICT_CANNOT_JUDGE,
};

/* "good", "regressed", "cannot judge": the verdict line's and the document's word. */
const char *kg_verdict_name(enum kg_verdict v);

/* What the gate decided and how; the observer reads it, the gate's document records it. */
struct kg_gate_report {
	const struct kg_ctx *x;
	const struct rpt_cmp *cmp; /* candidate against baseline; NULL when not built */
	const struct rpt_cmp
		*aa; /* the baseline's odd boots against its even ones; NULL: not built */
	bool counted; /* the model disk under instruction counting: judged by the A/A floor */
	int total; /* boots run or asked for */
	size_t naa; /* baseline boots in the A/A comparison */
	double load_mean, load_max; /* host load from others during the boots, % */
	double cmax, aamax; /* largest judged gated |change| of each comparison */
	const char *cmetric, *aametric; /* its metric, or NULL */
	size_t creg, aareg; /* gated regressions */
	size_t cnoisy, aanoisy; /* gated metrics too noisy to judge */
	enum kg_verdict verdict;
	const char *why; /* why it is not good, or NULL */
	int signal; /* the signal that interrupted the boots, or 0 */
};

/*
 * Below the comparison's table, @rep in plain words, one line (no newline) at a time to
 * @emit: the A/A floor (measured, too few boots, or not), the host's load, the noisy
 * metrics, and what decided (the floor's rule, or a warning that the host was busy).
 */
void kg_gate_explain(const struct kg_gate_report *rep, void (*emit)(void *arg, const char *line),
		     void *arg);

/*
 * What the caller (the CLI) learns as the gate (kg_gate_run) or kernel-run's boot (kg_run_boot,
 * run_flow.h) runs; any member may be NULL.
 */
struct kg_gate_observer {
	/* One line that stops the gate, or names a boot that failed. */
	void (*error)(void *arg, const char *msg);
	/* The plan: x->a.boots a side of @reps repetitions; @picked: raised above the default
	 * for the samples a comparison needs. */
	void (*planned)(void *arg, const struct kg_ctx *x, int reps, bool picked);
	/* The kernels and initramfs ready, @nk of them. */
	void (*prepared)(void *arg, const struct kg_ctx *x, int nk);
	/* @total boots, @slots at a time, before the first. */
	void (*boots_start)(void *arg, int total, int slots);
	/* From the boot's own thread: before it, and once the guest reported a status. */
	void (*boot_start)(void *arg, const struct kg_boot_req *req);
	void (*boot_done)(void *arg, const struct kg_boot_req *req, const struct kg_boot_res *res);
	/* kernel-run's boot (kg_run_boot) once it ended with a record, before the backend's
	 * @finish lets the work directory go: what the guest left (@res->name beneath
	 * req->x->workdir_fd) can still be read. */
	void (*boot_left)(void *arg, const struct kg_boot_req *req, const struct kg_boot_res *res);
	/* The comparisons judged (before the verdict). */
	void (*judged)(void *arg, const struct kg_gate_report *rep);
	/* The verdict; returns the exit status that the gate's document records. */
	int (*verdict)(void *arg, const struct kg_gate_report *rep);
	/* The gate's document written to @path (@e 0) or not (-errno). */
	void (*written)(void *arg, const char *workdir, const char *path, int e);
	/* the verdict shown where the backend's boots are seen too (@publish): @where says it */
	void (*published)(void *arg, const char *where);
};

/*
 * The samples a side that each gated metric gets from @reps repetitions a boot: a
 * comparison needs RPT_MIN_SAMPLES a side, and the A/A floor (the model disk) the spread
 * between two boots of one kernel. Returns the boots a side needed, at least @boots when
 * @boots is given (> 0), else at least the default for the disk.
 */
int kg_gate_boots_needed(const struct kg_args *a, int reps, int boots);

/*
 * kernel-gate once its command line is in @x->a (a.boots 0: the default, raised until the
 * suite's repetitions give enough samples; too few with --boots given is refused before
 * any work): the gate settings, the kernels prepared by @be, the boots through @be in the
 * order A B B A, the comparisons built from the results in memory, the A/A floor, the
 * verdict (obs->verdict) and the gate's document in x->workdir (or x->a.json). Returns 0
 * once a verdict was given, else -errno with @ret_fail the kind, after obs->error said why.
 */
int kg_gate_run(struct kg_ctx *x, const struct kg_boot_backend *be,
		const struct kg_gate_observer *obs, void *arg, enum kg_gate_fail *ret_fail);

/*
 * The gate's document for a gate that stopped before kg_gate_run gave a verdict (its
 * backend's server refused it, a kernel could not be prepared), written to --json (x->a.json; nothing
 * without it: the work directory may not be made yet), so that a CI reading the document
 * finds one: verdict "cannot judge", "complete": false, @why as "reason" (escaped), @status
 * as "exit", the suite and the kernels as far as they are known. 0 or -errno.
 */
int kg_gate_document_stopped(const struct kg_ctx *x, int status, const char *why);

/* Side of boot @i (0-based) in the gate's order: A B B A A B B A ... (0 baseline). */
int kg_gate_side(int i);

#endif
