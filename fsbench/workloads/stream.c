/* The dd-like streaming workload: one sequential writer per file, with or without write-behind. */
#include "base/errf.h"
#include "fsbench/workloads/stream.h"
#include "fsbench/core/clock.h"
#include "fsbench/core/dirs.h"
#include "fsbench/core/workload.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

enum stream_mode {
	SM_BUFFERED,
	SM_FDATASYNC,
	SM_WRITEBEHIND,
	SM_WRITEBEHIND_DONTNEED,
	SM_FADVISE,
	SM_FSYNC_EACH,
	SM_OSYNC,
	SM_ODIRECT,
};

static const char *const stream_modes[] = {
	"buffered", "fdatasync", "writebehind", "writebehind-dontneed", "fadvise", "fsync-each",
	"osync",    "odirect",	 NULL,
};

/* write() moves at most 0x7ffff000 bytes per call; 1 GiB keeps one chunk one call. */
#define MAX_CHUNK (INT64_C(1) << 30)

struct stream_cfg {
	struct fsb_common common;
	int64_t threads, size, chunk;
	int mode;
	bool keep;
};

#define O(f) offsetof(struct stream_cfg, f)
static const struct fsb_opt stream_opts[] = {
	{ .name = "threads",
	  .short_name = 't',
	  .type = OPT_INT,
	  .offset = O(threads),
	  .min = 1,
	  .max = FSB_MAX_THREADS,
	  .def = "1",
	  .unit = "threads",
	  .help = "writers, one file each (a multiple of the number of -d directories)" },
	{ .name = "size",
	  .short_name = 's',
	  .type = OPT_SIZE,
	  .offset = O(size),
	  .max = INT64_C(1) << 50,
	  .def = "1G",
	  .unit = "bytes",
	  .help = "bytes each thread writes; 0: until --runtime" },
	{ .name = "chunk",
	  .type = OPT_SIZE,
	  .offset = O(chunk),
	  .min = 512,
	  .max = MAX_CHUNK,
	  .def = "8M",
	  .unit = "bytes",
	  .help = "bytes per write() call, and the unit of write-behind" },
	{ .name = "mode",
	  .type = OPT_ENUM,
	  .offset = O(mode),
	  .def = "buffered",
	  .help = "buffered: write() only; fdatasync: one fdatasync at the end; writebehind: after chunk i, "
		  "sync_file_range(i, WRITE) and sync_file_range(i-1, WAIT_BEFORE|WRITE|WAIT_AFTER), fdatasync at "
		  "the end; writebehind-dontneed: also posix_fadvise(DONTNEED) on each chunk once on disk; fadvise: "
		  "posix_fadvise(i-1, DONTNEED) and sync_file_range(i-1, WAIT_AFTER), fdatasync at the end; "
		  "fsync-each: fdatasync after every chunk; osync: O_SYNC writes; odirect: O_DIRECT writes, "
		  "fdatasync at the end",
	  .choices = stream_modes },
	{ .name = "keep",
	  .short_name = 'k',
	  .type = OPT_BOOL,
	  .offset = O(keep),
	  .max = 1,
	  .help = "keep the files after the run" },
	{ 0 },
};
#undef O

struct stream_state {
	uint64_t size; /* per thread; STREAM_UNBOUNDED with --size 0 */
	uint64_t chunk;
	uint64_t nchunks;
	char *buf; /* one chunk, aligned for O_DIRECT, shared read-only by the writers */
	struct fsb_dirs top; /* the -d directories, open (made when missing) */
	int *dir_fds; /* top.fd */
	int ndirs;
};

struct stream_thread {
	int fd;
	bool created; /* we made the file: we may remove it */
	char name[64];
};

uint64_t stream_nchunks(uint64_t size, uint64_t chunk)
{
	if (!chunk)
		return 0;
	if (size == STREAM_UNBOUNDED)
		return UINT64_MAX;
	return size / chunk + (size % chunk != 0);
}

int stream_chunk(uint64_t size, uint64_t chunk, uint64_t i, struct stream_range *ret)
{
	uint64_t off, len;

	if (!chunk || i > (uint64_t)INT64_MAX / chunk)
		return -ERANGE;
	off = i * chunk;
	if (off > (uint64_t)INT64_MAX - chunk)
		return -ERANGE;
	len = chunk;
	if (size != STREAM_UNBOUNDED) {
		if (off >= size)
			return -ERANGE;
		if (size - off < chunk)
			len = size - off;
	}
	ret->off = off;
	ret->len = len;
	return 0;
}

static int stream_nthreads(const void *cfg)
{
	const struct stream_cfg *c = cfg;

	return fsb_dirs_nthreads(&c->common, c->threads);
}

/* Names the filesystems that have no block device behind them, for plain error messages. */
static const char *fs_name(int dir_fd)
{
	struct statfs sf;

	if (fstatfs(dir_fd, &sf) < 0)
		return "the filesystem";
	switch ((unsigned long)sf.f_type) {
	case TMPFS_MAGIC:
		return "tmpfs";
	case OVERLAYFS_SUPER_MAGIC:
		return "overlayfs";
	case NFS_SUPER_MAGIC:
		return "nfs";
	default:
		return "the filesystem";
	}
}

/* The logical block size of the device under @fd (BLKSSZGET), or 0 when there is none. */
static uint64_t device_block_size(int fd)
{
	struct stat st;
	char path[64];
	int dev, lbs = 0;

	if (fstat(fd, &st) < 0 || major(st.st_dev) == 0)
		return 0;
	snprintf(path, sizeof(path), "/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	dev = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (dev < 0)
		return 0;
	if (ioctl(dev, BLKSSZGET, &lbs) < 0)
		lbs = 0;
	close(dev);
	return lbs > 0 ? (uint64_t)lbs : 0;
}

/*
 * How O_DIRECT I/O must be aligned in directory @dfd (@dir for messages), asked of the
 * filesystem on an unnamed O_TMPFILE so that nothing is created: statx(STATX_DIOALIGN)
 * where the kernel answers, else the device's logical block size, else st_blksize.
 * -EINVAL with @err set when the filesystem refuses O_DIRECT.
 */
static int dio_alignment(int dfd, const char *dir, uint64_t *ret_off, uint64_t *ret_mem, char *err,
			 size_t errlen)
{
	uint64_t off = 0, mem = 0;
	struct stat st;
	int fd, e;

	fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);
	if (fd < 0) {
		e = errno;
		if (e == EINVAL) {
			int plain = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);

			if (plain >= 0) {
				close(plain);
				return errf(err, errlen, -EINVAL,
					    "--mode odirect: %s refuses O_DIRECT in %s: %s",
					    fs_name(dfd), dir, strerror(e));
			}
		}
		/* no O_TMPFILE here: creating the real file will tell whether O_DIRECT works */
		if (fstat(dfd, &st) < 0) {
			e = errno;
			return errf(err, errlen, -e, "--mode odirect: examining %s: %s", dir,
				    strerror(e));
		}
		off = device_block_size(dfd);
		*ret_off = off ? off : (uint64_t)st.st_blksize;
		*ret_mem = *ret_off;
		return 0;
	}
#ifdef STATX_DIOALIGN
	{
		struct statx stx;

		if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
		    (stx.stx_mask & STATX_DIOALIGN)) {
			if (!stx.stx_dio_offset_align) {
				close(fd);
				return errf(err, errlen, -EINVAL,
					    "--mode odirect: %s refuses O_DIRECT in %s",
					    fs_name(dfd), dir);
			}
			off = stx.stx_dio_offset_align;
			mem = stx.stx_dio_mem_align;
		}
	}
#endif
	if (!off)
		off = device_block_size(fd);
	if (!off && fstat(fd, &st) == 0)
		off = (uint64_t)st.st_blksize;
	close(fd);
	*ret_off = off ? off : 4096;
	*ret_mem = mem ? mem : *ret_off;
	return 0;
}

static int stream_init(struct fsb_run *run, char *err, size_t errlen)
{
	struct stream_cfg *c = run->cfg;
	struct stream_state *s;
	int nd = c->common.dirs.n, flags, r;
	uint64_t off_align = 1, mem_align = 1;
	size_t buf_align;
	long page = sysconf(_SC_PAGESIZE);

	r = fsb_dirs_check_threads(&c->common, c->threads, "--threads", err, errlen);
	if (r < 0)
		return r;
	if (c->size == 0 && c->common.runtime_ns == 0)
		return errf(err, errlen, -EINVAL,
			    "--size 0 means until --runtime, and no --runtime was given");
	if (c->size && c->size < c->chunk)
		return errf(err, errlen, -EINVAL,
			    "--size: %" PRId64
			    " bytes per thread are less than one chunk (--chunk %" PRId64 ")",
			    c->size, c->chunk);

	s = calloc(1, sizeof(*s));
	if (!s)
		return errf(err, errlen, -ENOMEM, "allocating run state: %s", strerror(ENOMEM));
	run->priv = s;
	s->size = c->size ? (uint64_t)c->size : STREAM_UNBOUNDED;
	s->chunk = (uint64_t)c->chunk;
	s->nchunks = stream_nchunks(s->size, s->chunk);
	s->ndirs = nd;
	r = fsb_dirs_open(&s->top, &c->common, err, errlen);
	s->dir_fds = s->top.fd;
	if (r < 0)
		return r;
	for (int d = 0; d < nd; d++) {
		const char *dir = c->common.dirs.v[d];

		if (c->mode == SM_ODIRECT) {
			uint64_t o, m;
			int r = dio_alignment(s->dir_fds[d], dir, &o, &m, err, errlen);

			if (r < 0)
				return r;
			if ((uint64_t)c->chunk % o)
				return errf(err, errlen, -EINVAL,
					    "--chunk: %" PRId64
					    " bytes is not a multiple of %" PRIu64
					    ", the O_DIRECT alignment (logical block size) in %s",
					    c->chunk, o, dir);
			if (s->size != STREAM_UNBOUNDED && s->size % o)
				return errf(err, errlen, -EINVAL,
					    "--size: %" PRIu64
					    " bytes is not a multiple of %" PRIu64
					    ", the O_DIRECT alignment (logical block size) in %s",
					    s->size, o, dir);
			off_align = o > off_align ? o : off_align;
			mem_align = m > mem_align ? m : mem_align;
		}
	}

	buf_align = (size_t)(page > 0 ? page : 4096);
	while (buf_align < mem_align)
		buf_align <<= 1;
	if (posix_memalign((void **)&s->buf, buf_align, (size_t)s->chunk))
		return errf(err, errlen, -ENOMEM, "allocating a %" PRIu64 "-byte write buffer: %s",
			    s->chunk, strerror(ENOMEM));
	/* not zeros: compressing or deduplicating filesystems must write what dd would */
	for (uint64_t i = 0, x = (uint64_t)getpid(); i + 8 <= s->chunk; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(s->buf + i, &x, 8);
	}

	flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
	if (c->mode == SM_OSYNC)
		flags |= O_SYNC;
	if (c->mode == SM_ODIRECT)
		flags |= O_DIRECT;
	for (int i = 0; i < run->nthreads; i++) {
		struct stream_thread *st = calloc(1, sizeof(*st));
		int d = i % nd, e;

		if (!st)
			return errf(err, errlen, -ENOMEM, "allocating thread %d: %s", i,
				    strerror(ENOMEM));
		st->fd = -1;
		run->threads[i].priv = st;
		snprintf(st->name, sizeof(st->name), "fsbench-stream.%d.%d", (int)getpid(), i);
		st->fd = openat(s->dir_fds[d], st->name, flags, 0644);
		if (st->fd < 0) {
			e = errno;
			/*
			 * A filesystem without O_DIRECT fails the open after creating the file; O_EXCL
			 * says nobody else had that name, so it is ours to remove.
			 */
			if (e == EINVAL && c->mode == SM_ODIRECT) {
				unlinkat(s->dir_fds[d], st->name, 0);
				return errf(err, errlen, -EINVAL,
					    "--mode odirect: %s refuses O_DIRECT in %s: %s",
					    fs_name(s->dir_fds[d]), c->common.dirs.v[d],
					    strerror(e));
			}
			return errf(err, errlen, -e, "creating %s/%s: %s", c->common.dirs.v[d],
				    st->name, strerror(e));
		}
		st->created = true;
	}
	run->expected_units = s->size == STREAM_UNBOUNDED ? 0 : s->size * (uint64_t)run->nthreads;
	return 0;
}

static int thread_err(struct fsb_thread *t, int e, const char *what, uint64_t off)
{
	const struct stream_cfg *c = t->run->cfg;
	const struct stream_thread *st = t->priv;

	snprintf(t->errmsg, sizeof(t->errmsg), "%s %s/%s at offset %" PRIu64 ": %s", what,
		 c->common.dirs.v[t->id % c->common.dirs.n], st->name, off, strerror(e));
	return -e;
}

/* Each of these times exactly one system call and records it; 0 or -errno. */
static int timed_sfr(struct fsb_thread *t, int fd, const struct stream_range *r, unsigned flags)
{
	uint64_t t0, t1;
	int ret;

	FSB_TIME_CALL(t0, t1, ret = sync_file_range(fd, (off_t)r->off, (off_t)r->len, flags));
	if (ret < 0)
		return thread_err(t, errno, "sync_file_range of", r->off);
	fsb_record(t, OP_SYNC_FILE_RANGE, t0, t1);
	return 0;
}

static int timed_dontneed(struct fsb_thread *t, int fd, const struct stream_range *r)
{
	uint64_t t0, t1;
	int ret;

	FSB_TIME_CALL(t0, t1,
		      ret = posix_fadvise(fd, (off_t)r->off, (off_t)r->len, POSIX_FADV_DONTNEED));
	if (ret)
		return thread_err(t, ret, "posix_fadvise(DONTNEED) of", r->off);
	fsb_record(t, OP_FADVISE, t0, t1);
	return 0;
}

static int timed_fdatasync(struct fsb_thread *t, int fd, uint64_t end)
{
	uint64_t t0, t1;
	int ret;

	FSB_TIME_CALL(t0, t1, ret = fdatasync(fd));
	if (ret < 0)
		return thread_err(t, errno, "fdatasync of", end);
	fsb_record(t, OP_FDATASYNC, t0, t1);
	return 0;
}

#define SFR_WAIT_ALL \
	(SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER)

/* What follows the write of chunk @cur (@prev is chunk i-1, NULL for the first). */
static int after_write(struct fsb_thread *t, int mode, int fd, const struct stream_range *cur,
		       const struct stream_range *prev)
{
	int r = 0;

	switch (mode) {
	case SM_WRITEBEHIND:
	case SM_WRITEBEHIND_DONTNEED:
		r = timed_sfr(t, fd, cur, SYNC_FILE_RANGE_WRITE);
		if (!r && prev)
			r = timed_sfr(t, fd, prev, SFR_WAIT_ALL);
		if (!r && prev && mode == SM_WRITEBEHIND_DONTNEED)
			r = timed_dontneed(t, fd, prev);
		break;
	case SM_FADVISE:
		if (prev) {
			r = timed_dontneed(t, fd, prev);
			if (!r)
				r = timed_sfr(t, fd, prev, SYNC_FILE_RANGE_WAIT_AFTER);
		}
		break;
	case SM_FSYNC_EACH:
		r = timed_fdatasync(t, fd, cur->off + cur->len);
		break;
	default:
		break;
	}
	return r;
}

/* After the last chunk @last (NULL when none was written): make the file durable where the mode says so. */
static int after_loop(struct fsb_thread *t, int mode, int fd, const struct stream_range *last)
{
	uint64_t end = last ? last->off + last->len : 0;
	int r = 0;

	switch (mode) {
	case SM_FADVISE:
		/* the loop handles chunk i-1; the last chunk gets the same pair here */
		if (last) {
			r = timed_dontneed(t, fd, last);
			if (!r)
				r = timed_sfr(t, fd, last, SYNC_FILE_RANGE_WAIT_AFTER);
		}
		if (!r)
			r = timed_fdatasync(t, fd, end);
		break;
	case SM_WRITEBEHIND_DONTNEED:
		r = timed_fdatasync(t, fd, end);
		if (!r && last)
			r = timed_dontneed(t, fd, last);
		break;
	case SM_FDATASYNC:
	case SM_WRITEBEHIND:
	case SM_ODIRECT:
		r = timed_fdatasync(t, fd, end);
		break;
	default:
		break;
	}
	return r;
}

static int stream_thread(struct fsb_thread *t, int loop)
{
	struct fsb_run *run = t->run;
	const struct stream_cfg *c = run->cfg;
	const struct stream_state *s = run->priv;
	const struct stream_thread *st = t->priv;
	struct stream_range cur, prev = { 0, 0 };
	uint64_t i, t0, t1, done;
	int r = 0, fd = st->fd;

	(void)loop;
	for (i = 0; i < s->nchunks && !fsb_should_stop(run); i++) {
		ssize_t w;

		r = stream_chunk(s->size, s->chunk, i, &cur);
		if (r < 0) {
			r = thread_err(t, EFBIG, "writing", i * s->chunk);
			break;
		}
		/*
		 * A short write is not an error yet: the next call, for the rest of the chunk,
		 * fails with the reason (ENOSPC, or EIO from a device that failed mid-request).
		 */
		for (done = 0; done < cur.len;) {
			FSB_TIME_CALL(t0, t1,
				      w = pwrite(fd, s->buf + done, (size_t)(cur.len - done),
						 (off_t)(cur.off + done)));
			if (w <= 0) {
				r = thread_err(t, w < 0 ? errno : ENOSPC, "writing",
					       cur.off + done);
				break;
			}
			fsb_record(t, OP_WRITE, t0, t1);
			done += (uint64_t)w;
			t->bytes += (uint64_t)w;
			atomic_store_explicit(&t->progress, t->total_bytes + t->bytes,
					      memory_order_relaxed);
		}
		if (r)
			break;
		r = after_write(t, c->mode, fd, &cur, i ? &prev : NULL);
		if (r)
			break;
		prev = cur;
	}
	/* a --runtime stop still ends with the mode's final sync: it is part of the work */
	if (!r && !fsb_run_failed(run))
		r = after_loop(t, c->mode, fd, i ? &prev : NULL);
	t->t_end = fsb_now_ns();
	if (!r)
		t->files = 1;
	return r;
}

static void stream_fini(struct fsb_run *run)
{
	const struct stream_cfg *c = run->cfg;
	struct stream_state *s = run->priv;

	if (!s)
		return;
	if (run->threads)
		for (int i = 0; i < run->nthreads; i++) {
			struct stream_thread *st = run->threads[i].priv;

			if (!st)
				continue;
			if (st->fd >= 0)
				close(st->fd);
			if (st->created && !c->keep)
				unlinkat(s->dir_fds[i % s->ndirs], st->name, 0);
			free(st);
			run->threads[i].priv = NULL;
		}
	fsb_dirs_close(&s->top, &c->common);
	free(s->buf);
	free(s);
	run->priv = NULL;
}

static void stream_summary_json(const struct fsb_run *run, json_t *summary)
{
	stream_report_json(run, summary);
}

static void stream_print_end(const struct fsb_run *run, FILE *out)
{
	const struct stream_cfg *c = run->cfg;

	stream_report_print(run, stream_modes[c->mode], c->chunk, out);
}

const struct fsb_workload fsb_wl_stream = {
	.name = "stream",
	.summary =
		"dd-like sequential writers, one file per thread, with or without sync_file_range write-behind",
	.opts = stream_opts,
	.cfg_size = sizeof(struct stream_cfg),
	.unit = MDL_UNIT_BYTES,
	.ops = OP_BIT(OP_WRITE) | OP_BIT(OP_SYNC_FILE_RANGE) | OP_BIT(OP_FADVISE) |
	       OP_BIT(OP_FDATASYNC),
	.init = stream_init,
	.thread = stream_thread,
	.fini = stream_fini,
	.summary_json = stream_summary_json,
	.print_end = stream_print_end,
	.nthreads = stream_nthreads,
};
