/* libFuzzer target: `fsbench explain`'s input, a result's slow calls through the attribution table. */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "model/result_file.h"
#include "model/schema.h"
#include "report/attrib.h"
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void esc(FILE *out, const char *s)
{
	fputs(s ? s : "", out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const json_t *run;
	json_t *doc;
	char path[64], err[1024];
	size_t i;
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	/* what explain does: the loader, then every run's table, text and markdown */
	if (rpt_result_load(path, &doc, err, sizeof(err)) == 0) {
		json_array_foreach(json_object_get(doc, RPT_KEY_RUNS), i, run)
		{
			rpt_attrib_print(fuzz_null(), run, NULL, RPT_ATTRIB_MAX, false);
			rpt_attrib_print(fuzz_null(), run, "fsync", 3, true);
			rpt_attrib_html(fuzz_null(), run, 20, esc);
		}
		json_decref(doc);
	}
	close(fd);
	return 0;
}
