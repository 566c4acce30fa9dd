/* What kernel-gate, kernel-run and the LAVA commands share: options, context, preparation. */
#ifndef FSB_CMD_KGATE_H
#define FSB_CMD_KGATE_H

#include "fsbench/kgate/kgate.h"

#define KG_DEFAULT_SUITE "kgate"
#define KG_MAX_FS 16

struct kg_args {
	const char *spec[2], *modules[2], *append[2], *common_append;
	const char *suite, *fs, *threads, *gate_file, *workdir, *json;
	int boots, repetitions, jobs;
	double alpha, threshold, max_host_load, floor_multiple;
	struct kg_vm vm;
};

struct kg_ctx {
	struct kg_args a;
	struct kg_kernel k[2];
	char initramfs[2][PATH_MAX];
	char suite[PATH_MAX];
	char workdir[PATH_MAX];
	const char *suite_args[16];
	char reps[16];
	const char *fstypes[KG_MAX_FS + 1];
	char fsstore[KG_MAX_FS][32];
	bool lava; /* the initramfs is for a LAVA job */
};

/*
 * Finds the suite and its filesystems, resolves x->a.spec[0..nk-1] and builds an initramfs
 * for each, creates the work directory. Prints what went wrong as @cmd; returns 0 to go
 * on, else the exit status (2 usage, 125 an unusable kernel).
 */
int kg_prepare(struct kg_ctx *x, int nk, const char *cmd);

#endif
