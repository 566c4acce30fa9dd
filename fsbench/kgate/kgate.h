/* The kernel under test: resolving a kernel, building its initramfs, booting it in QEMU. */
#ifndef FSB_KGATE_H
#define FSB_KGATE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "fsbench/kgate/disk.h"

struct probe_scratch;

/*
 * The kernel's command line holds at most this many bytes with its NUL (x86's
 * COMMAND_LINE_SIZE since 3.15): the boot loader cuts a longer one without a word.
 */
#define KG_CMDLINE_MAX 2048

/* Modules the guest needs to reach its disks; the suite's filesystems are added to these. */
#define KG_MAX_MODULES 256

struct kg_kernel {
	char spec[PATH_MAX]; /* as the user gave it, or the file its @url was fetched into */
	char url[1025]; /* where it was fetched from (--baseline-url), or "" */
	char sha256[65]; /* the fetched file's SHA-256 in hex, with @url */
	char image[PATH_MAX]; /* bzImage / vmlinuz */
	/* image as root opens it: beneath the cache's descriptor (kg_fd_path) for a .deb's */
	char image_at[PATH_MAX];
	char boot_image[PATH_MAX]; /* what QEMU boots: image, or its vmlinux (pvh.h) */
	char entry[16]; /* "pvh" or "bzimage" */
	char entry_why[96]; /* why not "pvh" */
	char moddir[PATH_MAX]; /* .../lib/modules/RELEASE */
	char release[128];
	char append[KG_CMDLINE_MAX]; /* extra kernel command line */
	char label[64]; /* "baseline", "candidate" */
};

/*
 * Resolves @spec: a Debian linux-image .deb (extracted once under @cachedir, depmod run on
 * the copy), a bzImage or vmlinuz file with @modules (a directory holding
 * lib/modules/RELEASE; without it /lib/modules/RELEASE), or a release installed under /boot
 * and /lib/modules. Returns 0, -ENOENT when @spec names nothing (a usage error), or another
 * negative errno when it names something unusable; @err says which and why. With @journal
 * (may be NULL), a .deb's extraction directory is recorded there first, so that `fsbench
 * restore` removes what a killed run left half extracted.
 */
int kg_kernel_resolve(const char *spec, const char *modules, const char *cachedir,
		      struct probe_scratch *journal, struct kg_kernel *ret, char *err,
		      size_t errlen);

/*
 * Reads the release string from a bzImage's setup header. 0 or -errno (-ENOEXEC: no header,
 * -EBADMSG: the string, left raw in @out, is not one kg_release_ok() takes).
 */
int kg_bzimage_release(const char *image, char *out, size_t len);

/*
 * Resolves @names ("virtio_blk", "ext4") through @moddir's modules.dep into a load order,
 * dependencies first, without duplicates and without modules the kernel builds in
 * (modules.builtin). Fills @ret_paths (relative to @moddir, malloc'ed) and returns their
 * count, or -errno with @err naming the module.
 */
int kg_modules_resolve(const char *moddir, const char *const *names, size_t nnames,
		       char **ret_paths, size_t max, char *err, size_t errlen);

struct kg_initramfs_opts {
	const struct kg_kernel *kernel;
	const char *suite; /* the suite file, copied in as /etc/fsbench/suite.json */
	const char *const *suite_args; /* extra `fsbench suite` arguments, NULL-terminated */
	const char *const *fstypes; /* the suite's filesystems, NULL-terminated */
	const char *cachedir;
	bool shell_disk; /* also the drivers of a test shell's overlay disk (IDE, ext2): preboot.h */
	bool flush_delay; /* also dm_delay and dmsetup, for the model's flush latency */
};

/*
 * Builds (or finds in @o->cachedir) the initramfs: busybox, this fsbench and the shared
 * libraries ldd names, the mkfs tools of @o->fstypes, the modules resolved for the kernel,
 * the suite and the guest's /init. Named by a hash of every file's path, mode and bytes.
 * Writes its path to @ret_path (for people) and to @ret_at the same file as root opens it,
 * beneath the cache's descriptor (kg_fd_path; both @len bytes); 0 or -errno with @err.
 */
int kg_initramfs_build(const struct kg_initramfs_opts *o, char *ret_path, char *ret_at, size_t len,
		       bool *ret_cached, char *err, size_t errlen);

/* Where a boot is (kg_vm.progress): its /init spoke, the suite started, QEMU ended. */
enum kg_stage { KG_STAGE_INIT, KG_STAGE_SUITE, KG_STAGE_DONE };

struct kg_boot;

struct kg_vm {
	const char *qemu; /* qemu-system-x86_64 */
	const char *accel; /* "tcg" or "kvm" */
	const char *icount; /* "shift=0,sleep=on"; NULL or "" for none */
	const char *cpu; /* CPU model */
	int cpus;
	int64_t memory_mib; /* int64_t: an option table's integer is written here directly */
	long long disk_bytes; /* scratch disk size */
	struct kg_disk disk; /* its kind and the model's parameters (disk.bytes == disk_bytes) */
	const char *disk_dir; /* directory of the scratch image (tmpfs) */
	int disk_dir_fd; /* --disk-dir held since its check (kg_prepare); -1: not yet */
	int boot_timeout_s; /* until the guest's init speaks */
	int timeout_s; /* the whole boot */
	/* its journal records each scratch disk and results disk for `fsbench restore` (NULL: none) */
	struct probe_scratch *scratch;
	/*
	 * Called (NULL: not) from the boot's own thread as it reaches each stage, with its
	 * times so far (@b: one boot's, the same pointer throughout): for progress lines.
	 */
	void (*progress)(void *arg, const struct kg_kernel *k, const struct kg_boot *b,
			 enum kg_stage stage);
	void *progress_arg;
};

/*
 * kg_vm_init: what no command line option sets (one CPU, -icount for virtio, no directory held),
 * the rest zero for an option table to fill; kg_vm_defaults: that and the options' defaults.
 */
void kg_vm_init(struct kg_vm *vm);
void kg_vm_defaults(struct kg_vm *vm);

/* What one boot left behind. */
struct kg_boot {
	int guest_status; /* the suite's exit status in the guest; -1 when there is none */
	double seconds; /* wall time of the whole boot */
	double init_seconds; /* until the guest's /init printed its first line */
	double boot_seconds; /* until the guest's init started the suite */
	double host_load_pct; /* CPU time of other processes, % of the host's CPUs */
	double loadavg1; /* at the end */
	char result[PATH_MAX]; /* the guest's result JSON, when it wrote one */
	char console[PATH_MAX]; /* the serial console log */
	char guest_release[128];
	char guest_cmdline[KG_CMDLINE_MAX];
	/* what binds the result to this boot (results.c, kg_result_bound) */
	char token[33]; /* this boot's random token, given on its command line */
	long long wall_start, wall_end; /* the boot's start and end, host CLOCK_REALTIME seconds */
	char guest_token[40], guest_boot_id[40], guest_time[24]; /* what the guest wrote */
};

/* The token's word on the command line: " fsbench.token=" and 32 hex digits. */
#define KG_TOKEN_WORD_LEN 47

/*
 * Whether @b's result was made by this boot of @k: the guest wrote back this boot's token,
 * ran @k's release, has a boot id no earlier boot of this process had, a time within the
 * boot's, and a result.json no earlier boot had. 0, or -EBADMSG with @why naming what does
 * not fit: the result cannot be judged.
 */
int kg_result_bound(const struct kg_kernel *k, const struct kg_boot *b, char *why, size_t len);

/* A run's boots as they progress, for an estimate of the time left (kg_eta_update). */
#define KG_ETA_RUNNING 64
struct kg_eta {
	int total, jobs; /* boots in all, at a time: set these; zero the rest */
	int done, nrun;
	double took; /* seconds of the boots done, together */
	struct {
		const struct kg_boot *b;
		double start;
	} run[KG_ETA_RUNNING]; /* boots under way, since their /init spoke */
};

/*
 * Records boot @b reaching @stage at @now (seconds, one clock throughout) and returns the
 * seconds left until all of @e->total boots are done, @e->jobs at a time: the boots under
 * way finish at the mean time a boot took, the rest follow in the first free slot. -1 until
 * a boot is done. Not locked: the caller serializes calls from several boots' threads.
 */
double kg_eta_update(struct kg_eta *e, const struct kg_boot *b, enum kg_stage stage, double now);

/*
 * Boots @k with @initramfs in QEMU, a fresh sparse scratch disk in @vm->disk_dir (held as
 * @vm->disk_dir_fd) and a results disk, and collects the guest's results into the new
 * directory @name beneath the work directory held as @wfd (@dir: its path, for messages). Returns 0 when the
 * guest reported a status (which may be non-zero), or -errno: -ETIMEDOUT, -EIO (panic or no
 * result), -ENOEXEC (QEMU failed), -EINTR (base_signal_received, base/signal.h); @err then
 * says what happened and ends with the last console lines.
 */
int kg_boot_run(const struct kg_kernel *k, const char *initramfs, const struct kg_vm *vm, int wfd,
		const char *name, const char *dir, struct kg_boot *ret, char *err, size_t errlen);

/*
 * The kernel command line every boot starts with, a LAVA job's too (its qemu jobs boot what a
 * local boot boots; kg_cmdline says why each word is there).
 */
#define KG_CMDLINE_BASE \
	"console=ttyS0 quiet tsc=reliable panic=-1 oops=panic cryptomgr.notests rdinit=/init"

/*
 * QEMU's options that shape the guest the same way wherever it boots, after -smp, -cpu and
 * -m: no default devices (a VGA card, a floppy and a CD-ROM drive the kernel would probe,
 * a serial port the console is not on), and a panic (panic=-1) ends QEMU instead of
 * booting again. A LAVA job adds them to its device's (lava/jobdef.c).
 */
#define KG_QEMU_GUEST_OPTS                  \
	{                                   \
		"-nodefaults", "-no-reboot" \
	}

/*
 * The kernel command line kg_boot_run gives @k, into @out. Returns its length: when that
 * is KG_CMDLINE_MAX or more the kernel would cut it (kg_prepare refuses such an append).
 */
int kg_cmdline(const struct kg_kernel *k, char *out, size_t len);

/*
 * A boot's own random word on its command line, which the kernel mixes into its random pool
 * before anything draws from it: under -icount the guest's timing is the same on every boot
 * and its clock has whole seconds, so two boots started in one second drew the same random
 * numbers (their boot_id alike: one boot's result passing for two, cannot judge). It is no
 * secret (the token is), and kg_cmdline_unseed() takes it out of what a result records.
 */
#define KG_SEED_PARAM "fsbench.seed="
void kg_cmdline_seed(char *cmdline, size_t len);
void kg_cmdline_unseed(char *cmdline);

/* The record of one boot that goes into its result ("vm") and the gate's document. */
json_t *kg_boot_json(const struct kg_kernel *k, const struct kg_vm *vm, const struct kg_boot *b);

/* The cache directory: $FSBENCH_CACHE_DIR, else $XDG_CACHE_HOME/fsbench, else ~/.cache/fsbench. */
void kg_cachedir(char *out, size_t len);

#endif
