/* Unit tests of model/json_arena: a parse into the thread's arena, the tree used as any other. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/json_arena.h"

/* A document like a result's: objects, strings, a histogram of many integers. */
static char *doc_text(int n)
{
	json_t *o = json_object(), *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(i * 7));
	json_object_set_new(o, "schema", json_string("fsbench-result/2"));
	json_object_set_new(o, "bins", json_pack("{so}", "count", a));
	json_object_set_new(o, "rate", json_real(1234.5));
	char *t = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return t;
}

/* The same tree as Jansson's own parse; changed, dumped and freed like any tree. */
static void parse_is_jansson(void **state)
{
	char *text = doc_text(5000);
	json_t *plain = json_loads(text, 0, NULL);
	json_error_t je;
	json_t *doc = mdl_json_loadb_arena(text, strlen(text), 0, &je);

	(void)state;
	assert_non_null(plain);
	assert_non_null(doc);
	assert_true(json_equal(doc, plain));
	/* what is made after the parse is the heap's: a key, an array grown, a text freed */
	json_object_set_new(doc, "added", json_string("after the parse"));
	for (int i = 0; i < 1000; i++)
		json_array_append_new(json_object_get(json_object_get(doc, "bins"), "count"),
				      json_integer(i));
	json_object_del(doc, "rate");
	char *dump = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	assert_non_null(dump);
	assert_non_null(strstr(dump, "\"added\":\"after the parse\""));
	free(dump); /* a json_dumps() text is free()'d by its caller, as without the arena */
	json_decref(doc);
	mdl_json_arena_end();
	json_decref(plain);
	free(text);
}

/* One arena a thread: a second parse before the end is refused, saying why. */
static void one_arena_at_a_time(void **state)
{
	json_error_t je;
	json_t *a = mdl_json_loadb_arena("[1,2]", 5, 0, &je), *b;

	(void)state;
	assert_non_null(a);
	b = mdl_json_loadb_arena("[3]", 3, 0, &je);
	assert_null(b);
	assert_non_null(strstr(je.text, "still in use"));
	json_decref(a);
	mdl_json_arena_end();
	b = mdl_json_loadb_arena("[3]", 3, 0, &je);
	assert_non_null(b);
	assert_int_equal(json_integer_value(json_array_get(b, 0)), 3);
	json_decref(b);
	mdl_json_arena_end();
	mdl_json_arena_end(); /* none begun: nothing to do */
}

/* A broken text: NULL with Jansson's position, and the arena ends as after a tree. */
static void bad_text(void **state)
{
	json_error_t je;
	json_t *doc = mdl_json_loadb_arena("{\"a\": [1, 2,", 12, 0, &je);

	(void)state;
	assert_null(doc);
	assert_int_equal(je.line, 1);
	mdl_json_arena_end();
	doc = mdl_json_loadb_arena("{}", 2, 0, &je);
	assert_non_null(doc);
	json_decref(doc);
	mdl_json_arena_end();
}

static void *parse_many(void *arg)
{
	const char *text = arg;
	json_t *ref = json_loads(text, 0, NULL);
	intptr_t bad = 0;

	for (int i = 0; i < 200; i++) {
		json_t *doc = mdl_json_loadb_arena(text, strlen(text), 0, NULL);

		bad += !doc || !json_equal(doc, ref);
		/* a node made on this thread outside any parse, freed while the arena lives */
		json_t *heap = json_string("heap");
		json_decref(heap);
		json_decref(doc);
		mdl_json_arena_end();
	}
	json_decref(ref);
	return (void *)bad;
}

/* Threads parse at once, each into its own arena (the history's decoders). */
static void threads_own_arenas(void **state)
{
	char *text = doc_text(3000);
	pthread_t t[4];
	void *bad;

	(void)state;
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, parse_many, text), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], &bad), 0);
		assert_null(bad);
	}
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_is_jansson),
		cmocka_unit_test(one_arena_at_a_time),
		cmocka_unit_test(bad_text),
		cmocka_unit_test(threads_own_arenas),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
