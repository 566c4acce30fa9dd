/* The operation table: every timed call fsbench records, its JSON key and what it times. */
#ifndef MDL_OP_H
#define MDL_OP_H

#include <stddef.h>

/*
 * Adding an operation is one constant here and one line in mdl_ops[] (op.c); the result
 * schema's "ops" names are checked against the table by tests/unit/test-op.c. The order of
 * the constants is the order of the text tables workloads print.
 */
enum mdl_op {
	MDL_OP_CREATE,
	MDL_OP_OPEN,
	MDL_OP_WRITE,
	MDL_OP_FSYNC,
	MDL_OP_FDATASYNC,
	MDL_OP_SYNC,
	MDL_OP_CLOSE,
	MDL_OP_UNLINK,
	MDL_OP_SYNC_FILE_RANGE,
	MDL_OP_FADVISE,
	MDL_OP_VICTIM,
	MDL_OP_READ,
	MDL_OP_MKDIR,
	MDL_OP_RMDIR,
	MDL_OP_STAT,
	MDL_OP_SYNCFS,
	/* dbench's NBENCH operations, in dbench's table order: each one whole, as dbench times it */
	MDL_OP_NB_DELTREE,
	MDL_OP_NB_FLUSH,
	MDL_OP_NB_CLOSE,
	MDL_OP_NB_LOCKX,
	MDL_OP_NB_RMDIR,
	MDL_OP_NB_MKDIR,
	MDL_OP_NB_RENAME,
	MDL_OP_NB_READX,
	MDL_OP_NB_WRITEX,
	MDL_OP_NB_UNLINK,
	MDL_OP_NB_UNLOCKX,
	MDL_OP_NB_FIND_FIRST,
	MDL_OP_NB_SET_FILE_INFORMATION,
	MDL_OP_NB_QUERY_FILE_INFORMATION,
	MDL_OP_NB_QUERY_PATH_INFORMATION,
	MDL_OP_NB_QUERY_FS_INFORMATION,
	MDL_OP_NB_NTCREATEX,
	MDL_OP_COUNT
};

struct mdl_op_info {
	const char *name; /* the key in a run's "ops" object, and the metric prefix ("fsync.p99") */
	const char *times; /* what one recorded latency covers */
	int rank; /* position in compare tables and report plots: a small-file loop's order */
};

/* Indexed by enum mdl_op. Every latency is in nanoseconds (hist.h). */
extern const struct mdl_op_info mdl_ops[MDL_OP_COUNT];

/* The operation named @name (a JSON "ops" key), or -ENOENT. */
int mdl_op_find(const char *name);

/* The operation compare and report list at position @rank (0-based), or NULL past the last. */
const char *mdl_op_name_at(int rank);

/* What a run's progress counts: its "series.unit" and a workload's rate. */
enum mdl_unit {
	MDL_UNIT_FILES,
	MDL_UNIT_BYTES,
};

/* "files" or "bytes": the JSON spelling. */
const char *mdl_unit_name(enum mdl_unit u);

/* A JSON "unit" string (NULL: absent) as the enum; anything but "bytes" counts files. */
enum mdl_unit mdl_unit_parse(const char *name);

#endif
