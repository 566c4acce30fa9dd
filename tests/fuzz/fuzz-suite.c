/* libFuzzer target: suite files through the parser, the matrix expansion and the result's view. */
#include <stdint.h>
#include <stdlib.h>
#include <jansson.h>

#include "fsbench/suite/suite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct suite s;
	struct suite_cell *cells = NULL;
	char err[8192];
	int n = 0;

	if (suite_parse(&s, "fuzz.json", (const char *)data, size, err, sizeof(err)) == 0 &&
	    suite_expand(&s, &cells, &n, err, sizeof(err)) == 0) {
		json_decref(suite_json(&s, cells, n));
		for (int i = 0; i < n && i < 64; i++) {
			struct fsb_job job = { 0 };

			json_decref(suite_coords(&s, &cells[i], 0));
			if (!cells[i].skip && suite_job(&s, &cells[i], &job, err, sizeof(err)) == 0)
				fsb_job_free(&job);
		}
	}
	free(cells);
	suite_free(&s);
	return 0;
}
