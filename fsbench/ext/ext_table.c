/* The ordered table of extensions: a new one is its own file and one line in the list below. */
#include "fsbench/ext/ext_table.h"

/*
 * Each X(name) is a const struct fsb_ext fsb_ext_<name> in ext/<name>.c. before() runs
 * in this order, after() in reverse:
 * - pin first: it places the worker threads that the others may look at;
 * - knobs are restored (after() runs in reverse) right after the victim and sampler stop;
 * - bpf loads before the victim writes its file but arms only at the run's start; its
 *   after() runs once the victim thread is joined, so its slowest calls are final;
 * - victim after anything that changes the target or pins threads;
 * - kernel last: its snapshots bracket the run, not the others' set-up (the victim's file).
 */
#define FSB_EXT_LIST(X) \
	X(pin)          \
	X(knobs)        \
	X(bpf)          \
	X(victim)       \
	X(kernel)

#define DECLARE(n) extern const struct fsb_ext fsb_ext_##n;
FSB_EXT_LIST(DECLARE)
#undef DECLARE

#define ENTRY(n) &fsb_ext_##n,
const struct fsb_ext *const fsb_exts[] = { FSB_EXT_LIST(ENTRY) NULL };
#undef ENTRY

#define COUNT(n) +1
const int fsb_nexts = 0 FSB_EXT_LIST(COUNT);
#undef COUNT
