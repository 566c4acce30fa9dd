/* The operation table: every timed call fsbench records, its JSON key and what it times. */
#ifndef RPT_OP_H
#define RPT_OP_H

#include <stddef.h>

/*
 * Adding an operation is one constant here and one line in rpt_ops[] (op.c); the result
 * schema's "ops" names are checked against the table by tests/unit/test-op.c. The order of
 * the constants is the order of the text tables workloads print.
 */
enum rpt_op {
	RPT_OP_CREATE,
	RPT_OP_OPEN,
	RPT_OP_WRITE,
	RPT_OP_FSYNC,
	RPT_OP_FDATASYNC,
	RPT_OP_SYNC,
	RPT_OP_CLOSE,
	RPT_OP_UNLINK,
	RPT_OP_SYNC_FILE_RANGE,
	RPT_OP_FADVISE,
	RPT_OP_VICTIM,
	RPT_OP_READ,
	RPT_OP_MKDIR,
	RPT_OP_RMDIR,
	RPT_OP_STAT,
	RPT_OP_SYNCFS,
	/* dbench's NBENCH operations, in dbench's table order: each one whole, as dbench times it */
	RPT_OP_NB_DELTREE,
	RPT_OP_NB_FLUSH,
	RPT_OP_NB_CLOSE,
	RPT_OP_NB_LOCKX,
	RPT_OP_NB_RMDIR,
	RPT_OP_NB_MKDIR,
	RPT_OP_NB_RENAME,
	RPT_OP_NB_READX,
	RPT_OP_NB_WRITEX,
	RPT_OP_NB_UNLINK,
	RPT_OP_NB_UNLOCKX,
	RPT_OP_NB_FIND_FIRST,
	RPT_OP_NB_SET_FILE_INFORMATION,
	RPT_OP_NB_QUERY_FILE_INFORMATION,
	RPT_OP_NB_QUERY_PATH_INFORMATION,
	RPT_OP_NB_QUERY_FS_INFORMATION,
	RPT_OP_NB_NTCREATEX,
	RPT_OP_COUNT
};

struct rpt_op_info {
	const char *name; /* the key in a run's "ops" object, and the metric prefix ("fsync.p99") */
	const char *times; /* what one recorded latency covers */
	int rank; /* position in compare tables and report plots: a small-file loop's order */
};

/* Indexed by enum rpt_op. Every latency is in nanoseconds (hist.h). */
extern const struct rpt_op_info rpt_ops[RPT_OP_COUNT];

/* The operation named @name (a JSON "ops" key), or -ENOENT. */
int rpt_op_find(const char *name);

/* The operation compare and report list at position @rank (0-based), or NULL past the last. */
const char *rpt_op_name_at(int rank);

/* What a run's progress counts: its "series.unit" and a workload's rate. */
enum rpt_unit {
	RPT_UNIT_FILES,
	RPT_UNIT_BYTES,
};

/* "files" or "bytes": the JSON spelling. */
const char *rpt_unit_name(enum rpt_unit u);

/* A JSON "unit" string (NULL: absent) as the enum; anything but "bytes" counts files. */
enum rpt_unit rpt_unit_parse(const char *name);

#endif
