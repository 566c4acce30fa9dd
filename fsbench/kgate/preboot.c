/* The step before the first boot (preboot.h), shared by kernel-gate, kernel-run and the job writers. */
#include "fsbench/kgate/preboot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "base/dirfd.h"
#include "base/errf.h"
#include "base/escape.h"
#include "base/fileio.h"
#include "base/url.h"
#include "fsbench/kgate/fetch.h"
#include "fsbench/kgate/pvh.h"
#include "fsbench/kgate/util.h"
#include "fsbench/suite/suite.h"
#include "report/compare.h"

/*
 * The filesystem types the guest needs: the suite's, narrowed by --fs as the guest's suite
 * will narrow them (suite.h), @threads checked as it will check them. The count, or -errno
 * with @err.
 */
static int suite_fstypes(const char *path, const char *fs, const char *threads, char store[][32],
			 const char **out, int64_t *ret_image_size, char *err, size_t errlen)
{
	struct suite su;
	int n = 0, r;

	r = suite_load(&su, path, err, errlen);
	if (!r && fs)
		r = suite_select_fs(&su, fs, err, errlen);
	/* the guest's suite would refuse a bad --threads only after a whole boot */
	if (!r && threads)
		r = suite_set_threads(&su, threads, err, errlen);
	if (r) {
		suite_free(&su);
		return r;
	}
	for (int i = 0; i < su.nfs; i++) {
		bool seen = false;

		for (int j = 0; j < n; j++)
			seen |= !strcmp(store[j], su.fs[i].type);
		if (seen)
			continue;
		if (n == KG_MAX_FS) {
			suite_free(&su);
			return errf(err, errlen, -E2BIG, "suite %s: more than %d filesystem types",
				    path, KG_MAX_FS);
		}
		base_strcpy(store[n], 32, su.fs[i].type);
		out[n] = store[n];
		n++;
	}
	out[n] = NULL;
	*ret_image_size = su.image_size;
	suite_free(&su);
	return n;
}

/* The suite's path and filesystems, and the arguments its guest run gets. */
static int prepare_suite(struct kg_ctx *x, char *err, size_t errlen)
{
	const char *name = x->a.suite ? x->a.suite : KG_DEFAULT_SUITE;
	int64_t image_size = 0;
	int n = 0, r;

	r = suite_find(name, x->suite, sizeof(x->suite));
	if (!r && access(x->suite, R_OK))
		r = -errno;
	if (r)
		return errf(err, errlen, r, "suite %s: %s", name,
			    r == -ENOENT ? "no such file, nor a suite of that name in configs/" :
					   strerror(-r));
	r = suite_fstypes(x->suite, x->a.fs, x->a.threads, x->fsstore, x->fstypes, &image_size, err,
			  errlen);
	if (r < 0)
		return r;
	/* the model holds the suite's data in guest memory: refused here, before any boot */
	if ((r = kg_disk_fits(&x->a.vm.disk, x->a.vm.memory_mib, x->a.jobs, image_size, err,
			      errlen)))
		return r;
	if (x->a.repetitions) {
		snprintf(x->reps, sizeof(x->reps), "%lld", (long long)x->a.repetitions);
		x->suite_args[n++] = "--repetitions";
		x->suite_args[n++] = x->reps;
	}
	if (x->a.fs) {
		x->suite_args[n++] = "--fs";
		x->suite_args[n++] = x->a.fs;
	}
	if (x->a.threads) {
		x->suite_args[n++] = "--threads";
		x->suite_args[n++] = x->a.threads;
	}
	x->suite_args[n] = NULL;
	return 0;
}

/* Kernel @i's extra command line, joined; refused when the kernel would cut it. */
static int prepare_append(struct kg_ctx *x, int i, const char *label, char *err, size_t errlen)
{
	char cl[KG_CMDLINE_MAX + 128];
	int n = snprintf(x->k[i].append, sizeof(x->k[i].append), "%s%s%s",
			 x->a.common_append ? x->a.common_append : "",
			 x->a.common_append && x->a.append[i] ? " " : "",
			 x->a.append[i] ? x->a.append[i] : "");
	int total = kg_cmdline(&x->k[i], cl, sizeof(cl));

	/* the model disk's words go on it too (boot.c) */
	kg_disk_cmdline(&x->a.vm.disk, cl, sizeof(cl));
	if (cl[0])
		total += 1 + (int)strlen(cl);
	total += KG_TOKEN_WORD_LEN; /* each boot's own token (boot.c) */

	if (n >= (int)sizeof(x->k[i].append) || total >= KG_CMDLINE_MAX)
		return errf(err, errlen, -E2BIG,
			    "%s: the kernel command line would be %d bytes with --append: the "
			    "kernel keeps %d and would drop the rest without a word",
			    label, n >= (int)sizeof(x->k[i].append) ? n + 64 : total,
			    KG_CMDLINE_MAX - 1);
	return 0;
}

/*
 * Kernel @i's URL fetched into the work directory (made before the kernels for it), once:
 * @path the file, which resolves as if the user had named it; the URL and the file's
 * SHA-256 kept in x->k[i] for the records. A fetch that failed cannot judge, as a kernel
 * that does not resolve.
 */
static int fetch_kernel(struct kg_ctx *x, int i, const char *label, char *path, size_t len,
			char *shown, size_t shownlen, char *err, size_t errlen)
{
	struct kg_kernel *k = &x->k[i];
	struct kg_fetched f;
	char why[2048];
	int fd = x->workdir_fd, r;

	if (fd < 0) {
		if (x->fetch_fd < 0 &&
		    (x->fetch_fd = open(x->workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			return errf(err, errlen, -errno, "%s: %s: %s", label, x->workdir,
				    strerror(errno));
		fd = x->fetch_fd;
	}
	if ((r = kg_fetch(fd, x->a.url[i], label, KG_FETCH_MAX, &f, why, sizeof(why))))
		return errf(err, errlen, r, "%s: %s", label, why);
	base_strcpy(k->url, sizeof(k->url), x->a.url[i]);
	base_strcpy(k->sha256, sizeof(k->sha256), f.sha256);
	/* resolved beneath the directory held, not by its name again; @shown for the user */
	if ((r = kg_fd_path(path, len, fd, f.name)) ||
	    (r = base_path(shown, shownlen, "%s/%s", x->workdir, f.name)))
		return errf(err, errlen, r, "%s: %s/%s: %s", label, x->workdir, f.name,
			    strerror(-r));
	return 0;
}

/* Kernel @i resolved, its command line joined, its initramfs built. */
static int prepare_kernel(struct kg_ctx *x, int i, int nk, const char *cachedir,
			  enum kg_prepare_fail *ret_fail, char *err, size_t errlen)
{
	const char *label = nk > 1 ? (i ? "candidate" : "baseline") : "kernel";
	struct kg_initramfs_opts io = { .kernel = &x->k[i],
					.suite = x->suite,
					.suite_args = x->suite_args,
					.fstypes = x->fstypes,
					.cachedir = cachedir,
					.shell_disk = x->needs.shell_disk,
					.flush_delay = kg_disk_flush_delayed(&x->a.vm.disk) };
	char why[3072] = "", fetched[PATH_MAX], shown[PATH_MAX], from[1200] = "";
	int r;

	if ((r = prepare_append(x, i, label, err, errlen)))
		return r;
	if (x->a.url[i]) {
		*ret_fail = KG_PREPARE_KERNEL;
		if ((r = fetch_kernel(x, i, label, fetched, sizeof(fetched), shown, sizeof(shown),
				      err, errlen)))
			return r;
		snprintf(from, sizeof(from), " (%s, sha256 %s)", x->k[i].url, x->k[i].sha256);
	}
	r = kg_kernel_resolve(x->a.url[i] ? fetched : x->a.spec[i], x->a.modules[i], cachedir,
			      x->a.vm.scratch, &x->k[i], why, sizeof(why));
	if (x->a.url[i]) {
		kg_err_shown(why, sizeof(why), fetched, shown);
		base_strcpy(x->k[i].spec, sizeof(x->k[i].spec), shown);
		/* a bzImage is opened by the held path (pvh, LAVA's copy); a .deb's is the cache's */
		if (!r && !x->k[i].image_at[0])
			base_strcpy(x->k[i].image_at, sizeof(x->k[i].image_at), fetched);
	}
	if (r) {
		/* a name that names nothing, a directory, a cache another user could write */
		*ret_fail = !x->a.url[i] && (r == -ENOENT || r == -EISDIR || r == -EPERM) ?
				    KG_PREPARE_USAGE :
				    KG_PREPARE_KERNEL;
		return errf(err, errlen, r, "%s%s: %s", label, from, why);
	}
	if ((r = kg_disk_check(&x->a.vm.disk, x->k[i].moddir, x->k[i].release, why, sizeof(why)))) {
		*ret_fail = KG_PREPARE_KERNEL;
		return errf(err, errlen, r, "%s: cannot judge: %s", label, why);
	}
	base_strcpy(x->k[i].label, sizeof(x->k[i].label), label);
	/* a backend that boots the image it copies out keeps the bzImage */
	if (!x->needs.keep_bzimage && (r = kg_pvh_resolve(&x->k[i], cachedir, why, sizeof(why)))) {
		/* a cache another user could write is the user's to fix, as in resolve */
		*ret_fail = r == -EPERM ? KG_PREPARE_USAGE : KG_PREPARE_KERNEL;
		return errf(err, errlen, r, "%s: %s", label, why);
	}
	r = kg_initramfs_build(&io, x->initramfs[i], x->initramfs_at[i], sizeof(x->initramfs[i]),
			       &x->cached[i], why, sizeof(why));
	if (r) {
		*ret_fail = KG_PREPARE_KERNEL;
		return errf(err, errlen, r, "building the initramfs for %s: %s", x->k[i].release,
			    why);
	}
	return 0;
}

/* Whether @prog runs: a path to an executable, or a name on PATH. */
static bool program_found(const char *prog)
{
	const char *path = getenv("PATH");
	char dirs[4096], buf[PATH_MAX];

	if (!prog[0])
		return false;
	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 && !kg_is_dir(prog);
	snprintf(dirs, sizeof(dirs), "%s", path ? path : "/usr/bin:/bin");
	for (char *save, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save))
		if (snprintf(buf, sizeof(buf), "%s/%s", d, prog) < (int)sizeof(buf) &&
		    access(buf, X_OK) == 0 && !kg_is_dir(buf))
			return true;
	return false;
}

/* The directory that holds @workdir (the current one for a bare name) and its last name. */
static void workdir_split(const char *workdir, char *parent, size_t plen, char *name, size_t nlen)
{
	char buf[PATH_MAX];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "%s", workdir);
	char *slash;

	while (n > 1 && buf[n - 1] == '/') /* "dir/" is dir */
		buf[--n] = 0;
	slash = strrchr(buf, '/');
	if (!slash) {
		base_strcpy(parent, plen, ".");
		base_strcpy(name, nlen, buf);
		return;
	}
	base_strcpy(name, nlen, slash[1] ? slash + 1 : ".");
	snprintf(parent, plen, "%.*s", slash == buf ? 1 : (int)(slash - buf), buf);
}

/*
 * The work directory's parent held (it may be shared and sticky, as /tmp; the chain above
 * it trusted), or --workdir itself when it exists (this user's alone, the chain trusted).
 * The descriptor, or -errno with @err. *@ret_exists says which.
 */
static int workdir_open(const char *workdir, bool *ret_exists, char *err, size_t errlen)
{
	char parent[PATH_MAX], name[NAME_MAX + 1], why[2048];
	struct stat st;
	int fd;

	*ret_exists = workdir && !lstat(workdir, &st);
	if (*ret_exists) {
		/* a reused --workdir: boots are made new in it, results read back from it */
		fd = base_dir_open_trusted(workdir, geteuid(), false, why, sizeof(why));
		return fd < 0 ? errf(err, errlen, fd, "--workdir: refusing %s", why) : fd;
	}
	if (workdir)
		workdir_split(workdir, parent, sizeof(parent), name, sizeof(name));
	else
		base_strcpy(parent, sizeof(parent), ".");
	fd = base_dir_open_trusted(parent, geteuid(), true, why, sizeof(why));
	return fd < 0 ? errf(err, errlen, fd,
			     "the work directory's parent: refusing %s, so another user could swap "
			     "what fsbench uses in it",
			     why) :
			fd;
}

/*
 * What a boot needs and the user named, checked before any work: a mistake here must not
 * cost a boot and then read as "cannot judge". -errno with @err (usage errors all).
 * --disk-dir is held from here on (x->a.vm.disk_dir_fd).
 */
static int prepare_checks(struct kg_ctx *x, char *err, size_t errlen)
{
	struct kg_vm *vm = &x->a.vm;
	char why[2048];
	struct statvfs v;
	bool exists;
	int r, fd;

	if (!program_found(vm->qemu))
		return errf(err, errlen, -ENOENT, "--qemu '%s': %s", vm->qemu,
			    vm->qemu[0] ? "not found, or not executable" : "an empty name");
	/*
	 * another user's --disk-dir could swap the boot's scratch directory under QEMU; it may
	 * be shared and sticky (/dev/shm): each boot makes a private directory in it
	 */
	fd = base_dir_open_trusted(vm->disk_dir, geteuid(), true, why, sizeof(why));
	if (fd == -EPERM)
		return errf(err, errlen, fd,
			    "--disk-dir: refusing %s, so another user could swap what fsbench uses "
			    "in it",
			    why);
	if (fd == -ENOTDIR)
		return errf(err, errlen, fd, "--disk-dir %s: not a directory", vm->disk_dir);
	if (fd < 0) /* @why names the path and what is missing */
		return errf(err, errlen, fd, "--disk-dir %s", why);
	vm->disk_dir_fd = fd;
	/* sparse, but the guest may fill it: QEMU would pause the VM when it cannot grow */
	if (!fstatvfs(fd, &v) && (long long)v.f_bavail * (long long)v.f_frsize < vm->disk_bytes)
		return errf(err, errlen, -ENOSPC,
			    "--disk-dir %s has %lld MiB free, less than --disk-size (%lld MiB)",
			    vm->disk_dir, (long long)v.f_bavail * (long long)v.f_frsize >> 20,
			    vm->disk_bytes >> 20);
	/* checked now, before the kernels; opened for good in prepare_workdir */
	if ((fd = workdir_open(x->a.workdir, &exists, err, errlen)) < 0)
		return fd;
	close(fd);
	if ((x->a.workdir && (r = kg_qemu_path_ok("--workdir", x->a.workdir, err, errlen))) ||
	    (r = kg_qemu_path_ok("--disk-dir", vm->disk_dir, err, errlen)))
		return r;
	if (x->a.json && (r = base_out_check(x->a.json)))
		return errf(err, errlen, r, "--json %s: %s", x->a.json, strerror(-r));
	return 0;
}

/*
 * The work directory, held by descriptor: --workdir as it is when it exists (this user's
 * alone), else made by mkdirat beneath its parent's descriptor and verified (one that
 * appeared meanwhile, EEXIST, is refused, not adopted); without --workdir a new
 * fsbench-kgate-DATE-<random> in the current directory.
 */
static int prepare_workdir(struct kg_ctx *x, char *err, size_t errlen)
{
	char parent[PATH_MAX], name[NAME_MAX + 1], why[1024];
	bool exists;
	int pfd, fd;

	if (x->needs.plain_outdir) {
		/* an output directory, written by mkstemp and rename only (base_out_open) */
		base_strcpy(x->workdir, sizeof(x->workdir), x->a.workdir);
		if (mkdir(x->workdir, 0755) && errno != EEXIST)
			return errf(err, errlen, -errno, "creating %s: %s", x->workdir,
				    strerror(errno));
		return 0;
	}
	if ((pfd = workdir_open(x->a.workdir, &exists, err, errlen)) < 0)
		return pfd;
	if (exists) {
		base_strcpy(x->workdir, sizeof(x->workdir), x->a.workdir);
		x->workdir_fd = pfd;
		return 0;
	}
	if (x->a.workdir) {
		base_strcpy(x->workdir, sizeof(x->workdir), x->a.workdir);
		workdir_split(x->a.workdir, parent, sizeof(parent), name, sizeof(name));
		fd = base_dir_make(pfd, name, 0755, why, sizeof(why));
	} else {
		time_t t = time(NULL);
		struct tm tm;
		char prefix[64];

		/* a fresh name: two runs in the same second, or a name another made, never share */
		localtime_r(&t, &tm);
		strftime(prefix, sizeof(prefix), "fsbench-kgate-%Y%m%d-%H%M%S-", &tm);
		fd = base_dir_make_temp(pfd, prefix, x->workdir, sizeof(x->workdir), why,
					sizeof(why));
	}
	close(pfd);
	if (fd < 0)
		return errf(err, errlen, fd, "--workdir: creating %s: %s%s",
			    x->a.workdir ? x->a.workdir : "the work directory", why,
			    fd == -EEXIST ?
				    " (it was not there when checked: refused, not adopted)" :
				    "");
	x->workdir_fd = fd;
	return 0;
}

int kg_prepare(struct kg_ctx *x, int nk, enum kg_prepare_fail *ret_fail, char *err, size_t errlen)
{
	char cachedir[PATH_MAX];
	bool fetch;
	int r;

	*ret_fail = KG_PREPARE_USAGE;
	x->workdir_fd = x->fetch_fd = x->a.vm.disk_dir_fd = -1;
	if ((r = prepare_suite(x, err, errlen)))
		return r;
	if (!x->needs.remote && (r = prepare_checks(x, err, errlen)))
		return r;
	kg_cachedir(cachedir, sizeof(cachedir));
	/* a kernel fetched goes into the work directory: made first then, else last */
	if ((fetch = x->a.url[0] || x->a.url[1]) && (r = prepare_workdir(x, err, errlen)))
		return r;
	for (int i = 0; i < nk; i++)
		if ((r = prepare_kernel(x, i, nk, cachedir, ret_fail, err, errlen)))
			return r;
	*ret_fail = KG_PREPARE_USAGE;
	return fetch ? 0 : prepare_workdir(x, err, errlen);
}

void kg_prepare_release(struct kg_ctx *x)
{
	if (x->workdir_fd >= 0)
		close(x->workdir_fd);
	if (x->fetch_fd >= 0)
		close(x->fetch_fd);
	if (x->a.vm.disk_dir_fd >= 0)
		close(x->a.vm.disk_dir_fd);
	x->workdir_fd = x->fetch_fd = x->a.vm.disk_dir_fd = -1;
}

void kg_args_defaults(struct kg_args *a, bool no_icount)
{
	bool model = a->vm.disk.kind == KG_DISK_MODEL;

	/*
	 * sleep=off with the model: an idle guest's clock jumps to its next timer, so waiting
	 * on the disk costs no host time and the host's load cannot reach the guest's clock.
	 * virtio's requests complete in host real time, which the guest must wait for.
	 */
	if (model)
		a->vm.icount = "shift=0,sleep=off";
	if (no_icount)
		a->vm.icount = NULL;
	if (!a->jobs) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		a->jobs = model && cpus > 1 ? (int)cpus : 1;
	}
	if (isnan(a->threshold))
		a->threshold = model ? atof(KG_MODEL_THRESHOLD) : RPT_DEFAULT_THRESHOLD_PCT;
}

/* Whether @s holds the word "--": the kernel gives what follows it to init. */
static bool has_dashdash(const char *s)
{
	for (const char *p = s; (p = strstr(p, "--")); p += 2)
		if ((p == s || p[-1] == ' ' || p[-1] == '\t') &&
		    (!p[2] || p[2] == ' ' || p[2] == '\t'))
			return true;
	return false;
}

/* No kernel named twice, by a file and a URL; the URLs http(s); --*modules not with a .deb. */
static int kernels_check(const struct kg_args *a, bool gate, char *err, size_t errlen)
{
	static const char *const opt[2][2] = { { "kernel", "modules" }, { "", "" } };
	static const char *const gopt[2][2] = { { "baseline", "baseline-modules" },
						{ "candidate", "candidate-modules" } };

	for (int i = 0; i < (gate ? 2 : 1); i++) {
		const char *const *o = gate ? gopt[i] : opt[i];
		char name[96], what[64];
		int r;

		if (a->spec[i] && a->url[i])
			return errf(err, errlen, -EINVAL, "--%s and --%s-url: one or the other",
				    o[0], o[0]);
		snprintf(what, sizeof(what), "--%s-url", o[0]);
		if (a->url[i] &&
		    (r = base_url_http_check(a->url[i], what, KG_FETCH_URL_MAX, err, errlen)))
			return r;
		if (a->url[i])
			kg_fetch_name(a->url[i], name, sizeof(name));
		if (a->modules[i] && kg_ends_with(a->url[i] ? name : a->spec[i], ".deb"))
			return errf(err, errlen, -EINVAL,
				    "%s: a .deb brings its own modules; --%s would be ignored",
				    a->modules[i], o[1]);
	}
	return 0;
}

int kg_args_check(const struct kg_args *a, bool gate, char *err, size_t errlen)
{
	const struct kg_disk *d = &a->vm.disk;
	int r;

	if (a->flush_latency_ns % 1000000 || (a->flush_latency_ns && d->kind != KG_DISK_MODEL))
		return errf(err, errlen, -EINVAL,
			    "--disk-flush-latency: whole milliseconds (dm-delay's unit), with "
			    "--disk model");
	/* options that do not apply are refused, not ignored (issue 29, item 8) */
	if (d->kind != KG_DISK_MODEL &&
	    (d->cache_bytes || d->mbps || d->latency_ns != KG_DISK_LATENCY_NS ||
	     d->queue_depth != KG_DISK_QUEUE_DEPTH))
		return errf(
			err, errlen, -EINVAL,
			"--disk-latency, --disk-cache, --disk-mbps and --disk-queue-depth shape "
			"the model disk: with --disk virtio they would be ignored");
	if ((r = kernels_check(a, gate, err, errlen)))
		return r;
	for (int i = 0; i < 3; i++) {
		const char *ap = i < 2 ? a->append[i] : a->common_append;
		char esc[1024];

		if (ap && (strpbrk(ap, "\n\r") || has_dashdash(ap)))
			return errf(err, errlen, -EINVAL,
				    "--append '%s': a newline or a '--' word would hand the words "
				    "after it to init, not the kernel (the model's null_blk.* too)",
				    base_escape_str(esc, sizeof(esc), ap));
	}
	if ((!a->spec[0] && !a->url[0]) || (gate && !a->spec[1] && !a->url[1]))
		return errf(err, errlen, -EINVAL, "%s",
			    gate ? "--baseline and --candidate are both needed (or "
				   "--baseline-url, --candidate-url)" :
				   "--kernel is needed (or --kernel-url)");
	return 0;
}

int kg_args_kernels(const struct kg_args *a)
{
	return a->spec[1] || a->url[1] ? 2 : 1;
}
