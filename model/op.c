/* The operation table and the progress units (see op.h). */
#include "model/op.h"

#include <errno.h>
#include <string.h>

const struct rpt_op_info rpt_ops[RPT_OP_COUNT] = {
	[RPT_OP_CREATE] = { .name = "create", .times = "open(O_CREAT) of a new file", .rank = 0 },
	[RPT_OP_OPEN] = { .name = "open",
			  .times = "open() of an existing file (post-loop fsync phases)",
			  .rank = 1 },
	[RPT_OP_WRITE] = { .name = "write", .times = "one write() call", .rank = 2 },
	[RPT_OP_FSYNC] = { .name = "fsync", .times = "fsync()", .rank = 3 },
	[RPT_OP_FDATASYNC] = { .name = "fdatasync", .times = "fdatasync()", .rank = 4 },
	[RPT_OP_SYNC] = { .name = "sync", .times = "sync()", .rank = 5 },
	[RPT_OP_CLOSE] = { .name = "close", .times = "close()", .rank = 8 },
	[RPT_OP_UNLINK] = { .name = "unlink", .times = "unlink()", .rank = 9 },
	[RPT_OP_SYNC_FILE_RANGE] = { .name = "sync_file_range",
				     .times = "one sync_file_range() call",
				     .rank = 6 },
	[RPT_OP_FADVISE] = { .name = "fadvise",
			     .times = "posix_fadvise(DONTNEED) of a written chunk",
			     .rank = 7 },
	[RPT_OP_VICTIM] = { .name = "victim",
			    .times = "one whole victim operation (read, or write+fdatasync)",
			    .rank = 15 },
	[RPT_OP_READ] = { .name = "read", .times = "one read() call", .rank = 11 },
	[RPT_OP_MKDIR] = { .name = "mkdir", .times = "mkdir() of a new directory", .rank = 10 },
	[RPT_OP_RMDIR] = { .name = "rmdir", .times = "rmdir() of an empty directory", .rank = 13 },
	[RPT_OP_STAT] = { .name = "stat",
			  .times = "stat() of a file or directory, symbolic links not followed",
			  .rank = 12 },
	[RPT_OP_SYNCFS] = { .name = "syncfs",
			    .times = "syncfs() of the filesystem, after a phase",
			    .rank = 14 },
};

int rpt_op_find(const char *name)
{
	for (int op = 0; op < RPT_OP_COUNT; op++)
		if (!strcmp(rpt_ops[op].name, name))
			return op;
	return -ENOENT;
}

const char *rpt_op_name_at(int rank)
{
	for (int op = 0; op < RPT_OP_COUNT; op++)
		if (rpt_ops[op].rank == rank)
			return rpt_ops[op].name;
	return NULL;
}

const char *rpt_unit_name(enum rpt_unit u)
{
	return u == RPT_UNIT_BYTES ? "bytes" : "files";
}

enum rpt_unit rpt_unit_parse(const char *name)
{
	return name && !strcmp(name, "bytes") ? RPT_UNIT_BYTES : RPT_UNIT_FILES;
}
