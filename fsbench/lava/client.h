/* A LAVA server's REST API (v0.2) for fsbench: submit a job, wait for it, fetch its results and log. */
#ifndef FSB_LAVA_CLIENT_H
#define FSB_LAVA_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Everything the server sends is untrusted: every response is size-capped, JSON is parsed
 * with Jansson, and text that reaches an error message (a failure comment, log lines, an
 * error body) has its control and non-ASCII bytes written as \xNN. Every function returns
 * 0 or -errno and, on error, a message in @err naming the URL or the job and why.
 */

struct lava_client;

/* A job's state as the server tells it ("Submitted" ... "Finished") and its health
 * ("Unknown", "Complete", "Incomplete", "Canceled"); failure_comment may be empty. */
struct lava_job_status {
	char state[32];
	char health[32];
	char failure_comment[512]; /* escaped */
	char device[128]; /* the device it runs on (actual_device), "" before one is chosen */
};

/*
 * A running job whose device's worker has been Offline this long is lost: the wait ends,
 * rather than at its timeout. LAVA's own view already waited (its scheduler marks a worker
 * Offline 60 s after its last ping); this only sees it on polls 15 s apart, so that a state
 * read once while the worker reconnects does not end a job.
 */
#define LAVA_WORKER_LOST_S 15

/*
 * A client for the server at @url (http:// or https://, e.g. "http://127.0.0.1:8000/")
 * with the API token in @token_file: a regular file, not a symlink, owned by root or the
 * caller, writable by no one else, at most 4 KiB, one token of [A-Za-z0-9._-].
 */
int lava_client_open(const char *url, const char *token_file, struct lava_client **ret, char *err,
		     size_t errlen);
void lava_client_close(struct lava_client *c);

/* The server's base URL without its trailing '/', for messages. */
const char *lava_client_url(const struct lava_client *c);

/* POST /api/v0.2/jobs/ with the job's YAML; the new job's id in *@ret_id. */
int lava_job_submit(struct lava_client *c, const char *yaml, long *ret_id, char *err,
		    size_t errlen);

/* One GET /api/v0.2/jobs/ID/. */
int lava_job_status(struct lava_client *c, long id, struct lava_job_status *st, char *err,
		    size_t errlen);

/*
 * How many of the server's devices of @device_type are idle and healthy (Good or Unknown),
 * from GET /api/v0.2/devices/, in *@ret_n.
 */
int lava_devices_idle(struct lava_client *c, const char *device_type, int *ret_n, char *err,
		      size_t errlen);

/*
 * Polls the job (1 s, then 1.5 times longer up to 15 s) until its state is "Finished";
 * -ETIMEDOUT after @timeout_s seconds (0: no limit), -EINTR once a signal was received
 * (base_signal_received), -EHOSTDOWN when the worker of the job's device has been Offline
 * for LAVA_WORKER_LOST_S while the job ran (the message names the worker and the device).
 * Transient errors (the server restarting) are retried until the timeout; the last
 * status is in *@st either way.
 */
int lava_job_wait(struct lava_client *c, long id, unsigned timeout_s, struct lava_job_status *st,
		  char *err, size_t errlen);

/* The job's test cases as GET /results/ID/yaml gives them (what `fsbench lava import`
 * reads), at most 64 MiB, NUL-terminated, malloc'ed, in *@ret (its length in *@ret_len). */
int lava_job_results(struct lava_client *c, long id, char **ret, size_t *ret_len, char *err,
		     size_t errlen);

/*
 * The last @lines messages of the job's log (GET /api/v0.2/jobs/ID/logs/, at most 64 MiB
 * read), one per line as "LEVEL: MESSAGE", escaped, malloc'ed in *@ret; with @fault, what
 * lava_log_kernel_fault finds in the whole log.
 */
int lava_job_log_tail(struct lava_client *c, long id, unsigned lines, char **ret, char *fault,
		      size_t faultlen, char *err, size_t errlen);

/*
 * The first line the guest's kernel printed on its console (a "target" message of the job's
 * log @log, @len bytes) that says it failed: from "BUG: ", "Oops: " or "Kernel panic" on,
 * escaped, in @out; "" when there is none. A job whose kernel panicked ends at once
 * (panic=-1, -no-reboot) as LAVA's "Connection closed", which names no cause; this does.
 */
void lava_log_kernel_fault(const char *log, size_t len, char *out, size_t outlen);

/* Asks the server to cancel the job (GET /api/v0.2/jobs/ID/cancel/). */
int lava_job_cancel(struct lava_client *c, long id, char *err, size_t errlen);

/*
 * A line of what a job or a matrix came to, for the caller to print (the CLI prefixes its
 * command's name): printf's format and arguments, no newline.
 */
typedef void lava_report_fn(void *data, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Waits up to @timeout_s for submitted job @id (@name: its job file, in messages), then with
 * @out non-NULL saves its results there (lava_save), or with @in_dir in OUT/job-ID.yaml.
 * Each outcome is a line to @report.
 * 0; -ECANCELED when it cannot be judged (timed out and canceled, or it finished other than
 * Complete: its log's last @tail_lines are in the line); or another -errno when the server
 * or the file failed.
 */
int lava_job_collect(struct lava_client *c, long id, const char *name, unsigned timeout_s,
		     unsigned tail_lines, const char *out, bool in_dir, lava_report_fn *report,
		     void *data);

/* @len bytes of what the server gave (a job's results) into @path: a new file renamed over
 * it, never a file planted there (base_out_open). 0 or -errno. */
int lava_save(const char *path, const char *buf, size_t len);

/*
 * What a boot backend calls: submits @job_yaml, waits up to @timeout_s (the job is
 * canceled when that passes) and returns its results as lava_job_results() does, and the
 * job's id in *@ret_id. A job that did not finish Complete is -EIO (-ECANCELED when
 * canceled, -ETIMEDOUT when it outlived @timeout_s, -EINTR on a signal: both canceled), with a message naming the job, its
 * URL, its health, LAVA's failure comment and the log's last lines.
 */
int lava_boot(struct lava_client *c, const char *job_yaml, unsigned timeout_s, long *ret_id,
	      char **ret_results, size_t *ret_len, char *err, size_t errlen);

/* What a finished job's log says of its boot (lava_job_log_facts); malloc'ed, NULL: absent. */
struct lava_log_facts {
	/* the QEMU command line the worker ran: LAVA's qemu method's "Boot command: " line */
	char *boot_command;
	/*
	 * the guest's own result document, as the job's test definition prints it base64 between
	 * FSBENCH-RESULT-BEGIN and FSBENCH-RESULT-END (lava/jobdef.c), decoded: not NUL-ended
	 */
	char *result;
	size_t result_len;
	/* why @result is absent when the markers were there (a bad encoding, too large) */
	char result_why[128];
};

/* a result document the guest writes is at most this, as a local boot's results disk takes */
#define LAVA_LOG_RESULT_MAX (32 << 20)

/*
 * Reads job @id's log once for what it says of the boot (struct lava_log_facts). 0 (facts
 * absent from the log are NULL), or -errno when the server failed; free with
 * lava_log_facts_free().
 */
int lava_job_log_facts(struct lava_client *c, long id, struct lava_log_facts *f, char *err,
		       size_t errlen);
void lava_log_facts_free(struct lava_log_facts *f);

/* lava_job_log_facts()'s reading of a log's text @log (@len bytes, NUL-ended; its lines are
 * cut in place). 0 or -ENOMEM. */
int lava_log_facts_parse(char *log, size_t len, struct lava_log_facts *f);

/*
 * A job file's text for lava_job_submit(): a regular file (no symlink), at most 1 MiB, no
 * NUL byte; malloc'ed, or NULL with @err naming @path.
 */
char *lava_job_read(const char *path, char *err, size_t errlen);

#endif
