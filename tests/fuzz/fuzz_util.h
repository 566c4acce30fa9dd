/* What the fuzz targets share: an input as a file path, since the loaders read files. */
#ifndef FSB_FUZZ_UTIL_H
#define FSB_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Writes @data to a memfd and returns "/proc/self/fd/N" in @path (the loaders take paths).
 * Returns the fd to close afterwards, or -1.
 */
int fuzz_file(const uint8_t *data, size_t size, char *path, size_t len);

/* Splits @data at the first "\n--\n" into two files (a baseline and a candidate). */
int fuzz_split(const uint8_t *data, size_t size, const uint8_t **ret_b, size_t *ret_bsize,
	       size_t *ret_asize);

/* A sink for output: /dev/null, opened once. */
FILE *fuzz_null(void);

/* Points stdout and stderr at /dev/null: for targets that run a whole command. */
void fuzz_quiet(void);

#endif
