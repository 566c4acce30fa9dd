/* The small-file workload's workers: subdirectory rotation, the timed loop, -S's phases, cleanup. */
#include "fsbench/core/clock.h"
#include "fsbench/workloads/smallfile_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned pick_subdir(struct smallfile_thread *st, const struct smallfile_cfg *c, int nsub)
{
	if (!c->subdirs)
		return 0;
	if (c->per_subdir) {
		if (st->in_subdir >= c->per_subdir) {
			st->cur_subdir = (st->cur_subdir + 1) % (unsigned)nsub;
			st->in_subdir = 0;
		}
		st->in_subdir++;
		return st->cur_subdir;
	}
	if (fsb_now_ns() - st->subdir_start_ns > (uint64_t)SECS_PER_SUBDIR * 1000000000u) {
		st->cur_subdir = (st->cur_subdir + 1) % (unsigned)nsub;
		st->subdir_start_ns = fsb_now_ns();
	}
	return st->cur_subdir;
}

static int thread_err(struct fsb_thread *t, int e, const char *what, const char *dir, unsigned sub,
		      bool has_sub, const char *name)
{
	if (has_sub)
		snprintf(t->errmsg, sizeof(t->errmsg), "%s %s/%02x/%s: %s", what, dir, sub, name,
			 strerror(e));
	else
		snprintf(t->errmsg, sizeof(t->errmsg), "%s %s/%s: %s", what, dir, name,
			 strerror(e));
	return -e;
}

static int made_push(struct smallfile_thread *st, uint32_t sub)
{
	if (st->nmade == st->made_cap) {
		size_t cap = st->made_cap ? st->made_cap * 2 : 16;
		uint32_t *a = realloc(st->made, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		st->made = a;
		st->made_cap = cap;
	}
	st->made[st->nmade++] = sub;
	return 0;
}

/*
 * The directory that files of subdirectory @sub live in, for thread @t: the -d directory
 * itself without -D, else subdirectory @sub, opened (and with @make, created) as the
 * thread's rotation reaches it, closing the one before. Called between timed calls only.
 * A descriptor, or -errno with t->errmsg set.
 */
static int subdir_fd(struct fsb_thread *t, unsigned sub, bool make)
{
	const struct smallfile_cfg *c = t->run->cfg;
	struct smallfile_state *s = state(t->run);
	struct smallfile_thread *st = t->priv;
	int d = t->id % s->ndirs, fd;
	char name[16];

	if (!c->subdirs)
		return s->top.fd[d];
	if (st->sub_fd >= 0 && st->sub_open == sub)
		return st->sub_fd;
	snprintf(name, sizeof(name), "%02x", sub);
	if (make) {
		if (mkdirat(s->top.fd[d], name, 0777) == 0) {
			if (made_push(st, sub) < 0) {
				/* unrecorded, it would outlive the run: take it back now */
				unlinkat(s->top.fd[d], name, AT_REMOVEDIR);
				snprintf(t->errmsg, sizeof(t->errmsg),
					 "recording subdirectory %s/%s: %s", s->dirs[d], name,
					 strerror(ENOMEM));
				return -ENOMEM;
			}
		} else if (errno != EEXIST) {
			snprintf(t->errmsg, sizeof(t->errmsg), "creating subdirectory %s/%s: %s",
				 s->dirs[d], name, strerror(errno));
			return -errno;
		}
	}
	fd = openat(s->top.fd[d], name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(t->errmsg, sizeof(t->errmsg), "opening subdirectory %s/%s: %s", s->dirs[d],
			 name, strerror(errno));
		return -errno;
	}
	if (st->sub_fd >= 0)
		close(st->sub_fd);
	st->sub_fd = fd;
	st->sub_open = sub;
	return fd;
}

/* Re-opens created file @i and fsyncs it: the post-loop phases of -S 2..6, each call timed. */
static int post_fsync(struct fsb_thread *t, int loop, uint64_t i)
{
	struct fsb_run *run = t->run;
	const struct smallfile_cfg *c = run->cfg;
	struct smallfile_state *s = state(run);
	struct smallfile_thread *st = t->priv;
	int d = t->id % s->ndirs, dfd, fd, r, e;
	unsigned sub = st->subdir_of[i];
	char name[MAX_NAME_LEN + 1];
	uint64_t t0, t1;

	smallfile_name(name, global_number(run, t->id, loop, i), (int)c->name_len, (int)c->rand_len,
		       s->seed);
	dfd = subdir_fd(t, sub, false);
	if (dfd < 0)
		return dfd;
	FSB_TIME_CALL(t0, t1, fd = openat(dfd, name, O_RDONLY | O_CLOEXEC));
	if (fd < 0)
		return thread_err(t, errno, "re-opening", s->dirs[d], sub, c->subdirs, name);
	fsb_record(t, OP_OPEN, t0, t1);
	FSB_TIME_CALL(t0, t1, r = c->fdatasync ? fdatasync(fd) : fsync(fd));
	e = errno;
	fsb_record(t, s->sync_op, t0, t1);
	FSB_TIME_CALL(t0, t1, close(fd));
	fsb_record(t, OP_CLOSE, t0, t1);
	if (r < 0)
		return thread_err(t, e, c->fdatasync ? "fdatasync of" : "fsync of", s->dirs[d], sub,
				  c->subdirs, name);
	return 0;
}

/* The timed part of one loop of one worker: create, write, sync, close; then -S's phases. */
int smallfile_thread(struct fsb_thread *t, int loop)
{
	struct fsb_run *run = t->run;
	const struct smallfile_cfg *c = run->cfg;
	struct smallfile_state *s = state(run);
	struct smallfile_thread *st = t->priv;
	int d = t->id % s->ndirs, r = 0;
	bool per_file_sync = s->sync_bits & SF_FSYNC_BEFORE_CLOSE;
	char name[MAX_NAME_LEN + 1];
	uint64_t i, t0, t1;

	/* as fs_mark, -N's count carries over from one loop to the next */
	st->created = 0;
	st->subdir_start_ns = fsb_now_ns();
	for (i = 0; i < (uint64_t)c->nfiles && !fsb_should_stop(run); i++) {
		unsigned sub = pick_subdir(st, c, s->nsub);
		int dfd = subdir_fd(t, sub, true), fd, e;
		int64_t left = c->size;

		if (dfd < 0) {
			r = dfd;
			break;
		}
		smallfile_name(name, global_number(run, t->id, loop, i), (int)c->name_len,
			       (int)c->rand_len, s->seed);
		st->subdir_of[i] = sub;

		/* O_EXCL: a file of the same name is not this run's to truncate or remove */
		FSB_TIME_CALL(t0, t1,
			      fd = openat(dfd, name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0666));
		if (fd < 0) {
			e = errno;
			r = thread_err(t, e, "creating", s->dirs[d], sub, c->subdirs, name);
			if (e == EEXIST)
				snprintf(
					t->errmsg + strlen(t->errmsg),
					sizeof(t->errmsg) - strlen(t->errmsg),
					" (not made by this run: left alone; remove it or raise -r)");
			break;
		}
		fsb_record(t, OP_CREATE, t0, t1);
		st->created = i + 1;

		while (left > 0) {
			size_t n = (size_t)(left < c->wsize ? left : c->wsize);
			ssize_t w;

			FSB_TIME_CALL(t0, t1, w = write(fd, s->buf, n));
			/*
			 * A short write is not an error yet: the next call, for the rest, fails
			 * with the reason (ENOSPC, or EIO from a device that failed mid-request).
			 */
			if (w <= 0) {
				e = w < 0 ? errno : ENOSPC;
				r = thread_err(t, e, "writing", s->dirs[d], sub, c->subdirs, name);
				break;
			}
			fsb_record(t, OP_WRITE, t0, t1);
			left -= w;
			t->bytes += (uint64_t)w;
		}
		if (!r && per_file_sync) {
			FSB_TIME_CALL(t0, t1, e = c->fdatasync ? fdatasync(fd) : fsync(fd));
			if (e < 0)
				r = thread_err(t, errno, c->fdatasync ? "fdatasync of" : "fsync of",
					       s->dirs[d], sub, c->subdirs, name);
			else
				fsb_record(t, s->sync_op, t0, t1);
		}
		FSB_TIME_CALL(t0, t1, e = close(fd));
		if (!r && e < 0)
			r = thread_err(t, errno, "closing", s->dirs[d], sub, c->subdirs, name);
		if (r)
			break;
		fsb_record(t, OP_CLOSE, t0, t1);
		t->files++;
		atomic_store_explicit(&t->progress, t->total_files + t->files,
				      memory_order_relaxed);
	}

	if (r == -ENOSPC && c->fill) {
		/* -F: a full filesystem is the end of the run, not a failure */
		s->full = true;
		fsb_run_end(run);
		r = 0;
	}
	/* post-loop phases run on what was created, also when --runtime cut the loop short */
	if (!r && !fsb_run_failed(run) && st->created) {
		if (s->sync_bits & SF_SYNC_SYSCALL) {
			FSB_TIME_CALL(t0, t1, sync());
			fsb_record(t, OP_SYNC, t0, t1);
		}
		if (s->sync_bits & SF_POST_IN_ORDER)
			for (i = 0; i < t->files && !r; i++)
				r = post_fsync(t, loop, i);
		if (s->sync_bits & SF_POST_REVERSE)
			for (i = t->files; i > 0 && !r; i--)
				r = post_fsync(t, loop, i - 1);
		if ((s->sync_bits & SF_FIRST_FILE) && t->files && !r)
			r = post_fsync(t, loop, 0);
	}
	return r;
}

/*
 * After every worker's timed work of the loop (runner.c holds this back until then, so
 * one thread's unlinks never compete with another's creates inside files/s): removes the
 * files this thread created in the loop, unless they are kept. Every name is one that an
 * O_EXCL create of this run made. A file that cannot be removed does not stop the
 * others: how many stay behind, and where, is what the user needs.
 */
int smallfile_thread_after(struct fsb_thread *t, int loop)
{
	struct fsb_run *run = t->run;
	const struct smallfile_cfg *c = run->cfg;
	struct smallfile_state *s = state(run);
	struct smallfile_thread *st = t->priv;
	int d = t->id % s->ndirs, r = 0, first_e = 0;
	bool timed = !t->err && !fsb_run_failed(run);
	char name[MAX_NAME_LEN + 1], first[300] = "";
	uint64_t t0, t1, left = 0;

	if (c->keep)
		return 0;
	for (uint64_t i = 0; i < st->created; i++) {
		unsigned sub = st->subdir_of[i];
		int dfd = subdir_fd(t, sub, false), e;

		if (dfd < 0) {
			r = r ? r : dfd;
			left++;
			continue;
		}
		smallfile_name(name, global_number(run, t->id, loop, i), (int)c->name_len,
			       (int)c->rand_len, s->seed);
		FSB_TIME_CALL(t0, t1, e = unlinkat(dfd, name, 0));
		if (e < 0) {
			if (!left++) {
				first_e = errno;
				if (c->subdirs)
					snprintf(first, sizeof(first), "%02x/%s", sub, name);
				else
					snprintf(first, sizeof(first), "%s", name);
			}
			continue;
		}
		if (timed)
			fsb_record(t, OP_UNLINK, t0, t1);
	}
	if (left)
		atomic_fetch_add(&s->left, left);
	if (left && !r) {
		snprintf(t->errmsg, sizeof(t->errmsg),
			 "removing files: %llu of %llu left in %s (the first, %s: %s)",
			 (unsigned long long)left, (unsigned long long)st->created, s->dirs[d],
			 first, strerror(first_e));
		r = -first_e;
	}
	st->created = 0;
	return r;
}
