/* The kernel gate's boots as LAVA jobs: a boot backend (kgate/gate_flow.h) on a LAVA server's qemu devices. */
#ifndef FSB_LAVA_BACKEND_H
#define FSB_LAVA_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "fsbench/kgate/gate_flow.h"

/* The LAVA device type the jobs ask for: a qemu worker boots them as a local gate does. */
#define LAVA_BACKEND_DEVICE_TYPE "qemu"
/* a verdict job's timeout: a boot to the shell and a few test cases */
#define LAVA_VERDICT_JOB_MIN 10

struct lava_backend_opts {
	const char *url; /* the server, http(s)://HOST[:PORT]/ */
	const char *token_file; /* its API token (lava_client_open says which files it takes) */
	/* each job's priority and device tags (lava_job_controls_check'ed), NULL: none */
	const char *priority, *tags;
	/*
	 * Where the workers fetch the work directory's files (lava_files_url_check'ed), NULL:
	 * file:// paths, for workers that see this machine's work directory
	 */
	const char *files_url;
};

/*
 * A backend whose every boot is a LAVA job (jobdef.c's, the model disk and -icount as a local
 * boot has them) submitted and waited for through lava_boot(), the guest's result taken
 * from the job's log (else its test cases imported, import.c, with the suite's coordinates)
 * and adopted as a local guest result (kg_boot_adopt). The gate's verdict is published as a
 * job of its own, a test case per gated metric (@publish). @ret->slots is the server's idle qemu devices, asked now: -ENODEV with
 * @err when it has none. The kernels and initramfs are copied into the gate's work
 * directory and fetched by file:// URL, so the worker must see that directory at the same
 * path. 0, or -errno with @err (*@ret_usage: the URL or the token file is refused, before
 * any request; else the server did not answer or has no device); lava_backend_close()
 * frees it either way.
 */
int lava_backend_open(const struct lava_backend_opts *o, struct kg_boot_backend *ret,
		      bool *ret_usage, char *err, size_t errlen);
void lava_backend_close(struct kg_boot_backend *be);

/*
 * The kernel-gate options a LAVA job fixes itself (jobdef.c: TCG with -icount, the model disk
 * with its defaults, the worker's QEMU, its command line) or that say nothing of a worker
 * (this host's load, boots at a time): refused with --lava unless at their defaults.
 * NULL-terminated.
 */
extern const char *const lava_backend_fixed_opts[];

#endif
