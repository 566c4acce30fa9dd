/* What kernel-gate, kernel-run and the job writers do before the first boot: suite, kernels, initramfs. */
#ifndef FSB_KGATE_PREBOOT_H
#define FSB_KGATE_PREBOOT_H

#include "fsbench/kgate/kgate.h"
#include "probes/scratch/scratch.h"

#define KG_DEFAULT_SUITE "kgate"
#define KG_MAX_FS 16
/*
 * The model's default threshold: files/s, MB/s and fsync p50 moved at most 0.4 % between
 * boots of one kernel here, so 1 % is above any A/A difference seen and below the few
 * percent a kernel change on the fsync path makes.
 */
#define KG_MODEL_THRESHOLD "1"

/*
 * What the command line asked for. The CLI's option table writes most members directly
 * (fsbench/cli/kgate.c), hence int64_t, the table's integer.
 */
struct kg_args {
	const char *spec[2], *modules[2], *append[2], *common_append;
	/* a kernel a lab serves over http(s) instead of @spec (one of the two), fetched by kg_prepare */
	const char *url[2];
	const char *suite, *fs, *threads, *gate_file, *workdir, *json;
	int64_t boots, repetitions, jobs; /* jobs: boots at a time */
	double alpha, threshold, max_host_load, floor_multiple;
	int64_t flush_latency_ns; /* --disk-flush-latency as given; vm.disk holds whole ms */
	struct kg_vm vm;
};

/*
 * What the command line left to the disk's kind: -icount (none with @no_icount), jobs 0 as
 * the host's CPUs with the model disk (else 1), the threshold NAN as the disk's default.
 */
void kg_args_defaults(struct kg_args *a, bool no_icount);

/*
 * Refuses what kernel-gate (@gate) or kernel-run cannot do as asked: options that do not
 * apply to the disk, --*modules with a .deb, an --append that would reach init, a kernel not
 * named or named twice (a file and a URL), a URL not http(s). 0, or -EINVAL with @err one
 * line.
 */
int kg_args_check(const struct kg_args *a, bool gate, char *err, size_t errlen);

/*
 * What a boot backend other than the local QEMU boot asks of kg_prepare(); all false for the
 * local boot. The backend sets them before kg_prepare(); kgate/ knows no backend by name.
 */
struct kg_prep_needs {
	/* the boots run on another machine: this host's QEMU and --disk-dir are not checked */
	bool remote;
	/* the backend boots the kernel image as it is (bzImage): no PVH vmlinux (pvh.h) */
	bool keep_bzimage;
	/*
	 * the backend's test definition runs the suite from a shell on the console (/init's
	 * fsbench.shell), its files on an overlay disk the initramfs must reach (IDE, ext2)
	 */
	bool shell_disk;
	/*
	 * the work directory is an output directory (a job writer's -o), only written by
	 * mkstemp and rename; without it, it is made or checked and held by descriptor as a gate's
	 */
	bool plain_outdir;
};

/* The kernels @a names, by file or URL: 1 or 2. */
int kg_args_kernels(const struct kg_args *a);

/* What kg_prepare() found and made. */
struct kg_ctx {
	struct kg_args a;
	struct kg_kernel k[2];
	char initramfs[2][PATH_MAX];
	char initramfs_at[2][PATH_MAX]; /* as root opens it (kg_initramfs_build) */
	bool cached[2]; /* the initramfs came from the cache */
	char suite[PATH_MAX];
	char workdir[PATH_MAX];
	/*
	 * The work directory, held from its check or mkdirat on (-1: none, needs.plain_outdir):
	 * every boot's directory is made beneath it (kg_prepare sets it, kg_prepare_release
	 * closes it and x->a.vm.disk_dir_fd).
	 */
	int workdir_fd;
	/*
	 * Without workdir_fd (needs.plain_outdir), the output directory held when a kernel is
	 * fetched into it, until kg_prepare_release: the fetched kernel is resolved, and a
	 * fetched bzImage opened, beneath it (kg_fd_path), never by its name again.
	 */
	int fetch_fd;
	const char *suite_args[16];
	char reps[16];
	const char *fstypes[KG_MAX_FS + 1];
	char fsstore[KG_MAX_FS][32];
	struct kg_prep_needs needs; /* set by a backend that boots elsewhere before kg_prepare */
	struct probe_scratch scratch; /* its journal: the boots' disks, for `fsbench restore` */
};

/* Which kind of failure kg_prepare() met: the caller's exit status depends on it. */
enum kg_prepare_fail {
	KG_PREPARE_USAGE, /* what the user named does not exist or is not what it must be */
	KG_PREPARE_KERNEL, /* a kernel or its initramfs is unusable: cannot judge */
};

/*
 * Finds the suite and its filesystems, resolves x->a.spec[0..@nk-1] and builds an initramfs
 * for each, and creates the work directory: first, when a kernel is x->a.url[i], which is
 * fetched into it (kg_fetch) and resolved as that file. The work directory and --disk-dir are held by
 * descriptor from their check on (x->workdir_fd, x->a.vm.disk_dir_fd). 0, or -errno with @err one line (naming the side
 * when @nk is 2) and *@ret_fail the kind of failure.
 */
int kg_prepare(struct kg_ctx *x, int nk, enum kg_prepare_fail *ret_fail, char *err, size_t errlen);

/* Closes the directories kg_prepare() holds (the work directory, --disk-dir). */
void kg_prepare_release(struct kg_ctx *x);

#endif
