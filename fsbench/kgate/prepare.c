/* The step before the first boot (prepare.h), shared by kernel-gate, kernel-run and lava job. */
#include "fsbench/kgate/prepare.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/errf.h"
#include "base/fileio.h"
#include "fsbench/suite/suite.h"

/*
 * The filesystem types the guest needs: the suite's, narrowed by --fs as the guest's suite
 * will narrow them (suite.h). The count, or -errno with @err.
 */
static int suite_fstypes(const char *path, const char *fs, char store[][32], const char **out,
			 int64_t *ret_image_size, char *err, size_t errlen)
{
	struct suite su;
	int n = 0, r;

	r = suite_load(&su, path, err, errlen);
	if (!r && fs)
		r = suite_select_fs(&su, fs, err, errlen);
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
		fsb_strcpy(store[n], 32, su.fs[i].type);
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
	r = suite_fstypes(x->suite, x->a.fs, x->fsstore, x->fstypes, &image_size, err, errlen);
	if (r < 0)
		return r;
	/* the model holds the suite's data in guest memory: refused here, before any boot */
	if ((r = kg_disk_fits(&x->a.vm.disk, x->a.vm.memory_mib, x->a.jobs, image_size, err,
			      errlen)))
		return r;
	if (x->a.repetitions) {
		snprintf(x->reps, sizeof(x->reps), "%d", x->a.repetitions);
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
					.lava = x->lava,
					.flush_delay = kg_disk_flush_delayed(&x->a.vm.disk) };
	char why[3072] = "";
	int r;

	r = kg_kernel_resolve(x->a.spec[i], x->a.modules[i], cachedir, &x->k[i], why, sizeof(why));
	if (r) {
		*ret_fail = r == -ENOENT ? KG_PREPARE_USAGE : KG_PREPARE_KERNEL;
		return errf(err, errlen, r, "%s: %s", label, why);
	}
	if ((r = kg_disk_check(&x->a.vm.disk, x->k[i].moddir, x->k[i].release, why, sizeof(why)))) {
		*ret_fail = KG_PREPARE_KERNEL;
		return errf(err, errlen, r, "%s: cannot judge: %s", label, why);
	}
	fsb_strcpy(x->k[i].label, sizeof(x->k[i].label), label);
	snprintf(x->k[i].append, sizeof(x->k[i].append), "%s%s%s",
		 x->a.common_append ? x->a.common_append : "",
		 x->a.common_append && x->a.append[i] ? " " : "",
		 x->a.append[i] ? x->a.append[i] : "");
	r = kg_initramfs_build(&io, x->initramfs[i], sizeof(x->initramfs[i]), &x->cached[i], why,
			       sizeof(why));
	if (r) {
		*ret_fail = KG_PREPARE_KERNEL;
		return errf(err, errlen, r, "building the initramfs for %s: %s", x->k[i].release,
			    why);
	}
	return 0;
}

int kg_prepare(struct kg_ctx *x, int nk, enum kg_prepare_fail *ret_fail, char *err, size_t errlen)
{
	char cachedir[PATH_MAX];
	int r;

	*ret_fail = KG_PREPARE_USAGE;
	if ((r = prepare_suite(x, err, errlen)))
		return r;
	kg_cachedir(cachedir, sizeof(cachedir));
	for (int i = 0; i < nk; i++)
		if ((r = prepare_kernel(x, i, nk, cachedir, ret_fail, err, errlen)))
			return r;
	*ret_fail = KG_PREPARE_USAGE;
	if (x->a.workdir)
		snprintf(x->workdir, sizeof(x->workdir), "%s", x->a.workdir);
	else {
		time_t t = time(NULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(x->workdir, sizeof(x->workdir), "fsbench-kgate-%Y%m%d-%H%M%S", &tm);
	}
	if (mkdir(x->workdir, 0755) && errno != EEXIST)
		return errf(err, errlen, -errno, "creating %s: %s", x->workdir, strerror(errno));
	return 0;
}
