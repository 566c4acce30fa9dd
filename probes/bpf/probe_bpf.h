/* Kernel-side attribution with eBPF: start the sources, collect their figures, explain slow calls. */
#ifndef PROBE_BPF_H
#define PROBE_BPF_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* Up to 32 sources; a mask bit per entry of bpf_sources[]. */
#define PROBE_BPF_ALL UINT32_MAX

/*
 * Parses --probes: "all", "none", or a comma list of source names. Returns 0, or -EINVAL
 * with @err naming the unknown source and the known ones.
 */
int probe_bpf_select(const char *list, uint32_t *ret_mask, char *err, size_t errlen);

/* Names of every source, comma-separated, for help texts. Static storage. */
const char *probe_bpf_names(void);

/* What the sources filter on. */
struct probe_bpf_target {
	bool has_disk;
	unsigned disk_major, disk_minor; /* whole disk */
	unsigned bdev_major, bdev_minor; /* the filesystem's block device */
	unsigned s_major, s_minor; /* the superblock's s_dev */
	char fstype[64];
	char disk[64]; /* kernel name, for the result */
	char bdi[32]; /* backing_dev_info name; "" when unknown */
};

struct probe_bpf;

/*
 * Loads and attaches every source in @mask that applies to @t. A source that cannot
 * (no privilege, no BTF, another filesystem) is kept with status "skipped: <reason>";
 * that is never an error. The programs record nothing until *@arm_when becomes non-zero
 * (read atomically; the run's start time), or until probe_bpf_arm(). Returns 0 with
 * *@ret set, or -ENOMEM.
 */
int probe_bpf_start(const struct probe_bpf_target *t, uint32_t mask, const uint64_t *arm_when,
		    struct probe_bpf **ret);

/* Arms now (tests, and runs without a start time). */
void probe_bpf_arm(struct probe_bpf *b);

/* Number of sources whose status is "ok". */
int probe_bpf_loaded(const struct probe_bpf *b);

/*
 * Whether FSBENCH_BPF_DISARMED is set (and not "0"): a benchmark's switch. The sources load
 * and attach as always but are never armed, so each program returns at its first branch
 * and records nothing; every loaded source's status is then PROBE_BPF_DISARMED_STATUS
 * instead of "ok", and the result keeps only what each program cost (docs/cost.md).
 */
bool probe_bpf_disarmed(void);
#define PROBE_BPF_DISARMED_STATUS \
	"disarmed: loaded and attached, never armed (FSBENCH_BPF_DISARMED): a calibration, not a measured run"

/* Disarms, drains the rings, detaches. Idempotent. */
void probe_bpf_stop(struct probe_bpf *b);

/*
 * The result's "probes" object: per source its status, histograms (model/hist.h
 * layout) and counters; the event store's counts; the I/O map. New reference.
 */
json_t *probe_bpf_json(const struct probe_bpf *b, uint64_t t_origin);

/*
 * What the kernel did on the device while a call ran from @t0 to @t1 (monotonic ns):
 * requests, flushes, commits with their phases and the flushes inside them, log forces,
 * throttling. New reference.
 */
json_t *probe_bpf_attribute(const struct probe_bpf *b, uint64_t t0, uint64_t t1);

/*
 * The first line of the verdict that ends verifier log @log (what the verifier refused,
 * after its walk of the instructions) into @buf; false if there is none.
 */
bool probe_bpf_log_error(const char *log, char *buf, size_t len);

/*
 * Checks that each source's objects (both builds) have as many histograms and counters
 * as its entry in sources.c names: 0, or -EINVAL with @err saying which differ. Opens
 * the objects without loading them: needs no privilege. 0 without BPF support.
 */
int probe_bpf_check_sources(char *err, size_t len);

/* Accepts NULL; returns NULL. */
struct probe_bpf *probe_bpf_free(struct probe_bpf *b);

#endif
