/*
 * The ordered table of workloads: a new one is its own file and one line in the list below.
 *
 * Adding a workload:
 *  1. fsbench/workloads/<name>.c exporting `const struct fsb_workload fsb_wl_<name>`
 *     (fsbench/core/workload.h: name, option table, init, run-one-thread, fini). Every timed
 *     call goes through FSB_TIME_CALL and fsb_record(), with nothing else between the clocks.
 *  2. One X(<name>) line in FSB_WORKLOAD_LIST below, where it should sit in `fsbench --help`.
 *  3. The file in fsbench/workloads/meson.build.
 *  4. Nothing else: the command, its --help, man page and completion come from this table and
 *     the option table (fsbench/doc/, fsbench/gen/ reads the X() lines). Its tests:
 *     tests/unit/test-<name>.c, a run on a real filesystem in tests/integration/.
 */
#include <string.h>

#include "fsbench/workloads/table.h"

/*
 * Each X(name) is a const struct fsb_workload fsb_wl_<name> in workloads/<name>.c. Order is the
 * order of `fsbench --help`.
 */
#define FSB_WORKLOAD_LIST(X) \
	X(smallfile)         \
	X(stream)            \
	X(tree)              \
	X(dbench)

#define DECLARE(n) extern const struct fsb_workload fsb_wl_##n;
FSB_WORKLOAD_LIST(DECLARE)
#undef DECLARE

#define ENTRY(n) &fsb_wl_##n,
const struct fsb_workload *const fsb_workloads[] = { FSB_WORKLOAD_LIST(ENTRY) NULL };
#undef ENTRY

const struct fsb_workload *fsb_workload_find(const char *name)
{
	for (int i = 0; fsb_workloads[i]; i++)
		if (!strcmp(fsb_workloads[i]->name, name))
			return fsb_workloads[i];
	return NULL;
}
