/* kernel-run's one boot (run_flow.h) through the gate's backend and observer, beside gate_flow.c. */
#include "fsbench/kgate/run_flow.h"

#include <errno.h>

#include "base/signal.h"

/*
 * Whether the boot that returned @r (struct kg_boot_backend's @run) leaves the suite's own
 * status as kernel-run's answer. Without a result (-ENODATA) only a failure the suite
 * reported is one: 0 with nothing written, or 126 and above (the shell's "cannot run" and
 * a signal's), say the suite never gave an answer.
 */
static bool run_answered(int r, int status)
{
	return !r || (r == -ENODATA && status > 0 && status < 126);
}

int kg_run_boot(struct kg_ctx *x, const struct kg_boot_backend *be,
		const struct kg_gate_observer *obs, void *arg, struct kg_run_res *ret,
		enum kg_gate_fail *ret_fail)
{
	struct kg_boot_req req = { .x = x, .total = 1 };
	struct kg_boot_res res = { 0 };
	char err[9216];
	int r;

	*ret = (struct kg_run_res){ 0 };
	*ret_fail = KG_GATE_SYSTEM;
	if (be->prepare && (r = be->prepare(be->priv, x, ret_fail, err, sizeof(err)))) {
		if (obs->error)
			obs->error(arg, err);
		if (be->finish)
			be->finish(be->priv, x);
		return r;
	}
	if (obs->prepared)
		obs->prepared(arg, x, 1);
	base_install_signals();
	if (obs->boot_start)
		obs->boot_start(arg, &req);
	r = be->run(be->priv, &req, &res, err, sizeof(err));
	if (res.booted && obs->boot_done)
		obs->boot_done(arg, &req, &res);
	if (r && obs->error)
		obs->error(arg, err);
	/* what the guest left is read beneath the work directory, which finish lets go */
	if (res.record && obs->boot_left)
		obs->boot_left(arg, &req, &res);
	if (be->finish)
		be->finish(be->priv, x);
	if (r == -EINTR) {
		ret->signal = (int)base_signal_received;
		*ret_fail = KG_GATE_SYSTEM; /* should it carry no signal: a stop all the same */
	} else if (run_answered(r, res.boot.guest_status)) {
		ret->status = res.boot.guest_status;
		ret->result = json_incref(res.result);
		r = 0;
	} else
		*ret_fail = KG_GATE_KERNEL;
	kg_boot_res_free(&res);
	return r;
}
