/* Dropping the kernel's clean caches (drop_caches.h). */
#include "probes/knob/drop_caches.h"
#include "base/fileio.h"

#include <stdbool.h>
#include <unistd.h>

int probe_drop_caches(const char *root)
{
	bool live = !root || !*root;

	/* dirty pages are not dropped: written back first, they are clean and go too */
	if (live)
		sync();
	return base_write_under(live ? "" : root, "/proc/sys/vm/drop_caches", "3\n");
}
