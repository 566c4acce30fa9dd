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
			    .rank = 32 },
	[RPT_OP_READ] = { .name = "read", .times = "one read() call", .rank = 11 },
	[RPT_OP_MKDIR] = { .name = "mkdir", .times = "mkdir() of a new directory", .rank = 10 },
	[RPT_OP_RMDIR] = { .name = "rmdir", .times = "rmdir() of an empty directory", .rank = 13 },
	[RPT_OP_STAT] = { .name = "stat",
			  .times = "stat() of a file or directory, symbolic links not followed",
			  .rank = 12 },
	[RPT_OP_SYNCFS] = { .name = "syncfs",
			    .times = "syncfs() of the filesystem, after a phase",
			    .rank = 14 },
	[RPT_OP_NB_DELTREE] = { .name = "nb_deltree",
				.times = "one NBENCH Deltree as dbench's fileio backend does it",
				.rank = 15 },
	[RPT_OP_NB_FLUSH] = { .name = "nb_flush",
			      .times = "one NBENCH Flush as dbench's fileio backend does it",
			      .rank = 16 },
	[RPT_OP_NB_CLOSE] = { .name = "nb_close",
			      .times = "one NBENCH Close as dbench's fileio backend does it",
			      .rank = 17 },
	[RPT_OP_NB_LOCKX] = { .name = "nb_lockx",
			      .times = "one NBENCH LockX as dbench's fileio backend does it",
			      .rank = 18 },
	[RPT_OP_NB_RMDIR] = { .name = "nb_rmdir",
			      .times = "one NBENCH Rmdir as dbench's fileio backend does it",
			      .rank = 19 },
	[RPT_OP_NB_MKDIR] = { .name = "nb_mkdir",
			      .times = "one NBENCH Mkdir as dbench's fileio backend does it",
			      .rank = 20 },
	[RPT_OP_NB_RENAME] = { .name = "nb_rename",
			       .times = "one NBENCH Rename as dbench's fileio backend does it",
			       .rank = 21 },
	[RPT_OP_NB_READX] = { .name = "nb_readx",
			      .times = "one NBENCH ReadX as dbench's fileio backend does it",
			      .rank = 22 },
	[RPT_OP_NB_WRITEX] = { .name = "nb_writex",
			       .times = "one NBENCH WriteX as dbench's fileio backend does it",
			       .rank = 23 },
	[RPT_OP_NB_UNLINK] = { .name = "nb_unlink",
			       .times = "one NBENCH Unlink as dbench's fileio backend does it",
			       .rank = 24 },
	[RPT_OP_NB_UNLOCKX] = { .name = "nb_unlockx",
				.times = "one NBENCH UnlockX as dbench's fileio backend does it",
				.rank = 25 },
	[RPT_OP_NB_FIND_FIRST] = { .name = "nb_find_first",
				   .times =
					   "one NBENCH FIND_FIRST as dbench's fileio backend does it",
				   .rank = 26 },
	[RPT_OP_NB_SET_FILE_INFORMATION] = { .name = "nb_set_file_information",
					     .times =
						     "one NBENCH SET_FILE_INFORMATION as dbench's fileio backend does it",
					     .rank = 27 },
	[RPT_OP_NB_QUERY_FILE_INFORMATION] = { .name = "nb_query_file_information",
					       .times =
						       "one NBENCH QUERY_FILE_INFORMATION as dbench's fileio backend does it",
					       .rank = 28 },
	[RPT_OP_NB_QUERY_PATH_INFORMATION] = { .name = "nb_query_path_information",
					       .times =
						       "one NBENCH QUERY_PATH_INFORMATION as dbench's fileio backend does it",
					       .rank = 29 },
	[RPT_OP_NB_QUERY_FS_INFORMATION] = { .name = "nb_query_fs_information",
					     .times =
						     "one NBENCH QUERY_FS_INFORMATION as dbench's fileio backend does it",
					     .rank = 30 },
	[RPT_OP_NB_NTCREATEX] = { .name = "nb_ntcreatex",
				  .times =
					  "one NBENCH NTCreateX as dbench's fileio backend does it",
				  .rank = 31 },
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
