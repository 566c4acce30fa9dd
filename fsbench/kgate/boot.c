/* One boot in QEMU: its disks, its command line, the guest supervised to its end. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/dirfd.h"
#include "base/errf.h"
#include "base/fileio.h"
#include "base/signal.h"
#include "base/spawn.h"
#include "fsbench/kgate/kgate.h"
#include "fsbench/kgate/user.h"
#include "fsbench/kgate/util.h"
#include "probes/scratch/scratch.h"

void kg_vm_init(struct kg_vm *vm)
{
	memset(vm, 0, sizeof(*vm));
	vm->icount = "shift=0,sleep=on";
	vm->cpus = 1;
	vm->disk_dir_fd = -1;
}

void kg_vm_defaults(struct kg_vm *vm)
{
	kg_vm_init(vm);
	vm->qemu = "qemu-system-x86_64";
	vm->accel = "tcg";
	vm->cpu = "qemu64";
	vm->memory_mib = 1024;
	vm->disk_bytes = 2LL << 30;
	vm->disk = (struct kg_disk){ .kind = KG_DISK_VIRTIO,
				     .bytes = vm->disk_bytes,
				     .latency_ns = KG_DISK_LATENCY_NS,
				     .queue_depth = KG_DISK_QUEUE_DEPTH };
	vm->disk_dir = "/dev/shm";
	vm->boot_timeout_s = 180;
	vm->timeout_s = 1800;
}

/* CPU jiffies of the whole host: busy (not idle or iowait) and total. */
static void host_cpu(unsigned long long *busy, unsigned long long *total)
{
	unsigned long long v[10] = { 0 };
	FILE *f = fopen("/proc/stat", "re");

	*busy = *total = 0;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) >= 4) {
		for (int i = 0; i < 8; i++) /* guest time is already in user */
			*total += v[i];
		*busy = *total - v[3] - v[4];
	}
	fclose(f);
}

/* utime + stime of @pid in jiffies; 0 when gone. */
static unsigned long long proc_cpu(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		char *p = strrchr(buf, ')');
		/* after "pid (comm)": state is field 3, utime 14, stime 15 */
		if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
				&st) != 2)
			ut = st = 0;
	}
	fclose(f);
	return ut + st;
}

/*
 * Where @needle first is in @path at or after *@pos (less an overlap for a marker cut in
 * two), or -1; *@pos moves to what was read, so each watch tick reads only what is new.
 */
static off_t file_find(int fd, const char *needle, off_t *pos)
{
	char buf[65536];
	size_t nl = strlen(needle);
	off_t from = *pos > (off_t)nl ? *pos - (off_t)nl : 0, found = -1;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), from)) > 0) {
		char *m = memmem(buf, (size_t)n, needle, nl);

		*pos = from + n;
		if (m) {
			found = from + (m - buf);
			break;
		}
		if (n < (ssize_t)nl)
			break;
		from += n - (ssize_t)nl + 1;
	}
	return found;
}

/* A new sparse file @name of @bytes beneath @dfd, open read-write: its descriptor or -errno. */
static int sparse_file(int dfd, const char *name, long long bytes)
{
	int fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600), r;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, bytes)) {
		r = -errno;
		close(fd);
		unlinkat(dfd, name, 0);
		return r;
	}
	return fd;
}

/* A fresh random token for one boot: 16 bytes from getrandom, in hex. 0 or -errno. */
static int boot_token(char *out, size_t len)
{
	unsigned char raw[16];

	if (len < 2 * sizeof(raw) + 1)
		return -ENOSPC;
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return -errno;
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

/*
 * The per-boot initrd: the cached initramfs @ifd's bytes, then a newc archive of its own
 * holding etc/fsbench/token (the kernel unpacks concatenated archives in turn, each at a
 * 4-byte boundary), in a file without a name beneath @bdfd (O_TMPFILE, else made and
 * unlinked at once) of mode 0400, given to QEMU's own uid @u: the token is on no command
 * line (/proc/PID/cmdline is anyone's to read) and in no file another uid can open. Its
 * descriptor, or -errno.
 */
static int boot_initrd(int bdfd, int ifd, const char *token, const struct kg_user *u)
{
	static const char name[] = "etc/fsbench/token";
	char buf[65536];
	size_t tl = strlen(token) + 1, n = 0;
	off_t end;
	int fd, r = 0;

	fd = openat(bdfd, ".", O_RDWR | O_TMPFILE | O_CLOEXEC, 0400);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		fd = openat(bdfd, "initrd.tmp", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0400);
		if (fd >= 0)
			unlinkat(bdfd, "initrd.tmp", 0);
	}
	if (fd < 0)
		return -errno;
	/* in the kernel where it can (no copy through here), else by read and write */
	for (ssize_t c; (c = copy_file_range(ifd, NULL, fd, NULL, 1 << 30, 0)) != 0;)
		if (c < 0) {
			if (errno != EXDEV && errno != EINVAL && errno != ENOSYS &&
			    errno != EOPNOTSUPP) {
				r = -errno;
				goto out;
			}
			for (ssize_t got; (got = read(ifd, buf, sizeof(buf))) != 0;)
				if (got < 0 || write(fd, buf, (size_t)got) != got) {
					r = got < 0 ? -errno : -EIO;
					goto out;
				}
			break;
		}
	if ((end = lseek(fd, 0, SEEK_END)) < 0) {
		r = -errno;
		goto out;
	}
	memset(buf, 0, 512);
	n = (size_t)(-end & 3); /* zeros up to the next archive's boundary, which it skips */
	/* magic, ino mode uid gid nlink mtime filesize devmajor devminor rdevmajor rdevminor namesize check */
	n += (size_t)snprintf(buf + n, 256,
			      "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", 1u,
			      (unsigned)(S_IFREG | 0400), 0u, 0u, 1u, 0u, (unsigned)tl, 0u, 0u, 0u,
			      0u, (unsigned)sizeof(name), 0u);
	memcpy(buf + n, name, sizeof(name));
	n = (n + sizeof(name) + 3) & ~(size_t)3;
	snprintf(buf + n, tl + 1, "%s\n", token);
	n = (n + tl + 3) & ~(size_t)3;
	n += (size_t)snprintf(buf + n, 256,
			      "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", 0u, 0u,
			      0u, 0u, 1u, 0u, 0u, 0u, 0u, 0u, 0u, 11u, 0u);
	memcpy(buf + n, "TRAILER!!!", 11);
	n = (n + 11 + 3) & ~(size_t)3;
	if (write(fd, buf, n) != (ssize_t)n)
		r = errno ? -errno : -EIO;
	else if (u->drop && fchown(fd, u->uid, u->gid))
		r = -errno;
out:
	if (r) {
		close(fd);
		return r;
	}
	return fd;
}

/* The paths and QEMU arguments of one boot. */
struct boot_files {
	char scratchdir[PATH_MAX], scratch[PATH_MAX + 16], results[PATH_MAX + 16],
		qlog[PATH_MAX + 16], serial[PATH_MAX + 16], cmdline[KG_CMDLINE_MAX + 128],
		drive0[PATH_MAX + 96], drive1[PATH_MAX + 64], mem[32], smp[16];
	const char *argv[48];
	/*
	 * What QEMU gets by descriptor (-drive file=/dev/fd/N...): never a path to re-resolve,
	 * and an unprivileged QEMU opens these without any right to the directories above them.
	 */
	int fd[5], nfd, results_fd, scratch_fd, console_fd;
	/*
	 * The boot's directory and the scratch disk's, held from their mkdirat on: every file
	 * in them is made and read beneath these, and the console is watched through its own
	 * descriptor (-1: not open).
	 */
	int bdfd, sdfd, console_rfd;
	char scratchname[64], qlog_at[64];
	char kernel[32], initrd[32];
	/* QEMU runs as this user when fsbench is root (base_spawn's drop): kg_user_pick */
	struct kg_user user;
};

/* open(2) of what QEMU reads or writes: the descriptor or -errno. */
static int open_for_qemu(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

	return fd < 0 ? -errno : fd;
}

/* openat(2) of what QEMU writes, new beneath @dfd: the descriptor or -errno. */
static int create_for_qemu(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	return fd < 0 ? -errno : fd;
}

/* Keeps @fd (or -errno) for QEMU, given to its user when it is to write it; @fd, or -errno. */
static int qemu_fd(struct boot_files *f, int fd, bool writes)
{
	if (fd < 0)
		return fd;
	if (writes && f->user.drop && fchown(fd, f->user.uid, f->user.gid)) {
		int r = -errno;
		close(fd);
		return r;
	}
	f->fd[f->nfd++] = fd;
	return fd;
}

/* QEMU's command line: no defaults, no reboot, the kernel and initramfs, two raw disks. */
static void qemu_argv(const struct kg_kernel *k, const char *initramfs, const struct kg_vm *vm,
		      struct boot_files *f)
{
	const char **argv = f->argv;
	int n = 0;

	kg_cmdline(k, f->cmdline, sizeof(f->cmdline));
	if (vm->disk.kind == KG_DISK_MODEL) { /* the model's parameters, for the guest's /init */
		size_t l = strlen(f->cmdline);

		f->cmdline[l++] = ' ';
		kg_disk_cmdline(&vm->disk, f->cmdline + l, sizeof(f->cmdline) - l);
	}
	kg_cmdline_seed(f->cmdline, sizeof(f->cmdline));
	snprintf(f->drive0, sizeof(f->drive0),
		 "file=/dev/fd/%d,if=virtio,format=raw,cache=none,aio=native", f->scratch_fd);
	snprintf(f->drive1, sizeof(f->drive1), "file=/dev/fd/%d,if=virtio,format=raw",
		 f->results_fd);
	snprintf(f->mem, sizeof(f->mem), "%d", kg_disk_memory_mib(&vm->disk, vm->memory_mib));
	snprintf(f->smp, sizeof(f->smp), "%d", vm->cpus);
	static const char *const guest_opts[] = KG_QEMU_GUEST_OPTS;

	argv[n++] = vm->qemu;
	for (size_t i = 0; i < sizeof(guest_opts) / sizeof(guest_opts[0]); i++)
		argv[n++] = guest_opts[i];
	argv[n++] = "-no-user-config";
	argv[n++] = "-display";
	argv[n++] = "none";
	argv[n++] = "-sandbox"; /* QEMU's own seccomp filter */
	argv[n++] = "on";
	argv[n++] = "-accel";
	argv[n++] = vm->accel;
	if (vm->icount && vm->icount[0] && !strcmp(vm->accel, "tcg")) {
		argv[n++] = "-icount";
		argv[n++] = vm->icount;
	}
	argv[n++] = "-cpu";
	argv[n++] = vm->cpu;
	argv[n++] = "-smp";
	argv[n++] = f->smp;
	argv[n++] = "-m";
	argv[n++] = f->mem;
	(void)k;
	(void)initramfs; /* opened in kg_boot_run, given by descriptor */
	argv[n++] = "-kernel";
	argv[n++] = f->kernel;
	argv[n++] = "-initrd";
	argv[n++] = f->initrd;
	argv[n++] = "-append";
	argv[n++] = f->cmdline;
	argv[n++] = "-serial";
	argv[n++] = f->serial;
	if (vm->disk.kind == KG_DISK_VIRTIO) { /* the model lives in the guest */
		argv[n++] = "-drive";
		argv[n++] = f->drive0;
	}
	argv[n++] = "-drive";
	argv[n++] = f->drive1;
	argv[n] = NULL;
}

/* Journals @path (a "dir" or an "image") so that `fsbench restore` removes it after a kill -9. */
static int boot_journal(const struct kg_vm *vm, const char *what, const char *path, char *err,
			size_t errlen)
{
	if (!vm->scratch)
		return 0;
	return strcmp(what, "dir") ? probe_scratch_journal_file(vm->scratch, path, err, errlen) :
				     probe_scratch_journal_dir(vm->scratch, path, err, errlen);
}

/*
 * Makes the boot's directory @name beneath the work directory held as @wfd (new; @dir
 * names it), its scratch disk in a private directory beneath --disk-dir's descriptor, and
 * its results disk: all by descriptor, nothing re-resolved by name after its check.
 */
static int boot_disks(int wfd, const char *name, const char *dir, const struct kg_vm *vm,
		      struct kg_boot *b, struct boot_files *f, char *err, size_t errlen)
{
	char why[512];
	int r;

	if ((r = kg_qemu_path_ok("the boot directory", dir, err, errlen)) ||
	    (r = kg_qemu_path_ok("--disk-dir", vm->disk_dir, err, errlen)))
		return r;
	if (wfd < 0 || vm->disk_dir_fd < 0)
		return errf(err, errlen, -EBADF, "booting in %s: %s not held by descriptor", dir,
			    wfd < 0 ? "the work directory" : "--disk-dir");
	if ((r = f->bdfd = kg_dir_fresh_at(wfd, name, dir, err, errlen)) < 0)
		return r;
	snprintf(b->console, sizeof(b->console), "%s/console.log", dir);
	f->console_fd = qemu_fd(f, create_for_qemu(f->bdfd, "console.log"), true);
	if (f->console_fd < 0)
		return errf(err, errlen, f->console_fd, "creating %s: %s", b->console,
			    strerror(-f->console_fd));
	/* the watch reads what QEMU writes through a descriptor of its own */
	if ((f->console_rfd = openat(f->bdfd, "console.log", O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) <
	    0)
		return errf(err, errlen, -errno, "opening %s: %s", b->console, strerror(errno));
	snprintf(f->serial, sizeof(f->serial), "file:/dev/fd/%d", f->console_fd);
	snprintf(f->results, sizeof(f->results), "%s/results.img", dir);
	snprintf(f->qlog, sizeof(f->qlog), "%s/qemu.log", dir);
	kg_fd_path(f->qlog_at, sizeof(f->qlog_at), f->bdfd, "qemu.log");
	f->sdfd = base_dir_make_temp(vm->disk_dir_fd, "fsbench-kgate.", f->scratchname,
				     sizeof(f->scratchname), why, sizeof(why));
	if (f->sdfd < 0) {
		f->scratchname[0] = 0;
		return errf(err, errlen, f->sdfd, "creating the scratch disk's directory in %s: %s",
			    vm->disk_dir, why);
	}
	snprintf(f->scratchdir, sizeof(f->scratchdir), "%s/%s", vm->disk_dir, f->scratchname);
	snprintf(f->scratch, sizeof(f->scratch), "%s/scratch.img", f->scratchdir);
	/* a fresh sparse disk per boot: nothing carries over from the last kernel's run */
	if ((r = boot_journal(vm, "dir", f->scratchdir, err, errlen)))
		return r;
	if ((r = f->results_fd = qemu_fd(
		     f, sparse_file(f->bdfd, "results.img", KG_RESULTS_DISK_BYTES), true)) < 0)
		return errf(err, errlen, r, "creating the results disk %s: %s", f->results,
			    strerror(-r));
	if ((r = boot_journal(vm, "image", f->results, err, errlen)))
		return r;
	if (vm->disk.kind != KG_DISK_VIRTIO)
		return 0;
	if ((r = f->scratch_fd =
		     qemu_fd(f, sparse_file(f->sdfd, "scratch.img", vm->disk_bytes), true)) < 0)
		return errf(err, errlen, r, "creating the scratch disk %s: %s", f->scratch,
			    strerror(-r));
	return boot_journal(vm, "image", f->scratch, err, errlen);
}

/* What the supervision of one guest saw. */
struct boot_watch {
	struct kg_boot *b;
	int console; /* the console, read through its own descriptor */
	const struct kg_vm *vm;
	const struct kg_kernel *k;
	struct kg_watch w;
	double t0, deadline_boot, deadline;
	off_t seen_init, seen_start, seen_panic;
	unsigned long long qcpu;
	double cpu_at; /* when QEMU's CPU time last grew */
};

/* Bytes free for an unprivileged writer in the directory held as @dfd; -1 when unknown. */
static long long dir_free(int dfd)
{
	struct statvfs v;

	return fstatvfs(dfd, &v) ? -1 : (long long)v.f_bavail * (long long)v.f_frsize;
}

static void boot_progress(const struct kg_vm *vm, const struct kg_kernel *k,
			  const struct kg_boot *b, enum kg_stage stage)
{
	if (vm->progress)
		vm->progress(vm->progress_arg, k, b, stage);
}

/* Nothing on the console yet: a guest that has not said a word. */
static bool console_empty(int fd)
{
	struct stat st;

	return fstat(fd, &st) || st.st_size == 0;
}

/* Called while QEMU runs: the markers on the console, the deadlines, a stop signal. */
static int boot_watch(pid_t pid, void *arg)
{
	struct boot_watch *s = arg;
	double t = kg_now_s();
	unsigned long long c = proc_cpu(pid);

	if (c > s->qcpu || !s->cpu_at) {
		s->qcpu = c;
		s->cpu_at = t;
	}
	/*
	 * A guest QEMU paused (its scratch disk hit ENOSPC: werror=enospc stops the VM) costs
	 * no CPU at all, where a slow one under TCG always does: after KG_PAUSED_S without a
	 * jiffy it is paused, and a full --disk-dir says why.
	 */
	if (t - s->cpu_at > KG_PAUSED_S) {
		long long free_b = dir_free(s->vm->disk_dir_fd);

		s->w.paused = true;
		if (free_b >= 0 && free_b < KG_FULL_BYTES) {
			s->w.disk_full = true;
			return -ENOSPC;
		}
	} else
		s->w.paused = false;
	if (!s->w.init && file_find(s->console, MARK_INIT, &s->seen_init) >= 0) {
		s->w.init = true;
		s->b->init_seconds = t - s->t0;
		boot_progress(s->vm, s->k, s->b, KG_STAGE_INIT);
	}
	if (!s->w.started && file_find(s->console, MARK_START, &s->seen_start) >= 0) {
		s->w.started = true;
		s->b->boot_seconds = t - s->t0;
		boot_progress(s->vm, s->k, s->b, KG_STAGE_SUITE);
	}
	if (!strcmp(s->vm->accel, "kvm") && !s->w.init && t - s->t0 > KG_KVM_SILENT_S &&
	    console_empty(s->console)) {
		s->w.kvm_silent = true;
		return -ENODEV;
	}
	if (!s->w.panicked &&
	    (s->w.panic_at = file_find(s->console, MARK_PANIC, &s->seen_panic)) >= 0) {
		s->w.panicked = true;
		s->deadline = t + 5; /* panic=-1 and -no-reboot make QEMU exit; if not, stop it */
	}
	/* the guest writes the console: past its cap the boot ends, the host's disk is not its */
	struct stat cst;
	if (!fstat(s->console, &cst) && cst.st_size > KG_CONSOLE_MAX) {
		s->w.console_full = true;
		return -EFBIG;
	}
	if (base_signal_received)
		return -EINTR;
	if (s->w.panicked ? t > s->deadline :
			    (!s->w.started && t > s->deadline_boot) || t > s->deadline) {
		s->w.noboot = !s->w.started && !s->w.panicked;
		s->w.timed_out = !s->w.panicked;
		return -ETIMEDOUT;
	}
	return 0;
}

/* The host's load during the boot, from /proc/stat before and after, less QEMU's own. */
static void boot_load(struct kg_boot *b, unsigned long long busy0, unsigned long long total0,
		      unsigned long long qcpu)
{
	unsigned long long busy1, total1;
	double l[1];

	host_cpu(&busy1, &total1);
	if (total1 > total0) {
		double others = (double)(busy1 - busy0) - (double)qcpu;
		b->host_load_pct = others > 0 ? 100.0 * others / (double)(total1 - total0) : 0;
	}
	if (getloadavg(l, 1) == 1)
		b->loadavg1 = l[0];
}

int kg_boot_run(const struct kg_kernel *k, const char *initramfs, const struct kg_vm *vm, int wfd,
		const char *name, const char *dir, struct kg_boot *b, char *err, size_t errlen)
{
	struct boot_files *f = calloc(1, sizeof(*f));
	struct boot_watch s = { .b = b, .vm = vm, .k = k };
	unsigned long long busy0, total0;
	int r, wst = 0;

	memset(b, 0, sizeof(*b));
	b->guest_status = -1;
	if (!f)
		return errf(err, errlen, -ENOMEM, "booting %s: %s", k->release, strerror(ENOMEM));
	f->bdfd = f->sdfd = f->console_rfd = f->console_fd = -1;
	f->user.lock = -1;
	/* QEMU's own uid: no other boot, gate or daemon's process runs as it */
	if ((r = kg_user_claim(&f->user, err, errlen)))
		goto out;
	if ((r = boot_disks(wfd, name, dir, vm, b, f, err, errlen)))
		goto out;
	s.console = f->console_rfd;
	/* the kernel and initramfs, read by QEMU through descriptors root opened */
	const char *image = k->boot_image[0] ? k->boot_image : k->image;
	int kfd = qemu_fd(f, open_for_qemu(image, O_RDONLY), false);
	int ifd = kfd < 0 ? kfd : open_for_qemu(initramfs, O_RDONLY);
	if (kfd < 0 || ifd < 0) {
		r = errf(err, errlen, kfd < 0 ? kfd : ifd, "opening %s: %s",
			 kfd < 0 ? image : initramfs, strerror(-(kfd < 0 ? kfd : ifd)));
		goto out;
	}
	if ((r = boot_token(b->token, sizeof(b->token)))) {
		close(ifd);
		r = errf(err, errlen, r, "booting %s: getrandom: %s", k->release, strerror(-r));
		goto out;
	}
	/* the guest writes it back into its result: a result without it is not this boot's */
	r = qemu_fd(f, boot_initrd(f->bdfd, ifd, b->token, &f->user), false);
	close(ifd);
	if (r < 0) {
		r = errf(err, errlen, r, "writing the boot's initrd (%s and its token) in %s: %s",
			 initramfs, dir, strerror(-r));
		goto out;
	}
	snprintf(f->kernel, sizeof(f->kernel), "/dev/fd/%d", kfd);
	snprintf(f->initrd, sizeof(f->initrd), "/dev/fd/%d", r);
	qemu_argv(k, initramfs, vm, f);

	struct base_spawn sp = { .argv = (char *const *)f->argv,
				 .out = BASE_SPAWN_FILE,
				 .err = BASE_SPAWN_FILE,
				 .path = f->qlog_at, /* beneath the boot's descriptor */
				 .excl = true, /* in the boot's new directory */
				 .die_with_parent =
					 true, /* kill -9 of fsbench: no QEMU left behind */
				 .watch = boot_watch,
				 .watch_arg = &s,
				 .watch_ms = 200,
				 .keep_fds = f->fd,
				 .nkeep_fds = f->nfd,
				 .drop = f->user.drop,
				 .uid = f->user.uid,
				 .gid = f->user.gid };
	host_cpu(&busy0, &total0);
	s.t0 = kg_now_s();
	b->wall_start = (long long)time(NULL);
	s.deadline_boot = s.t0 + vm->boot_timeout_s;
	s.deadline = s.t0 + vm->timeout_s;
	r = base_spawn_run(&sp, &wst);
	/* what QEMU (or a guest out of it) left running ends before its disks are read */
	kg_user_kill(&f->user);
	if (r == -ENOSPC && s.w.disk_full) {
		r = errf(err, errlen, -ENOSPC,
			 "kernel %s: QEMU paused the guest after %.0f s: --disk-dir %s is full "
			 "(%lld bytes free), the scratch disk could not grow",
			 k->release, kg_now_s() - s.t0, vm->disk_dir, dir_free(vm->disk_dir_fd));
		goto out;
	}
	if (r == -EFBIG && s.w.console_full) {
		r = errf(
			err, errlen, -EFBIG,
			"kernel %s: its console passed %lld MiB after %.0f s: stopped, cannot judge "
			"(see %s)",
			k->release, KG_CONSOLE_MAX >> 20, kg_now_s() - s.t0, b->console);
		goto out;
	}
	if (r == -ENODEV && s.w.kvm_silent) {
		r = errf(err, errlen, -ENODEV,
			 "kernel %s: the KVM guest printed nothing on the console within %d s "
			 "(/dev/kvm opens, but the guest does not run): KVM cannot run guests on "
			 "this host; --accel tcg runs them in QEMU's emulator",
			 k->release, KG_KVM_SILENT_S);
		goto out;
	}
	if (r == -EINTR) {
		r = errf(err, errlen, -EINTR, "kernel %s: stopped by signal %d after %.0f s",
			 k->release, (int)base_signal_received, kg_now_s() - s.t0);
		goto out;
	}
	if (r && r != -ETIMEDOUT) {
		r = errf(err, errlen, -ENOEXEC, "running %s: %s", vm->qemu, strerror(-r));
		goto out;
	}
	b->seconds = kg_now_s() - s.t0;
	b->wall_end = (long long)time(NULL);
	boot_load(b, busy0, total0, s.qcpu);
	if (!s.w.started && file_find(f->console_rfd, MARK_START, &s.seen_start) >= 0) {
		s.w.started = true;
		b->boot_seconds = b->seconds;
	}
	if (!s.w.panicked &&
	    (s.w.panic_at = file_find(f->console_rfd, MARK_PANIC, &s.seen_panic)) >= 0)
		s.w.panicked = true;
	boot_progress(vm, k, b, KG_STAGE_DONE);

	/* whatever happened, the guest may have left its results on the second disk */
	if ((r = kg_results_collect(f->bdfd, dir, b, err, errlen)))
		goto out;
	if (b->guest_status < 0 || s.w.panicked)
		r = kg_boot_explain(k, vm, b, &s.w, wst, f->console_rfd, f->qlog_at, err, errlen);
out:
	/* QEMU is gone: what it wrote is root's again before its uid may go to another */
	if (f->user.drop && f->console_fd >= 0 && fchown(f->console_fd, 0, 0) && !r)
		r = errf(err, errlen, -errno, "chown %s: %s", b->console, strerror(errno));
	for (int i = 0; i < f->nfd; i++)
		close(f->fd[i]);
	if (f->bdfd >= 0)
		unlinkat(f->bdfd, "results.img", 0);
	if (f->scratchname[0])
		base_rm_at(vm->disk_dir_fd, f->scratchname);
	for (int i = 0, *fds[] = { &f->bdfd, &f->sdfd, &f->console_rfd }; i < 3; i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
	kg_user_release(&f->user);
	free(f);
	return r;
}

double kg_eta_update(struct kg_eta *e, const struct kg_boot *b, enum kg_stage stage, double now)
{
	double slot[KG_ETA_RUNNING] = { 0 }, mean, left = 0;
	int i, jobs = e->jobs < 1 ? 1 : e->jobs > KG_ETA_RUNNING ? KG_ETA_RUNNING : e->jobs, todo;

	for (i = 0; i < e->nrun && e->run[i].b != b; i++)
		;
	if (stage == KG_STAGE_DONE) {
		e->done++;
		e->took += b->seconds;
		if (i < e->nrun)
			e->run[i] = e->run[--e->nrun];
	} else if (i == e->nrun && e->nrun < KG_ETA_RUNNING) {
		/* its start: QEMU's, which @b's times count from */
		e->run[e->nrun].b = b;
		e->run[e->nrun++].start =
			now - (stage == KG_STAGE_INIT ? b->init_seconds : b->boot_seconds);
	}
	if (!e->done)
		return -1;
	mean = e->took / e->done;
	for (i = 0; i < e->nrun && i < jobs; i++) /* those under way end at the mean */
		slot[i] = fmax(mean - (now - e->run[i].start), 0);
	todo = e->total - e->done - e->nrun;
	while (todo-- > 0) { /* each next boot takes the slot that frees first */
		int first = 0;

		for (i = 1; i < jobs; i++)
			if (slot[i] < slot[first])
				first = i;
		slot[first] += mean;
	}
	for (i = 0; i < jobs; i++)
		left = fmax(left, slot[i]);
	return left;
}
