/* Loading one eBPF source on the running kernel: the build that loads, the verifier's reasons. */
#ifndef PROBE_BPF_LOAD_H
#define PROBE_BPF_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "probes/bpf/bpf_source.h"

struct bpf_object;
struct fsb_bpf_cfg;

/* libbpf's messages go nowhere (a skipped source says why itself); call before loading. */
void bpf_load_quiet(void);

/*
 * Loads @src told @cfg: its tp_btf build, else its raw_tp one (that one alone when
 * FSBENCH_BPF_RAW_TP is set). Returns the object with *@ret_raw_tp saying which build it
 * is, and @why "" or, when the raw_tp build is a fallback, why the tp_btf one was refused
 * ("tp_btf refused (STRERROR): PROG: LINE; ..."). Or NULL, *@ret_err = -errno (-EPERM: no
 * privilege) and @why saying why: "loading NAME.bpf.o: STRERROR", then per build the
 * verifier's first error line for each program it refused ("; tp_btf: PROG: LINE; PROG:
 * LINE; raw_tp: ...").
 */
struct bpf_object *bpf_load_source(const struct bpf_source *src, const struct fsb_bpf_cfg *cfg,
				   bool *ret_raw_tp, char *why, size_t len, int *ret_err);

/*
 * The running kernel's HZ: CONFIG_HZ from /boot/config-RELEASE, else measured from the
 * jiffies and clock that /proc/timer_list shows 100 ms apart (a guest has no config file
 * and Debian's kernels no /proc/config.gz). Cached. HZ, or -errno with @why set.
 */
int bpf_load_kernel_hz(char *why, size_t len);

/*
 * The number of arguments of tracepoint @tp (its btf_trace_@tp prototype in the kernel's
 * BTF, the leading void * aside; that BTF is loaded once). The number, or -errno
 * (-ENOENT: no such tracepoint, or no kernel BTF).
 */
int bpf_load_tp_nargs(const char *tp);

#endif
