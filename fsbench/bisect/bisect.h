/* Bisecting to the first bad kernel: the order of a list, the halving, the gate's answer, the record. */
#ifndef FSB_BISECT_H
#define FSB_BISECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * dpkg's version order (deb-version(7)): epoch, upstream version, revision; '~' sorts before
 * anything, even the end. <0, 0 or >0 as strcmp.
 */
int bs_dpkg_vercmp(const char *a, const char *b);

/* One kernel of a list: a .deb's package version, else its release name (the file's name). */
struct bs_kernel {
	char *path;
	char *version; /* `dpkg-deb -f PATH Version`; NULL for an image */
	const char *name; /* the basename of @path */
};

/*
 * Two kernels in the order of the history: both packages by their versions (dpkg), else the
 * names in `sort -V` order (strverscmp, then strcmp).
 */
int bs_kernel_cmp(const struct bs_kernel *a, const struct bs_kernel *b);

/* Sorts @k[0..@n) by bs_kernel_cmp(). */
void bs_kernels_sort(struct bs_kernel *k, size_t n);

/* What a step found, and what a kernel between the two ends is known to be. */
enum bs_mark {
	BS_UNTESTED,
	BS_GOOD,
	BS_BAD,
	BS_SKIP, /* gated, but the gate could not judge it (no boot, a failed build) */
};

/*
 * The halving over @mark[0..@n), where mark[0] is the good end and the first BS_BAD after
 * the last BS_GOOD the bad one, as git bisect does: the untested kernel between them that is
 * nearest their middle (a skipped one is passed over, its neighbours kept). Returns its index,
 * or -1 when none is left: then bs_bounds() says the answer.
 */
ssize_t bs_next(const enum bs_mark *mark, size_t n);

/*
 * The last good kernel and the first bad one after it (@n when none is marked bad), and how
 * many between them were skipped: 0 means *@ret_bad is the first bad kernel.
 */
size_t bs_bounds(const enum bs_mark *mark, size_t n, size_t *ret_good, size_t *ret_bad);

/* What one gate said, from its kernel-gate.json, narrowed to --metric when one was given. */
struct bs_gate {
	bool named; /* the metric (and cell) asked for is in the document, judged or not */
	bool found; /* a judged comparison was there to read */
	bool regressed; /* the decided comparison's verdict is "regression" */
	char metric[96], cell[160];
	double change, floor; /* percent; NAN when the document has none */
};

/*
 * Reads the gate document @path: the comparison that decided (with @metric, only that metric,
 * and with @cell only that sample label): a gated regression with the largest change, else
 * the judged comparison with the largest change. 0 (ret->found false when nothing matched),
 * or -errno with @err set.
 */
int bs_gate_read(const char *path, const char *metric, const char *cell, struct bs_gate *ret,
		 char *err, size_t errlen);

/* A child to run: argv (looked up in PATH), in @cwd (NULL: ours), with one variable more. */
struct bs_cmd {
	char *const *argv;
	const char *cwd;
	const char *env_name, *env_value; /* NULL: none */
	const char *log; /* stdout and stderr, created or truncated; NULL: inherited */
	long timeout_ms; /* 0: none; then the child's process group is killed */
};

/*
 * Runs @c in a process group of its own and waits, and on *@stop (set by a signal handler)
 * or the timeout kills the group. 0 with *@ret_status the wait status, -ETIMEDOUT,
 * -EINTR (stopped), or -errno when it could not be started.
 */
int bs_run(const struct bs_cmd *c, volatile int *stop, int *ret_status);

#endif
