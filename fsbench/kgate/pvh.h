/* The kernel booted through its PVH entry, from a vmlinux decompressed on the host. */
#ifndef FSB_KGATE_PVH_H
#define FSB_KGATE_PVH_H

#include <stddef.h>

#include "fsbench/kgate/kgate.h"

/*
 * Sets @k->boot_image and @k->entry: the vmlinux inside @k->image decompressed once into
 * @cachedir/pvh/ (named by a hash of the bzImage) and "pvh" when the kernel has a PVH entry
 * (CONFIG_PVH, Xen's PHYS32_ENTRY note) and a payload in xz, gzip or zstd; otherwise the
 * bzImage itself and "bzimage", with @k->entry_why saying why. Under TCG a bzImage spends most
 * of its boot's wall time decompressing itself; after that the kernel runs the same code
 * either way (without KASLR through PVH: the decompressor is what picks a random base).
 * 0, or -errno with @err when the image cannot be read or the cache cannot be written.
 */
int kg_pvh_resolve(struct kg_kernel *k, const char *cachedir, char *err, size_t errlen);

#endif
