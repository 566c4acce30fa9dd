/* The --cpus/--pin extension: places each worker thread on a CPU chosen from the hwloc topology. */
#include "fsbench/core/ext.h"

#include <errno.h>
#include <stdlib.h>

#include "probes/target/topology.h"

struct pin_cfg {
	char *cpus; /* --cpus LIST */
	int pin; /* --pin: enum probe_pin */
};

static int pin_before(struct fsb_run *run, const struct fsb_common *common, const void *cfg,
		      void **ret_state, char *err, size_t errlen)
{
	const struct pin_cfg *c = cfg;
	int *cpus, r;

	(void)common;
	*ret_state = NULL;
	/* the topology probe takes "" as "no list": an empty --cpus would pin nothing, silently */
	if (c->cpus && !*c->cpus) {
		snprintf(err, errlen, "--cpus '': an empty CPU list (give one like 0-3,6)");
		return -EINVAL;
	}
	cpus = calloc((size_t)run->nthreads, sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	r = probe_topology_place(c->cpus, (enum probe_pin)c->pin, run->nthreads, cpus, err, errlen);
	if (r == 0)
		/* the runner pins a worker whose cpu is >= 0; per_thread[].cpu records it */
		for (int i = 0; i < run->nthreads; i++)
			run->threads[i].cpu = cpus[i];
	free(cpus);
	return r;
}

static void pin_after(struct fsb_run *run, const struct fsb_common *common, const void *cfg,
		      void *state, json_t *run_json)
{
	static const char *const names[] = { "none", "compact", "scatter" };
	const struct pin_cfg *c = cfg;

	(void)run;
	(void)common;
	(void)state;
	if (run_json)
		json_object_set_new(run_json, "pinning",
				    json_pack("{s:s,s:s?}", "pin", names[c->pin], "cpus", c->cpus));
}

static const char *const pin_choices[] = { "none", "compact", "scatter", NULL };

#define O(f) offsetof(struct pin_cfg, f)
static const struct fsb_opt pin_opts[] = {
	{ .name = "cpus",
	  .type = OPT_STRING,
	  .offset = O(cpus),
	  .unit = "LIST",
	  .help = "run worker threads only on these CPUs (0-3,6); alone it pins compactly over them" },
	{ .name = "pin",
	  .type = OPT_ENUM,
	  .offset = O(pin),
	  .max = 2,
	  .def = "none",
	  .help = "place worker threads: none (the scheduler decides), compact (fill a core's PUs first), "
		  "scatter (spread over packages and cores); each thread's CPU is in the result",
	  .choices = pin_choices },
	{ 0 },
};
#undef O

const struct fsb_ext fsb_ext_pin = {
	.name = "pin",
	.opts = pin_opts,
	.cfg_size = sizeof(struct pin_cfg),
	.before = pin_before,
	.after = pin_after,
};
