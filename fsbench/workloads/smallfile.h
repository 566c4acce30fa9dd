/* The parts of the small-file workload that unit tests reach directly. */
#ifndef FSB_SMALLFILE_H
#define FSB_SMALLFILE_H

#include <stdint.h>

/* fs_mark 3.3's -S methods as bits of what happens when (index: -S value). */
enum {
	SF_FSYNC_BEFORE_CLOSE = 0x1,
	SF_SYNC_SYSCALL = 0x2,
	SF_FIRST_FILE = 0x4,
	SF_POST_REVERSE = 0x8,
	SF_POST_IN_ORDER = 0x10,
};
extern const unsigned smallfile_sync_bits[7];

/* Writes file @g's name (@name_len characters and a NUL) into @out. */
void smallfile_name(char *out, uint64_t g, int name_len, int rand_len, uint64_t seed);

#endif
