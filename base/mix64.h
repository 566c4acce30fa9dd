/* splitmix64, the one mixing step behind fsbench's reproducible pseudo-random choices. */
#ifndef BASE_MIX64_H
#define BASE_MIX64_H

#include <stdint.h>

/* Sebastiano Vigna's splitmix64 finaliser: a bijection, so distinct inputs never collide. */
static inline uint64_t base_mix64(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

#endif
