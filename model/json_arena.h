/*
 * Jansson's parse of a large document into a per-thread arena.
 *
 * A result's latency histograms are arrays of a few hundred integers each, and Jansson
 * allocates every one as its own node: `history add` spent about a third of its decoding in
 * malloc and free (10 000 runs, 141 MB of JSON: 9 s of CPU), most of it freeing the tree
 * node by node. mdl_json_loadb_arena() parses with the thread's nodes taken from a few large
 * blocks; freeing one of them is a no-op, and the blocks go at once with
 * mdl_json_arena_end(). Only the parse allocates from the arena: what is made later (a key
 * added, a json_dumps() text a caller will free()) comes from malloc as before, so the
 * tree may be changed and read freely, and decref'd as usual, until the arena ends.
 *
 * The rule that keeps it sound: every reference into the tree is dropped on the same
 * thread before mdl_json_arena_end() (no node outlives its arena, none crosses threads).
 */
#ifndef FSB_MODEL_JSON_ARENA_H
#define FSB_MODEL_JSON_ARENA_H

#include <stddef.h>
#include <jansson.h>

/*
 * json_loadb(@buf, @len, @flags, @error) with the nodes in this thread's arena, which it
 * begins (one arena per thread at a time: a second call before the end refuses, NULL with
 * @error's text saying so). Call mdl_json_arena_end() once the tree and every reference into
 * it is gone, whether this returned a tree or NULL.
 */
json_t *mdl_json_loadb_arena(const char *buf, size_t len, size_t flags, json_error_t *error);

/* Frees this thread's arena (nothing to do when none was begun). */
void mdl_json_arena_end(void);

#endif
