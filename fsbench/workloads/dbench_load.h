/* dbench's NBENCH loadfiles, parsed once before any work into the lines that clients replay. */
#ifndef FSB_DBENCH_LOAD_H
#define FSB_DBENCH_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The operations of dbench's fileio backend, in its table's order (the order it prints). */
enum nb_op {
	NB_DELTREE,
	NB_FLUSH,
	NB_CLOSE,
	NB_LOCKX,
	NB_RMDIR,
	NB_MKDIR,
	NB_RENAME,
	NB_READX,
	NB_WRITEX,
	NB_UNLINK,
	NB_UNLOCKX,
	NB_FIND_FIRST,
	NB_SET_FILE_INFORMATION,
	NB_QUERY_FILE_INFORMATION,
	NB_QUERY_PATH_INFORMATION,
	NB_QUERY_FS_INFORMATION,
	NB_NTCREATEX,
	NB_NOPS, /* the operations above are timed and counted; Sleep is neither */
	NB_SLEEP = NB_NOPS,
};

/* dbench's names, as its loadfiles spell them (matched without case) and its table prints. */
extern const char *const nb_op_names[NB_NOPS + 1];

/*
 * In a parsed path, this byte stands where the loadfile says "client1": each client
 * replays the line in its own directory, clients/client<N> (N from 0), as dbench does.
 */
#define NB_CLIENT_MARK '\001'

/* Longest path after substitution, and the limits a loadfile is held to. */
#define NB_PATH_MAX 1024
#define NB_LINE_MAX 1024
#define NB_MAX_LINES 10000000u
#define NB_MAX_REPEAT 1000000u
#define NB_MAX_IO (16u << 20) /* dbench's own read/write buffer is 16 MiB */

struct nb_line {
	uint8_t op; /* enum nb_op */
	bool ok; /* the loadfile expects success (NT_STATUS_OK or 0x0) */
	uint32_t lineno; /* 1-based line in the file */
	uint32_t repeat; /* REPEAT N before it: run N times; else 1 */
	uint64_t target_ns; /* leading timestamp: start no earlier than this into the pass; 0 none */
	int64_t p[4]; /* numeric parameters after the paths (handle, offset, size, ...) */
	uint32_t path, path2; /* offsets into the pool, relative to the client's -D; 0: none */
};

struct nb_load {
	struct nb_line *v;
	size_t n, cap;
	char *pool; /* NUL-terminated paths; offset 0 is the empty string */
	size_t pool_len, pool_cap;
	uint32_t nlines; /* lines in the file: dbench's line counter advances this much a pass */
	uint64_t count[NB_NOPS]; /* operations one pass performs, REPEAT counted */
	uint32_t max_io; /* largest ReadX/WriteX size */
	bool timed; /* some line has a timestamp */
};

/*
 * Reads the loadfile @f (named @name in errors). 0, or -EINVAL with @err naming the file,
 * the line number and what is wrong with it, or another -errno (reading, memory).
 */
int nb_load_parse(FILE *f, const char *name, struct nb_load *ret, char *err, size_t errlen);

/* Opens @path (a regular file, at most 1 GiB) and parses it as nb_load_parse(). */
int nb_load_read(const char *path, struct nb_load *ret, char *err, size_t errlen);

void nb_load_free(struct nb_load *l);

static inline const char *nb_path(const struct nb_load *l, uint32_t off)
{
	return l->pool + off;
}

#endif
