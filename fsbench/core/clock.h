/* The one clock every measurement uses. */
#ifndef FSB_CLOCK_H
#define FSB_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t fsb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
