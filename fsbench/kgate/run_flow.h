/* kernel-run below the CLI: one boot through a gate's backend, reported to a gate's observer. */
#ifndef FSB_KGATE_RUN_FLOW_H
#define FSB_KGATE_RUN_FLOW_H

#include <jansson.h>

#include "fsbench/kgate/gate_flow.h"

/* What kernel-run's boot gave its caller. */
struct kg_run_res {
	/* The guest's result as the backend adopted it (a reference the caller drops), when the
	 * boot returned one; NULL otherwise. */
	json_t *result;
	int status; /* the suite's exit status in the guest, when kg_run_boot returned 0 */
	int signal; /* the signal that interrupted the boot (-EINTR), or 0 */
};

/*
 * kernel-run once its command line is in @x->a: @be's @prepare (the kernel and initramfs,
 * obs->prepared for one kernel), one boot (obs->boot_start, obs->boot_done once the guest
 * reported a status), obs->boot_left while @finish has not yet let the work directory go,
 * then @finish. Every line that says why it stopped goes to obs->error.
 *
 * Returns 0 when the suite in the guest gave its own answer: @ret->status, with
 * @ret->result when it wrote a result. -EINTR with @ret->signal when a signal stopped the
 * boot; else -errno with @ret_fail the kind: @prepare's, or KG_GATE_KERNEL for a boot that
 * failed (the kernel cannot be judged by it). @ret is zeroed first.
 */
int kg_run_boot(struct kg_ctx *x, const struct kg_boot_backend *be,
		const struct kg_gate_observer *obs, void *arg, struct kg_run_res *ret,
		enum kg_gate_fail *ret_fail);

#endif
