/* Unit tests of report/op: the operation table against the result schema, ranks, units. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "model/op.h"

/* The schema's names for a run's "ops" keys (both kinds of run refer to $defs/op_name). */
static const json_t *schema_op_names(json_t **ret_doc)
{
	const char *path = getenv("FSB_RESULT_SCHEMA");
	static const char *const path_keys[] = { "$defs", "op_name", "enum", NULL };
	json_error_t je;
	json_t *doc;
	const json_t *v;

	assert_non_null(path);
	doc = json_load_file(path, 0, &je);
	if (!doc)
		fail_msg("%s:%d: %s", path, je.line, je.text);
	*ret_doc = doc;
	v = doc;
	for (const char *const *k = path_keys; *k; k++)
		v = json_object_get(v, *k);
	return v;
}

static void schema_names_every_op_and_no_other(void **state)
{
	json_t *doc;
	const json_t *names, *v;
	size_t i;

	(void)state;
	names = schema_op_names(&doc);
	assert_true(json_is_array(names));
	assert_int_equal(json_array_size(names), MDL_OP_COUNT);
	json_array_foreach(names, i, v)
	{
		assert_true(json_is_string(v));
		assert_true(mdl_op_find(json_string_value(v)) >= 0);
	}
	for (int op = 0; op < MDL_OP_COUNT; op++) {
		bool found = false;

		json_array_foreach(names, i, v)
			found |= !strcmp(json_string_value(v), mdl_ops[op].name);
		if (!found)
			fail_msg("op '%s' is not in the schema's ops names", mdl_ops[op].name);
	}
	json_decref(doc);
}

static void every_op_is_described_and_ranked_once(void **state)
{
	int seen[MDL_OP_COUNT] = { 0 };

	(void)state;
	for (int op = 0; op < MDL_OP_COUNT; op++) {
		assert_non_null(mdl_ops[op].name);
		assert_non_null(mdl_ops[op].times);
		assert_in_range(mdl_ops[op].rank, 0, MDL_OP_COUNT - 1);
		seen[mdl_ops[op].rank]++;
		assert_int_equal(mdl_op_find(mdl_ops[op].name), op);
	}
	for (int r = 0; r < MDL_OP_COUNT; r++) {
		assert_int_equal(seen[r], 1);
		assert_non_null(mdl_op_name_at(r));
	}
	assert_null(mdl_op_name_at(MDL_OP_COUNT));
	assert_int_equal(mdl_op_find("no_such_op"), -ENOENT);
	/* tables list a small-file loop's order: create first, close after the syncs */
	assert_string_equal(mdl_op_name_at(0), "create");
	assert_string_equal(mdl_op_name_at(MDL_OP_COUNT - 1), "victim");
}

static void units_round_trip(void **state)
{
	(void)state;
	assert_int_equal(mdl_unit_parse("bytes"), MDL_UNIT_BYTES);
	assert_int_equal(mdl_unit_parse("files"), MDL_UNIT_FILES);
	assert_int_equal(mdl_unit_parse(NULL), MDL_UNIT_FILES);
	assert_string_equal(mdl_unit_name(MDL_UNIT_BYTES), "bytes");
	assert_string_equal(mdl_unit_name(MDL_UNIT_FILES), "files");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(schema_names_every_op_and_no_other),
		cmocka_unit_test(every_op_is_described_and_ranked_once),
		cmocka_unit_test(units_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
