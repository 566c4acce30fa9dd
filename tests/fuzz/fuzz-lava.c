/*
 * libFuzzer target: `fsbench lava import` on the input as LAVA's results (YAML or JSON),
 * end to end through the command (its bounds on size, nesting, aliases and values are the
 * point), and `lava cases` on what it wrote.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fsbench/cli/commands.h"
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/fsbench-fuzz-lava.XXXXXX", out[64];

static void remove_dir(void)
{
	unlink(out);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	fuzz_quiet(); /* the command's one-line errors, once per input, are noise here */
	if (!out[0]) {
		if (!mkdtemp(dir))
			abort();
		snprintf(out, sizeof(out), "%s/out.json", dir);
		atexit(remove_dir);
	}
	fd = fuzz_file(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	char *import[] = { "import", "-o", out, path, NULL };
	if (cmd_lava_import(4, import) == 0) {
		char *cases[] = { "lava", "cases", out, NULL };

		cmd_lava(3, cases);
		unlink(out);
	}
	close(fd);
	return 0;
}
