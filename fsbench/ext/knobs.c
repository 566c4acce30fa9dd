/* The --knob extension: set knobs for a run, journal them, restore them, record them in the result. */
#include "fsbench/core/ext.h"
#include "fsbench/ext/knobs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/knob/journal.h"
#include "probes/knob/knob_session.h"

int fsb_knob_target(const char *path, struct probe_target *ret_pt, struct knob_target *ret_kt,
		    char *err, size_t errlen)
{
	int r = probe_target_resolve(NULL, path, ret_pt);

	if (r < 0) {
		snprintf(err, errlen, "resolving %s to its mount and device: %s", path,
			 strerror(-r));
		return r;
	}
	r = knob_target_init(NULL, ret_pt->has_block_device ? ret_pt->disk : NULL,
			     ret_pt->mountpoint, ret_pt->fstype, ret_kt);
	if (r < 0)
		snprintf(err, errlen, "reading /sys/block/%s for %s: %s", ret_pt->disk, path,
			 strerror(-r));
	return r;
}

struct knobs_cfg {
	struct opt_strlist knobs; /* --knob NAME=VALUE */
};

struct knobs_state {
	struct probe_target pt;
	struct knob_target kt;
	struct knob_batch batch;
	struct knob_session session;
};

static int knobs_before(struct fsb_run *run, const struct fsb_common *c, const void *cfg,
			void **ret_state, char *err, size_t errlen)
{
	const struct knobs_cfg *kc = cfg;
	struct knobs_state *s;
	int r;

	(void)run;
	*ret_state = NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "knobs: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	s->batch.t = &s->kt;
	r = fsb_knob_target(c->dirs.v[0], &s->pt, &s->kt, err, errlen);
	if (r < 0) {
		free(s);
		/* without --knob a target we cannot read only costs the "knobs" record */
		return kc->knobs.n ? r : 0;
	}
	for (int i = 0; i < kc->knobs.n && r == 0; i++)
		r = knob_batch_add(&s->batch, kc->knobs.v[i], err, errlen);
	if (r == 0)
		r = knob_session_begin(&s->session, &s->batch, journal_state_dir(), "run", err,
				       errlen);
	if (r < 0) {
		bool busy = r == -EBUSY && s->session.failed == KNOB_SESSION_LOCK;

		/* a wrong value, whatever the errno, is usage: nothing was changed */
		if (s->session.failed == KNOB_SESSION_VALIDATE ||
		    s->session.failed == KNOB_SESSION_OK)
			r = -EINVAL;
		else if (r == -EINVAL)
			r = -EIO;
		if (busy) {
			char why[512];

			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "--knob %s", why);
		}
		knob_session_free(&s->session);
		free(s);
		return r;
	}
	*ret_state = s;
	return 0;
}

static void knobs_after(struct fsb_run *run, const struct fsb_common *c, const void *cfg,
			void *state, json_t *run_json)
{
	struct knobs_state *s = state;
	json_t *results = json_array(), *o, *res;
	bool restored;
	size_t i;

	(void)run;
	(void)c;
	(void)cfg;
	if (!s)
		return;
	restored = knob_session_end(&s->session, true, results) == 0;
	if (!restored)
		json_array_foreach(results, i, res) if (json_object_get(res, "error")) fprintf(
			stderr,
			"fsbench: restoring %s: %s; the journal %s stays for `fsbench restore`\n",
			json_string_value(json_object_get(res, "knob")),
			json_string_value(json_object_get(res, "error")), s->session.journal_left);
	if (run_json) {
		o = json_pack("{s:O,s:o,s:O,s:o,s:b}", "before", s->session.before, "applied",
			      knob_batch_applied_json(&s->batch), "after", s->session.after,
			      "touched", knob_batch_touched_json(&s->batch), "restored", restored);
		if (o && s->kt.disk[0])
			json_object_set_new(o, "disk", json_string(s->kt.disk));
		if (o && !restored)
			json_object_set(o, "restore_errors", results);
		json_object_set_new(run_json, "knobs", o);
	}
	json_decref(results);
	knob_session_free(&s->session);
	free(s);
}

#define O(f) offsetof(struct knobs_cfg, f)
static const struct fsb_opt knobs_opts[] = {
	{ .name = "knob",
	  .type = OPT_STRLIST,
	  .offset = O(knobs),
	  .unit = "NAME=VALUE",
	  .help = "set a knob of the target's device, mount or vm for this run and restore it afterwards "
		  "(repeatable): scheduler, nr_requests, write_cache, drive_cache, read_ahead_kb, wbt_lat_usec, "
		  "max_sectors_kb, nomerges, rq_affinity, iosched/NAME, barrier, dirty_ratio, dirty_background_ratio, "
		  "dirty_bytes, dirty_background_bytes, dirty_expire_centisecs, dirty_writeback_centisecs" },
	{ 0 },
};
#undef O

const struct fsb_ext fsb_ext_knobs = {
	.name = "knobs",
	.opts = knobs_opts,
	.cfg_size = sizeof(struct knobs_cfg),
	.before = knobs_before,
	.after = knobs_after,
};
