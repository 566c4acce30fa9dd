/* Each thread's slowest calls per operation in fixed memory, for ext/bpf.c to attribute. */
#ifndef FSB_SLOWCALL_H
#define FSB_SLOWCALL_H

#include <stdint.h>

/*
 * Slow-call capture, for kernel-side attribution (fsbench/ext/bpf.c): each thread keeps,
 * per operation, its FSB_SLOW_N slowest calls with their start and end, so the run's
 * FSB_SLOW_N slowest of any operation are among them. Fixed memory, no allocation; a
 * call that is not slower than the fastest kept one costs one comparison.
 */
#define FSB_SLOW_N 20

struct fsb_slow_call {
	uint64_t t0, t1; /* monotonic ns, the clock the BPF programs stamp events with */
};

struct fsb_slow_top {
	uint64_t floor; /* duration of the fastest kept call, once n == FSB_SLOW_N */
	uint32_t n, floor_i;
	struct fsb_slow_call v[FSB_SLOW_N];
};

/* Finds the fastest kept call again after a replacement (the cold path). */
void fsb_slow_refloor(struct fsb_slow_top *s);

/* Keeps the call [@t0, @t1] if it is among the FSB_SLOW_N slowest so far. */
static inline void fsb_slow_note(struct fsb_slow_top *s, uint64_t t0, uint64_t t1)
{
	if (s->n < FSB_SLOW_N) {
		s->v[s->n++] = (struct fsb_slow_call){ t0, t1 };
		if (s->n == FSB_SLOW_N)
			fsb_slow_refloor(s);
		return;
	}
	if (t1 - t0 <= s->floor)
		return;
	s->v[s->floor_i] = (struct fsb_slow_call){ t0, t1 };
	fsb_slow_refloor(s);
}

#endif
