/* Jansson's parse into a per-thread arena (json_arena.h). */
#include "model/json_arena.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Blocks double from the first, so 24 hold any document a result file can be. */
#define ARENA_BLOCKS 24
#define ARENA_ALIGN 16
#define ARENA_FIRST_MIN (64 * 1024)
/* A parsed tree takes about this many times its text (measured: 7-9x for results). */
#define ARENA_PER_BYTE 8

struct arena {
	char *block[ARENA_BLOCKS];
	size_t size[ARENA_BLOCKS];
	size_t nblocks;
	size_t used; /* of the last block */
	size_t first; /* the first block's size, from the text's length */
	bool filling; /* a parse is running on this thread: its nodes come from here */
};

static _Thread_local struct arena arena;

static bool in_arena(const void *p)
{
	const char *c = p;

	for (size_t i = 0; i < arena.nblocks; i++)
		if (c >= arena.block[i] && c < arena.block[i] + arena.size[i])
			return true;
	return false;
}

static void *arena_malloc(size_t n)
{
	char *b;

	if (!arena.filling)
		return malloc(n);
	n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	if (!arena.nblocks || arena.used + n > arena.size[arena.nblocks - 1]) {
		size_t size = arena.nblocks ? 2 * arena.size[arena.nblocks - 1] : arena.first;

		if (arena.nblocks == ARENA_BLOCKS)
			return malloc(n); /* the heap's: freed as the heap's */
		if (size < n)
			size = n;
		if (!(b = malloc(size)))
			return NULL;
		arena.block[arena.nblocks] = b;
		arena.size[arena.nblocks++] = size;
		arena.used = 0;
	}
	b = arena.block[arena.nblocks - 1] + arena.used;
	arena.used += n;
	return b;
}

/* A node of this thread's arena goes with the arena; anything else is the heap's. */
static void arena_free(void *p)
{
	if (p && !in_arena(p))
		free(p);
}

/*
 * Installed before main, while one thread runs: Jansson reads its allocator without a lock,
 * so it must not change while other threads use it. Outside a parse it is malloc and free.
 */
__attribute__((constructor)) static void arena_install(void)
{
	json_set_alloc_funcs(arena_malloc, arena_free);
}

json_t *mdl_json_loadb_arena(const char *buf, size_t len, size_t flags, json_error_t *error)
{
	json_t *doc;

	if (arena.nblocks || arena.filling) {
		if (error) {
			memset(error, 0, sizeof(*error));
			error->line = error->column = -1;
			snprintf(error->text, sizeof(error->text),
				 "an earlier document's arena is still in use on this thread");
		}
		return NULL;
	}
	arena.first = len > ARENA_FIRST_MIN / ARENA_PER_BYTE ? len * ARENA_PER_BYTE :
							       ARENA_FIRST_MIN;
	arena.filling = true;
	doc = json_loadb(buf, len, flags, error);
	arena.filling = false;
	return doc;
}

void mdl_json_arena_end(void)
{
	for (size_t i = 0; i < arena.nblocks; i++)
		free(arena.block[i]);
	arena.nblocks = 0;
	arena.used = 0;
}
