/* The knob table (knob.h): every knob fsbench can read and change, and how to find one. */
#include "probes/knob/knob.h"
#include "probes/knob/knob_internal.h"

#include <limits.h>
#include <string.h>

/*
 * Ranges are what makes sense to ask for; the kernel has the last word (nr_requests
 * above the hardware queue depth without a scheduler, for one) and a refusal rolls the
 * batch back. nr_requests starts at 4 because the kernel silently raises smaller values
 * to BLKDEV_MIN_RQ. max_sectors_kb's upper bound is read from max_hw_sectors_kb.
 */
const struct knob_def knob_defs[] = {
	{
		.name = "scheduler",
		.scope = KNOB_SCOPE_QUEUE,
		.file = "scheduler",
		.type = KNOB_SELECT,
		.touch = KNOB_TOUCH_KERNEL,
		.help = "I/O scheduler, one of those the queue lists",
	},
	{
		.name = "nr_requests",
		.scope = KNOB_SCOPE_QUEUE,
		.file = "nr_requests",
		.type = KNOB_INT,
		.min = 4,
		.max = 65536,
		.touch = KNOB_TOUCH_KERNEL,
		.help = "requests the scheduler may hold (reset by a scheduler switch)",
	},
	{
		.name = "write_cache",
		.scope = KNOB_SCOPE_QUEUE,
		.file = "write_cache",
		.type = KNOB_CACHE,
		.touch = KNOB_TOUCH_KERNEL,
		.help = "whether the kernel sends flushes (FUA/cache flush); does not switch the drive's cache",
	},
	{
		.name = "drive_cache",
		.scope = KNOB_SCOPE_DRIVE,
		.file = "cache_type",
		.type = KNOB_CACHE,
		.touch = KNOB_TOUCH_DRIVE,
		.help = "the SCSI/SATA drive's own write cache (MODE SELECT): switches the drive",
	},
	{
		.name = "read_ahead_kb",
		.scope = KNOB_SCOPE_QUEUE,
		.file = "read_ahead_kb",
		.type = KNOB_INT,
		.max = 1 << 20,
		.touch = KNOB_TOUCH_KERNEL,
		.help = "read-ahead window",
	},
	{
		.name = "wbt_lat_usec",
		.scope = KNOB_SCOPE_QUEUE,
		.file = "wbt_lat_usec",
		.type = KNOB_INT,
		.min = -1,
		.max = LL_BIG,
		.touch = KNOB_TOUCH_KERNEL,
		.help = "writeback throttling target latency; 0 off, -1 the kernel's default",
	},
	{
		.name = "max_sectors_kb",
		.scope = KNOB_SCOPE_QUEUE,
		.file = "max_sectors_kb",
		.type = KNOB_INT,
		.min = 4,
		.max = LL_BIG,
		.max_file = "max_hw_sectors_kb",
		.touch = KNOB_TOUCH_KERNEL,
		.help = "largest request the block layer builds (at most max_hw_sectors_kb)",
	},
	{
		.name = "nomerges",
		.scope = KNOB_SCOPE_QUEUE,
		.file = "nomerges",
		.type = KNOB_INT,
		.max = 2,
		.touch = KNOB_TOUCH_KERNEL,
		.help = "0 merge, 1 only simple merges, 2 no merges",
	},
	{
		.name = "rq_affinity",
		.scope = KNOB_SCOPE_QUEUE,
		.file = "rq_affinity",
		.type = KNOB_INT,
		.max = 2,
		.touch = KNOB_TOUCH_KERNEL,
		.help = "complete requests on the submitting CPU's group (1) or the CPU itself (2)",
	},
	{
		.name = "iosched/",
		.scope = KNOB_SCOPE_IOSCHED,
		.type = KNOB_INT,
		.min = -LL_BIG,
		.max = LL_BIG,
		.touch = KNOB_TOUCH_KERNEL,
		.help = "a tunable of the active scheduler (queue/iosched/)",
	},
	{
		.name = "barrier",
		.scope = KNOB_SCOPE_MOUNT,
		.type = KNOB_BOOL,
		.max = 1,
		.touch = KNOB_TOUCH_MOUNT,
		.help = "write barriers (ext3/ext4 barrier=, btrfs [no]barrier; xfs only on), changed by remount",
	},
	{
		.name = "dirty_ratio",
		.scope = KNOB_SCOPE_VM,
		.file = "dirty_ratio",
		.type = KNOB_INT,
		.max = 100,
		.touch = KNOB_TOUCH_KERNEL,
		.pair = "dirty_bytes",
		.help = "% of memory dirty before writers are throttled",
	},
	{
		.name = "dirty_background_ratio",
		.scope = KNOB_SCOPE_VM,
		.file = "dirty_background_ratio",
		.type = KNOB_INT,
		.max = 100,
		.touch = KNOB_TOUCH_KERNEL,
		.pair = "dirty_background_bytes",
		.help = "% of memory dirty before background writeback",
	},
	{
		.name = "dirty_bytes",
		.scope = KNOB_SCOPE_VM,
		.file = "dirty_bytes",
		.type = KNOB_INT,
		.min = 8192,
		.max = LL_BIG,
		.touch = KNOB_TOUCH_KERNEL,
		.pair = "dirty_ratio",
		.help = "bytes dirty before writers are throttled (zeroes dirty_ratio)",
	},
	{
		.name = "dirty_background_bytes",
		.scope = KNOB_SCOPE_VM,
		.file = "dirty_background_bytes",
		.type = KNOB_INT,
		.min = 1,
		.max = LL_BIG,
		.touch = KNOB_TOUCH_KERNEL,
		.pair = "dirty_background_ratio",
		.help = "bytes dirty before background writeback",
	},
	{
		.name = "dirty_expire_centisecs",
		.scope = KNOB_SCOPE_VM,
		.file = "dirty_expire_centisecs",
		.type = KNOB_INT,
		.max = INT_MAX,
		.touch = KNOB_TOUCH_KERNEL,
		.help = "age at which dirty data is written back",
	},
	{
		.name = "dirty_writeback_centisecs",
		.scope = KNOB_SCOPE_VM,
		.file = "dirty_writeback_centisecs",
		.type = KNOB_INT,
		.max = INT_MAX,
		.touch = KNOB_TOUCH_KERNEL,
		.help = "period of the flusher threads; 0 off",
	},
	{ .name = NULL },
};

const struct knob_def *knob_def_find(const char *name)
{
	if (!strncmp(name, "iosched/", 8)) {
		const char *f = name + 8;

		/* one file name, no way out of the directory */
		if (!*f || strchr(f, '/') || !strcmp(f, ".") || !strcmp(f, ".."))
			return NULL;
	}
	for (const struct knob_def *d = knob_defs; d->name; d++)
		if (d->scope == KNOB_SCOPE_IOSCHED ? !strncmp(name, "iosched/", 8) :
						     !strcmp(name, d->name))
			return d;
	return NULL;
}

const char *knob_touch_name(enum knob_touch touch)
{
	switch (touch) {
	case KNOB_TOUCH_DRIVE:
		return "drive";
	case KNOB_TOUCH_MOUNT:
		return "mount";
	case KNOB_TOUCH_KERNEL:
		break;
	}
	return "kernel";
}

const char *knob_touch_words(const struct knob_def *d)
{
	if (!strcmp(d->name, "write_cache"))
		return "kernel: whether it sends flushes; the drive's cache is unchanged";
	switch (d->touch) {
	case KNOB_TOUCH_DRIVE:
		return "drive: switches the drive's own write cache";
	case KNOB_TOUCH_MOUNT:
		return "mount: remount option";
	case KNOB_TOUCH_KERNEL:
		break;
	}
	return "kernel";
}

json_t *knob_touches_json(const json_t *values)
{
	json_t *o = json_object(), *v;
	const char *name;

	json_object_foreach((json_t *)values, name, v)
	{
		const struct knob_def *d = knob_def_find(name);

		if (d)
			json_object_set_new(o, name, json_string(knob_touch_name(d->touch)));
	}
	return o;
}
