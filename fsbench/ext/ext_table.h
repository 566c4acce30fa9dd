/* The extensions' table (ext_table.c), which the layers above core hand to fsb_job_init(). */
#ifndef FSB_EXT_EXT_TABLE_H
#define FSB_EXT_EXT_TABLE_H

#include "fsbench/core/ext.h"

/* NULL-terminated, in the order before() runs; fsb_nexts entries. */
extern const struct fsb_ext *const fsb_exts[];
extern const int fsb_nexts;

#endif
