/* Unit tests of CPU placement and the topology summary (probes/target/topology.h) on this machine. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "probes/target/topology.h"

static void test_topology_place(void **st)
{
	int cpus[4];
	char err[256];
	json_t *o;

	(void)st;
	assert_int_equal(probe_topology_place(NULL, PROBE_PIN_NONE, 4, cpus, err, sizeof(err)), 0);
	assert_int_equal(cpus[3], -1);
	/* CPU 0 is always there; a list alone pins */
	assert_int_equal(probe_topology_place("0", PROBE_PIN_NONE, 3, cpus, err, sizeof(err)), 0);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[2], 0);
	assert_int_equal(probe_topology_place("0-", PROBE_PIN_COMPACT, 2, cpus, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(probe_topology_place("100000", PROBE_PIN_COMPACT, 2, cpus, err,
					      sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "100000"));
	assert_int_equal(probe_topology_place(NULL, PROBE_PIN_SCATTER, 4, cpus, err, sizeof(err)),
			 0);
	for (int i = 0; i < 4; i++)
		assert_true(cpus[i] >= 0 && cpus[i] < sysconf(_SC_NPROCESSORS_CONF));
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2)
		assert_int_not_equal(cpus[0], cpus[1]);
	o = probe_topology_json();
	assert_non_null(o);
	assert_true(json_integer_value(json_object_get(o, "pus")) >= 1);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topology_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
