/* The --knob extension: set knobs for a run, journal them, restore them, record them in the result. */
#include "ext.h"
#include "ext_knobs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"

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

int fsb_knobs_check_stale(char *err, size_t errlen)
{
	const char *dir = journal_state_dir();
	json_t *paths, *p;
	size_t i;
	int r = 0;

	if (journal_list(dir, &paths) < 0)
		return 0; /* an unreadable state directory is reported when the journal is opened */
	json_array_foreach(paths, i, p)
	{
		json_t *hdr, *entries;

		if (journal_load(json_string_value(p), &hdr, &entries) < 0)
			continue;
		if (!journal_owner_alive(hdr) && json_array_size(entries)) {
			snprintf(
				err, errlen,
				"%s holds knob values of a run that died (pid %lld): run `fsbench restore` first",
				json_string_value(p),
				(long long)json_integer_value(json_object_get(hdr, "pid")));
			r = -EBUSY;
		}
		json_decref(hdr);
		json_decref(entries);
		if (r)
			break;
	}
	json_decref(paths);
	return r;
}

struct knobs_cfg {
	struct opt_strlist knobs; /* --knob NAME=VALUE */
};

struct knobs_state {
	struct probe_target pt;
	struct knob_target kt;
	struct knob_batch batch;
	struct journal *j;
	struct knob_locks locks;
	json_t *before;
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
		r = knob_batch_validate(&s->batch, err, errlen);
	if (r < 0) {
		/* the value is wrong, whatever the errno: usage, nothing was changed */
		free(s);
		return -EINVAL;
	}
	if (kc->knobs.n) {
		char why[512];

		r = knob_batch_lock(&s->batch, journal_state_dir(), "run", &s->locks, why,
				    sizeof(why));
		if (r < 0) {
			snprintf(err, errlen, "%s%s", r == -EBUSY ? "--knob " : "", why);
			free(s);
			return r == -EINVAL ? -EIO : r;
		}
	}
	s->before = knob_values_json(&s->kt);
	if (kc->knobs.n) {
		r = fsb_knobs_check_stale(err, errlen);
		if (r == 0) {
			r = journal_open(journal_state_dir(), &s->j);
			if (r < 0)
				snprintf(err, errlen, "creating the restore journal in %s: %s",
					 journal_state_dir(), strerror(-r));
		}
		if (r == 0) {
			r = knob_batch_apply(&s->batch, s->j, err, errlen);
			/* the batch rolled itself back: the journal holds nothing left to restore */
			if (r < 0)
				journal_remove(s->j);
		}
		if (r < 0) {
			journal_close(s->j);
			knob_locks_release(&s->locks, journal_state_dir());
			json_decref(s->before);
			free(s);
			return r == -EINVAL ? -EIO : r;
		}
	}
	*ret_state = s;
	return 0;
}

static void knobs_after(struct fsb_run *run, const struct fsb_common *c, const void *cfg,
			void *state, json_t *run_json)
{
	struct knobs_state *s = state;
	json_t *results = json_array(), *o;
	bool restored = true;

	(void)run;
	(void)c;
	(void)cfg;
	if (!s)
		return;
	if (s->j) {
		size_t i;
		json_t *res;

		if (knob_entries_restore("", s->j->entries, 0, results) == 0) {
			journal_remove(s->j);
		} else {
			restored = false;
			json_array_foreach(results, i, res) if (json_object_get(res, "error")) fprintf(
				stderr,
				"fsbench: restoring %s: %s; the journal %s stays for `fsbench restore`\n",
				json_string_value(json_object_get(res, "knob")),
				json_string_value(json_object_get(res, "error")), s->j->path);
		}
		s->j = journal_close(s->j);
	}
	if (run_json) {
		o = json_pack("{s:O,s:o,s:o,s:o,s:b}", "before", s->before, "applied",
			      knob_batch_applied_json(&s->batch), "after", knob_values_json(&s->kt),
			      "touched", knob_batch_touched_json(&s->batch), "restored", restored);
		if (o && s->kt.disk[0])
			json_object_set_new(o, "disk", json_string(s->kt.disk));
		if (o && !restored)
			json_object_set(o, "restore_errors", results);
		json_object_set_new(run_json, "knobs", o);
	}
	/* only now, "after" read: a run that takes them over finds the values we put back */
	knob_locks_release(&s->locks, journal_state_dir());
	json_decref(results);
	json_decref(s->before);
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
