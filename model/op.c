/* The operation table and the progress units (see op.h). */
#include "model/op.h"

#include <errno.h>
#include <string.h>

const struct mdl_op_info mdl_ops[MDL_OP_COUNT] = {
	[MDL_OP_CREATE] = { .name = "create", .times = "open(O_CREAT) of a new file", .rank = 0 },
	[MDL_OP_OPEN] = { .name = "open",
			  .times = "open() of an existing file (post-loop fsync phases)",
			  .rank = 1 },
	[MDL_OP_WRITE] = { .name = "write", .times = "one write() call", .rank = 2 },
	[MDL_OP_FSYNC] = { .name = "fsync", .times = "fsync()", .rank = 3 },
	[MDL_OP_FDATASYNC] = { .name = "fdatasync", .times = "fdatasync()", .rank = 4 },
	[MDL_OP_SYNC] = { .name = "sync", .times = "sync()", .rank = 5 },
	[MDL_OP_CLOSE] = { .name = "close", .times = "close()", .rank = 8 },
	[MDL_OP_UNLINK] = { .name = "unlink", .times = "unlink()", .rank = 9 },
	[MDL_OP_SYNC_FILE_RANGE] = { .name = "sync_file_range",
				     .times = "one sync_file_range() call",
				     .rank = 6 },
	[MDL_OP_FADVISE] = { .name = "fadvise",
			     .times = "posix_fadvise(DONTNEED) of a written chunk",
			     .rank = 7 },
	[MDL_OP_VICTIM] = { .name = "victim",
			    .times = "one whole victim operation (read, or write+fdatasync)",
			    .rank = 32 },
	[MDL_OP_READ] = { .name = "read", .times = "one read() call", .rank = 11 },
	[MDL_OP_MKDIR] = { .name = "mkdir", .times = "mkdir() of a new directory", .rank = 10 },
	[MDL_OP_RMDIR] = { .name = "rmdir", .times = "rmdir() of an empty directory", .rank = 13 },
	[MDL_OP_STAT] = { .name = "stat",
			  .times = "stat() of a file or directory, symbolic links not followed",
			  .rank = 12 },
	[MDL_OP_SYNCFS] = { .name = "syncfs",
			    .times = "syncfs() of the filesystem, after a phase",
			    .rank = 14 },
	[MDL_OP_NB_DELTREE] = { .name = "nb_deltree",
				.times = "one NBENCH Deltree as dbench's fileio backend does it",
				.rank = 15 },
	[MDL_OP_NB_FLUSH] = { .name = "nb_flush",
			      .times = "one NBENCH Flush as dbench's fileio backend does it",
			      .rank = 16 },
	[MDL_OP_NB_CLOSE] = { .name = "nb_close",
			      .times = "one NBENCH Close as dbench's fileio backend does it",
			      .rank = 17 },
	[MDL_OP_NB_LOCKX] = { .name = "nb_lockx",
			      .times = "one NBENCH LockX as dbench's fileio backend does it",
			      .rank = 18 },
	[MDL_OP_NB_RMDIR] = { .name = "nb_rmdir",
			      .times = "one NBENCH Rmdir as dbench's fileio backend does it",
			      .rank = 19 },
	[MDL_OP_NB_MKDIR] = { .name = "nb_mkdir",
			      .times = "one NBENCH Mkdir as dbench's fileio backend does it",
			      .rank = 20 },
	[MDL_OP_NB_RENAME] = { .name = "nb_rename",
			       .times = "one NBENCH Rename as dbench's fileio backend does it",
			       .rank = 21 },
	[MDL_OP_NB_READX] = { .name = "nb_readx",
			      .times = "one NBENCH ReadX as dbench's fileio backend does it",
			      .rank = 22 },
	[MDL_OP_NB_WRITEX] = { .name = "nb_writex",
			       .times = "one NBENCH WriteX as dbench's fileio backend does it",
			       .rank = 23 },
	[MDL_OP_NB_UNLINK] = { .name = "nb_unlink",
			       .times = "one NBENCH Unlink as dbench's fileio backend does it",
			       .rank = 24 },
	[MDL_OP_NB_UNLOCKX] = { .name = "nb_unlockx",
				.times = "one NBENCH UnlockX as dbench's fileio backend does it",
				.rank = 25 },
	[MDL_OP_NB_FIND_FIRST] = { .name = "nb_find_first",
				   .times =
					   "one NBENCH FIND_FIRST as dbench's fileio backend does it",
				   .rank = 26 },
	[MDL_OP_NB_SET_FILE_INFORMATION] = { .name = "nb_set_file_information",
					     .times =
						     "one NBENCH SET_FILE_INFORMATION as dbench's fileio backend does it",
					     .rank = 27 },
	[MDL_OP_NB_QUERY_FILE_INFORMATION] = { .name = "nb_query_file_information",
					       .times =
						       "one NBENCH QUERY_FILE_INFORMATION as dbench's fileio backend does it",
					       .rank = 28 },
	[MDL_OP_NB_QUERY_PATH_INFORMATION] = { .name = "nb_query_path_information",
					       .times =
						       "one NBENCH QUERY_PATH_INFORMATION as dbench's fileio backend does it",
					       .rank = 29 },
	[MDL_OP_NB_QUERY_FS_INFORMATION] = { .name = "nb_query_fs_information",
					     .times =
						     "one NBENCH QUERY_FS_INFORMATION as dbench's fileio backend does it",
					     .rank = 30 },
	[MDL_OP_NB_NTCREATEX] = { .name = "nb_ntcreatex",
				  .times =
					  "one NBENCH NTCreateX as dbench's fileio backend does it",
				  .rank = 31 },
};

int mdl_op_find(const char *name)
{
	for (int op = 0; op < MDL_OP_COUNT; op++)
		if (!strcmp(mdl_ops[op].name, name))
			return op;
	return -ENOENT;
}

const char *mdl_op_name_at(int rank)
{
	for (int op = 0; op < MDL_OP_COUNT; op++)
		if (mdl_ops[op].rank == rank)
			return mdl_ops[op].name;
	return NULL;
}

const char *mdl_unit_name(enum mdl_unit u)
{
	return u == MDL_UNIT_BYTES ? "bytes" : "files";
}

enum mdl_unit mdl_unit_parse(const char *name)
{
	return name && !strcmp(name, "bytes") ? MDL_UNIT_BYTES : MDL_UNIT_FILES;
}
