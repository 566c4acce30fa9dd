/* The slow-call capture's cold path (slowcall.h). */
#include "fsbench/core/slowcall.h"

void fsb_slow_refloor(struct fsb_slow_top *s)
{
	s->floor_i = 0;
	s->floor = s->v[0].t1 - s->v[0].t0;
	for (uint32_t i = 1; i < s->n; i++)
		if (s->v[i].t1 - s->v[i].t0 < s->floor) {
			s->floor = s->v[i].t1 - s->v[i].t0;
			s->floor_i = i;
		}
}
