/* Kernel types of the BPF sources, trimmed from the BTF of 6.18.44-fc-v595 by ci/gen-vmlinux-h; do not edit. */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

typedef unsigned char __u8;
typedef signed char __s8;
typedef short unsigned int __u16;
typedef short int __s16;
typedef unsigned int __u32;
typedef int __s32;
typedef long long unsigned int __u64;
typedef long long int __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u64 __be64;
typedef __u16 __le16;
typedef __u32 __le32;
typedef __u64 __le64;
typedef __u32 __wsum;
typedef __u16 __sum16;
typedef __u8 u8;
typedef __s8 s8;
typedef __u16 u16;
typedef __s16 s16;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;
typedef __s64 s64;
typedef _Bool bool;
#endif

typedef unsigned int __u32;

typedef long long unsigned int __u64;

typedef __u32 u32;

typedef __u64 u64;

typedef u32 __kernel_dev_t;

typedef __kernel_dev_t dev_t;

typedef u64 sector_t;

typedef struct {
	int counter;
} atomic_t;

struct gendisk {
	int major;
	int first_minor;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
};

struct request_queue {
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	struct gendisk *disk;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
};

struct block_device {
	long : 64;
	long : 64;
	struct gendisk *bd_disk;
	long : 64;
	long : 64;
	long : 64;
	int : 32;
	dev_t bd_dev;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
};

typedef __u32 blk_opf_t;

struct bio {
	long : 64;
	struct block_device *bi_bdev;
	blk_opf_t bi_opf;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
};

enum req_flag_bits {
	__REQ_FAILFAST_DEV = 8,
	__REQ_FAILFAST_TRANSPORT = 9,
	__REQ_FAILFAST_DRIVER = 10,
	__REQ_SYNC = 11,
	__REQ_META = 12,
	__REQ_PRIO = 13,
	__REQ_NOMERGE = 14,
	__REQ_IDLE = 15,
	__REQ_INTEGRITY = 16,
	__REQ_FUA = 17,
	__REQ_PREFLUSH = 18,
	__REQ_RAHEAD = 19,
	__REQ_BACKGROUND = 20,
	__REQ_NOWAIT = 21,
	__REQ_POLLED = 22,
	__REQ_ALLOC_CACHE = 23,
	__REQ_SWAP = 24,
	__REQ_DRV = 25,
	__REQ_FS_PRIVATE = 26,
	__REQ_ATOMIC = 27,
	__REQ_P2PDMA = 28,
	__REQ_NOUNMAP = 29,
	__REQ_NR_BITS = 30,
};

struct request {
	struct request_queue *q;
	long : 64;
	long : 64;
	blk_opf_t cmd_flags;
	long : 64;
	long : 64;
	sector_t __sector;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	u64 start_time_ns;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
};

typedef unsigned int tid_t;

struct transaction_s {
	long : 64;
	tid_t t_tid;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	int : 32;
	atomic_t t_handle_count;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
};

typedef struct transaction_s transaction_t;

struct journal_s {
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	struct block_device *j_fs_dev;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
	long : 64;
};

typedef struct journal_s journal_t;

/* UAPI constants (ci/gen-vmlinux-h adds them) */
enum bpf_map_type {
	BPF_MAP_TYPE_UNSPEC = 0,
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PROG_ARRAY = 3,
	BPF_MAP_TYPE_PERF_EVENT_ARRAY = 4,
	BPF_MAP_TYPE_PERCPU_HASH = 5,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_STACK_TRACE = 7,
	BPF_MAP_TYPE_CGROUP_ARRAY = 8,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_LRU_PERCPU_HASH = 10,
	BPF_MAP_TYPE_LPM_TRIE = 11,
	BPF_MAP_TYPE_ARRAY_OF_MAPS = 12,
	BPF_MAP_TYPE_HASH_OF_MAPS = 13,
	BPF_MAP_TYPE_DEVMAP = 14,
	BPF_MAP_TYPE_SOCKMAP = 15,
	BPF_MAP_TYPE_CPUMAP = 16,
	BPF_MAP_TYPE_XSKMAP = 17,
	BPF_MAP_TYPE_SOCKHASH = 18,
	BPF_MAP_TYPE_CGROUP_STORAGE_DEPRECATED = 19,
	BPF_MAP_TYPE_CGROUP_STORAGE = 19,
	BPF_MAP_TYPE_REUSEPORT_SOCKARRAY = 20,
	BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE_DEPRECATED = 21,
	BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE = 21,
	BPF_MAP_TYPE_QUEUE = 22,
	BPF_MAP_TYPE_STACK = 23,
	BPF_MAP_TYPE_SK_STORAGE = 24,
	BPF_MAP_TYPE_DEVMAP_HASH = 25,
	BPF_MAP_TYPE_STRUCT_OPS = 26,
	BPF_MAP_TYPE_RINGBUF = 27,
	BPF_MAP_TYPE_INODE_STORAGE = 28,
	BPF_MAP_TYPE_TASK_STORAGE = 29,
	BPF_MAP_TYPE_BLOOM_FILTER = 30,
	BPF_MAP_TYPE_USER_RINGBUF = 31,
	BPF_MAP_TYPE_CGRP_STORAGE = 32,
	BPF_MAP_TYPE_ARENA = 33,
	__MAX_BPF_MAP_TYPE = 34,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
	BPF_F_LOCK = 4,
};

enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
};

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif /* __VMLINUX_H__ */
