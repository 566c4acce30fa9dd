/* A LAVA job for a suite (its YAML, the kernel and initramfs beside it) and its test cases' names. */
#ifndef FSB_LAVA_JOBDEF_H
#define FSB_LAVA_JOBDEF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "fsbench/kgate/gate_flow.h"

/* What a job says: where LAVA fetches the images, the device, the suite. */
struct lava_job_spec {
	const char *device_type; /* "qemu" deploys to tmpfs and boots QEMU; else tftp */
	const char *boot_method; /* a board's ("ipxe", "u-boot") */
	/*
	 * A board's architecture as uname -m says it ("aarch64"); NULL: x86_64 for qemu and
	 * x86* device types, else unknown (lava_job_check_args)
	 */
	const char *arch;
	/* a board's kernel format, LAVA's deploy type: "image", "zimage", "uimage"; NULL: by
	 * @arch for u-boot (aarch64 image, arm zimage), else none said */
	const char *kernel_type;
	const char *device; /* the scratch disk in the guest; NULL: the default for the type */
	const char *job_name; /* NULL: "fsbench SUITE RELEASE" */
	const char *kernel_url, *ramdisk_url, *scratch_url; /* scratch_url: qemu, may be NULL */
	const char *suite; /* as the user named it: a name or a path */
	const char *release; /* the kernel's, when known, for the default name; may be "" */
	int timeout_min; /* the test action's */
	/*
	 * The gate's per-job token (hex), or NULL: the guest reports it back as a test case
	 * (fsbench-token-TOKEN), with the release it booted (fsbench-release-RELEASE), so that
	 * results are bound to the job that was submitted (lava_cases_bound).
	 */
	const char *token;
	/* LAVA's job controls (lava_job_controls_check): NULL for medium, none */
	const char *priority; /* "high", "medium", "low" or 0..100 */
	const char *tags; /* a comma-separated list of device tags */
	/*
	 * What the job's `metadata` says besides its kernel (@release), suite and fsbench's
	 * version, so a lab tells apart whose job it is: the gate (its work directory), the
	 * side ("baseline") and the boot ("3/8"). NULL: not a gate's job.
	 */
	const char *gate, *side, *boot;
	/*
	 * A gate's verdict job (lava_verdict_steps): its test runs these shell steps (NULL-ended)
	 * instead of the suite, and its metadata says the verdict; NULL for a suite's job.
	 */
	char *const *steps;
	const char *verdict;
};

/* Device tags a job may name, and how long one may be (LAVA's Tag name is 50 characters). */
#define LAVA_TAGS_MAX 16
#define LAVA_TAG_LEN_MAX 50

/*
 * LAVA's job controls before any work, as lava-dispatcher's job schema takes them: a
 * @priority (NULL: none given) of high, medium, low or a whole number 0..100, @tags (NULL:
 * none) of 1..LAVA_TAGS_MAX names of [A-Za-z0-9_.-], each 1..LAVA_TAG_LEN_MAX long, joined by
 * commas. @opt_priority and @opt_tags name the options in @err. 0 or -EINVAL.
 */
int lava_job_controls_check(const char *priority, const char *tags, const char *opt_priority,
			    const char *opt_tags, char *err, size_t errlen);

/*
 * Checks @s before any work: a board needs a device, and the device reaches the guest's
 * shell, so it must be a plain path; the job controls (lava_job_controls_check); a kernel
 * type only for a board, and a u-boot board's known (given, or from its --arch). 0 or
 * -EINVAL with @err naming the option.
 */
int lava_job_check(const struct lava_job_spec *s, char *err, size_t errlen);

/*
 * lava job's command line before any work: --kernel (@kernel) or both URLs, lava_job_check,
 * -o @output writable, --repetitions (nonzero @repetitions) only with --kernel; and the
 * initramfs --kernel builds (this host's programs) only for a device of this host's
 * architecture (qemu, x86*, or --arch): another needs its own --ramdisk-url. 0 or -EINVAL
 * with @err one line.
 */
int lava_job_check_args(const struct lava_job_spec *s, const char *kernel, int64_t repetitions,
			const char *output, char *err, size_t errlen);

/*
 * The kernel command line a qemu job boots with, but for its random seed (kg_cmdline_seed):
 * a local boot's (KG_CMDLINE_BASE and the model disk's words) and fsbench.shell, which
 * stops the guest's /init at a shell for LAVA's test shell. 0 or -ENAMETOOLONG.
 */
int lava_job_cmdline(const struct lava_job_spec *s, char *out, size_t len);

/*
 * What the QEMU command line @cmd a worker ran for qemu job @s (lava_job_boot_command) has
 * that a local boot's has not, as a JSON array of strings: each option a local boot does not
 * give (LAVA's device adds -nographic, a NIC and -monitor), and each of -smp, -cpu, -m and
 * -icount whose value is not the job's; -append's value, the command line the kernel was
 * given, into @cmdline (empty when there is none). NULL when out of memory.
 */
json_t *lava_boot_command_diff(const struct lava_job_spec *s, const char *cmd, char *cmdline,
			       size_t len);

/*
 * The steps of a kernel gate's verdict job, from the gate's document @doc
 * (fsbench-kernel-gate/1): a LAVA test case per gated comparison, fsbench-gate-CELL-METRIC
 * (within RPT_LAVA_NAME_MAX: a long cell cut with a hash of the whole),
 * whose result is fail for a regression, pass for unchanged or an improvement and skip for
 * what was not judged (noisy, insufficient, not proven), with the change in % as its
 * measurement; then fsbench-gate-verdict: pass (good), fail (regressed) or skip (cannot
 * judge). A NULL-ended array for lava_job_spec.steps (free with lava_steps_free), the cases
 * counted in *@ret_n; NULL when out of memory.
 */
char **lava_verdict_steps(const json_t *doc, size_t *ret_n);
void lava_steps_free(char **steps);

/* The job's directory, where --kernel's copies go: -o @out's, else the current one. */
void lava_job_outdir(const char *out, char *dir, size_t len);

/*
 * What a LAVA qemu job's boot asks of kg_prepare(): the worker is another machine; it boots
 * the PVH vmlinux and the initramfs a local boot boots, LAVA's test shell in the ramdisk.
 * lava_job_kernel asks for a board's: the bzImage, and the drivers of a test shell's overlay
 * disk (an ext2 disk labelled LAVA on IDE, which /init mounts where the test definition's
 * paths say).
 */
extern const struct kg_prep_needs lava_prep_needs;

/*
 * --kernel: @x->a.spec[0] resolved (its .deb's extraction journalled, as kernel-run's) and
 * its initramfs built for LAVA on a @device_type, both copied into @outdir as
 * vmlinux-TAGRELEASE-HASH (qemu, a PVH entry; else the bzImage, vmlinuz-...) and
 * fsbench-initramfs-TAGRELEASE-HASH.cpio (lava_job_images); their file:// URLs into @kurl and
 * @rurl. 0, or -errno with @err and *@ret_fail the kind (a usage error, an unusable kernel,
 * or a failed journal or copy).
 */
int lava_job_kernel(struct kg_ctx *x, const char *device_type, const char *outdir, const char *tag,
		    char *kurl, char *rurl, size_t urllen, enum kg_gate_fail *ret_fail, char *err,
		    size_t errlen);

/*
 * Kernel @i of @x (prepared) and its initramfs copied into @outdir as vmlinux- or vmlinuz-TAGRELEASE-HASH
 * and fsbench-initramfs-TAGRELEASE-HASH.cpio, HASH the first 32 hex digits of the copy's
 * SHA-256 (so a job of another suite or build of one release never replaces another job's
 * files; @tag names the job's part, "baseline-"), their URLs into @kurl and @rurl: file://
 * paths, or with @files_url (where the workers fetch @outdir's files, lava_files_url_check)
 * that URL and the file's name. 0 or -errno with @err naming the file.
 */
int lava_job_images(const struct kg_ctx *x, int i, const char *outdir, const char *tag,
		    const char *files_url, char *kurl, char *rurl, size_t urllen, char *err,
		    size_t errlen);

/* The longest --lava-files-url taken. */
#define LAVA_FILES_URL_MAX 1024

/*
 * Whether @url can say where LAVA's workers fetch a work directory's files
 * (--lava-files-url): http:// or https:// and a host, printable ASCII without spaces,
 * quotes or backslashes, at most LAVA_FILES_URL_MAX bytes. 0, or -EINVAL with @err one line.
 */
int lava_files_url_check(const char *url, char *err, size_t errlen);

/* The job's YAML for @s into @f: device, timeouts, deploy, boot and the test definition. */
int lava_job_write(const struct lava_job_spec *s, FILE *f);

/* The job written to @out (a new file renamed over it) or, when NULL, stdout. 0 or -errno. */
int lava_job_save(const struct lava_job_spec *s, const char *out);

/*
 * The "<workload>.t<threads>.<cell>.r<repetition>" that starts each test case of a run, into
 * @out: the workload and cell slugged, the cell cut (a hash added) to leave room for a metric.
 */
void lava_case_prefix(const char *workload, long long threads, const char *cell, long long rep,
		      char *out, size_t len);

/*
 * The test cases a result gives: one per metric of each complete run, named
 * "<workload>.t<threads>.<cell>.r<repetition>.<metric>" (jobdef.c says why), each passed to
 * @emit with its value in base units and the unit's name, as `export --format lava` spells
 * it (@emit returns 0 or -errno). Returns how many, or the
 * first error @emit returned.
 */
int lava_cases(const json_t *doc,
	       int (*emit)(void *arg, const char *name, double value, const char *unit), void *arg);

#endif
