/* Host topology from hwloc (packages, NUMA nodes, cores, PUs) and where worker threads go. */
#ifndef PROBE_TOPOLOGY_H
#define PROBE_TOPOLOGY_H

#include <jansson.h>

enum probe_pin {
	PROBE_PIN_NONE, /* no pinning (with a CPU list: as compact) */
	PROBE_PIN_COMPACT, /* fill PUs in hwloc's logical order: siblings of a core first */
	PROBE_PIN_SCATTER, /* spread over packages, then cores, then PUs (hwloc_distrib) */
};

/* {packages, numa_nodes, cores, pus, allowed_cpus}; NULL when hwloc cannot load. */
json_t *probe_topology_json(void);

/*
 * Chooses a CPU (OS index) for each of @n threads into @ret_cpus (-1 for no pinning),
 * from @cpulist ("0-3,6"; NULL or "" for every CPU this process may use) by @pin.
 * Returns 0, or -EINVAL with @err naming the list (syntax, CPUs that do not exist or
 * are not allowed), or -errno.
 */
int probe_topology_place(const char *cpulist, enum probe_pin pin, int n, int *ret_cpus, char *err,
			 size_t errlen);

#endif
