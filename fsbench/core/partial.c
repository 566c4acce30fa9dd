/* Writing a result file while the work goes on (partial.h). */
#include "fsbench/core/partial.h"
#include "fsbench/core/opt.h"
#include "fsbench/core/result.h"
#include "fsbench/core/run_state.h"

#include <string.h>

#include "base/errf.h"
#include "base/fileio.h"
#include "model/result_file.h"

int fsb_partial_write(struct fsb_partial *p, bool final, char *err, size_t errlen)
{
	bool said = p->write_failed;
	int r;

	fsb_result_finish(p->doc);
	/* a document without runs is a run that never started (or a suite that never began) */
	if (!final || !json_array_size(json_object_get(p->doc, "runs")))
		json_object_set_new(p->doc, "complete", json_false());
	r = mdl_json_write_atomic(p->doc, p->path);
	p->write_failed = r < 0;
	if (r < 0 && !said)
		return errf(err, errlen, r, "writing result %s: %s", p->path, strerror(-r));
	if (errlen)
		err[0] = 0;
	return r;
}

int fsb_partial_begin(struct fsb_partial *p, const char *path, const char *command, int argc,
		      char **argv, char *err, size_t errlen)
{
	int r = base_out_check(path);

	if (r < 0)
		return errf(err, errlen, r, "--json %s: %s", path, strerror(-r));
	p->path = path;
	p->doc = fsb_result_new(argc, argv);
	/* the effective configuration, enough to run it again: command and every option */
	json_object_set_new(json_object_get(p->doc, "config"), "command", json_string(command));
	r = fsb_partial_progress(p, 0, 0, 0, err, errlen);
	if (r < 0) {
		json_decref(p->doc);
		p->doc = NULL;
	}
	return r;
}

int fsb_partial_progress(struct fsb_partial *p, int loops_done, uint64_t files, uint64_t bytes,
			 char *err, size_t errlen)
{
	json_object_set_new(
		p->doc, "partial",
		json_pack("{s:i,s:I,s:I,s:s}", "loops_done", loops_done, "files", (json_int_t)files,
			  "bytes", (json_int_t)bytes, "note",
			  "the run has not finished: it was still going, or was killed"));
	return fsb_partial_write(p, false, err, errlen);
}

void fsb_partial_after_loop(const struct fsb_run *run, int loop, void *arg)
{
	struct fsb_partial *p = arg;
	char err[OPT_ERR_MAX + 4096];
	uint64_t files = 0, bytes = 0;

	for (int i = 0; i < run->nloops; i++) {
		files += run->loops[i].files;
		bytes += run->loops[i].bytes;
	}
	fsb_partial_progress(p, loop + 1, files, bytes, err, sizeof(err));
	if (err[0] && p->say)
		p->say(p->say_arg, err);
}

int fsb_partial_finish(struct fsb_partial *p, json_t *run, const char *why, char *err,
		       size_t errlen)
{
	json_object_del(p->doc, "partial");
	if (run) {
		json_object_set(json_object_get(p->doc, "config"), "params",
				json_object_get(run, "params"));
		json_array_append_new(json_object_get(p->doc, "runs"), run);
	}
	/* a run that never started has no run object: the file says why it is incomplete */
	if (!json_array_size(json_object_get(p->doc, "runs")))
		json_object_set_new(p->doc, "error", json_string(why));
	return fsb_partial_write(p, true, err, errlen);
}
