/* libFuzzer target: `fsbench explain` (plain and --markdown) on the input as a result file. */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "fsbench/cli/commands.h"
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	fuzz_quiet(); /* the table and the errors go nowhere: what counts is not crashing */
	fd = fuzz_file(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	char *plain[] = { "explain", path, NULL };
	char *md[] = { "explain", "--markdown", "-n", "3", path, NULL };
	cmd_explain(2, plain);
	cmd_explain(5, md);
	close(fd);
	return 0;
}
