/* Topology and thread placement with hwloc (see topology.h). */
#include "base/errf.h"
#include "probes/target/topology.h"

#include <errno.h>
#include <hwloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int load(hwloc_topology_t *ret)
{
	hwloc_topology_t topo;

	if (hwloc_topology_init(&topo) < 0)
		return -errno ? -errno : -ENOMEM;
	if (hwloc_topology_load(topo) < 0) {
		int r = errno ? -errno : -EIO;

		hwloc_topology_destroy(topo);
		return r;
	}
	*ret = topo;
	return 0;
}

json_t *probe_topology_json(void)
{
	hwloc_topology_t topo;
	json_t *o;
	char *allowed = NULL;

	if (load(&topo) < 0)
		return NULL;
	hwloc_bitmap_list_asprintf(&allowed, hwloc_topology_get_allowed_cpuset(topo));
	o = json_pack("{s:i,s:i,s:i,s:i,s:s}", "packages",
		      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), "numa_nodes",
		      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), "cores",
		      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), "pus",
		      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU), "allowed_cpus",
		      allowed ? allowed : "");
	free(allowed);
	hwloc_topology_destroy(topo);
	return o;
}

int probe_topology_place(const char *cpulist, enum probe_pin pin, int n, int *ret_cpus, char *err,
			 size_t errlen)
{
	hwloc_topology_t topo;
	hwloc_bitmap_t set = NULL;
	hwloc_cpuset_t *sets = NULL;
	hwloc_obj_t root;
	int r, npu;

	if (n <= 0)
		return 0;
	if ((!cpulist || !*cpulist) && pin == PROBE_PIN_NONE) {
		for (int i = 0; i < n; i++)
			ret_cpus[i] = -1;
		return 0;
	}
	r = load(&topo);
	if (r < 0)
		return errf(err, errlen, r, "loading the hwloc topology: %s", strerror(-r));
	set = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(topo));
	if (!set) {
		r = errf(err, errlen, -ENOMEM, "hwloc: out of memory");
		goto out;
	}
	if (cpulist && *cpulist) {
		hwloc_bitmap_t want = hwloc_bitmap_alloc();

		if (!want || hwloc_bitmap_list_sscanf(want, cpulist) < 0 ||
		    hwloc_bitmap_iszero(want)) {
			hwloc_bitmap_free(want);
			r = errf(err, errlen, -EINVAL, "--cpus '%s': not a CPU list like 0-3,6",
				 cpulist);
			goto out;
		}
		if (!hwloc_bitmap_isincluded(want, set)) {
			char *have = NULL;

			hwloc_bitmap_list_asprintf(&have, set);
			r = errf(err, errlen, -EINVAL,
				 "--cpus '%s': this process may only use CPUs %s", cpulist,
				 have ? have : "?");
			free(have);
			hwloc_bitmap_free(want);
			goto out;
		}
		hwloc_bitmap_free(set);
		set = want;
		if (pin == PROBE_PIN_NONE)
			pin = PROBE_PIN_COMPACT;
	}
	/* from here on only the chosen CPUs exist: compact and scatter both work inside them */
	if (hwloc_topology_restrict(topo, set, 0) < 0) {
		r = errf(err, errlen, -errno, "restricting the topology to %s: %s",
			 cpulist ? cpulist : "the allowed CPUs", strerror(errno));
		goto out;
	}
	npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	if (npu <= 0) {
		r = errf(err, errlen, -ENODEV, "no CPU left to pin to");
		goto out;
	}
	if (pin == PROBE_PIN_COMPACT) {
		for (int i = 0; i < n; i++)
			ret_cpus[i] =
				(int)hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)(i % npu))
					->os_index;
		r = 0;
		goto out;
	}
	sets = calloc((size_t)n, sizeof(*sets));
	if (!sets) {
		r = errf(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	/* hwloc_distrib allocates the sets itself */
	root = hwloc_get_root_obj(topo);
	/* more threads than PUs wrap around: thread i goes where thread i % npu went */
	if (hwloc_distrib(topo, &root, 1, sets, (unsigned)(n < npu ? n : npu), INT_MAX, 0) < 0) {
		r = errf(err, errlen, -errno, "hwloc_distrib: %s", strerror(errno));
		goto out;
	}
	for (int i = 0; i < n; i++)
		ret_cpus[i] = hwloc_bitmap_first(sets[i % npu]);
	r = 0;
out:
	if (sets)
		for (int i = 0; i < n; i++)
			hwloc_bitmap_free(sets[i]);
	free(sets);
	hwloc_bitmap_free(set);
	hwloc_topology_destroy(topo);
	return r;
}
