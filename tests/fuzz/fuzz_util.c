/* Inputs as files for the fuzz targets (see fuzz_util.h). */
#include "tests/fuzz/fuzz_util.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int fuzz_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

int fuzz_split(const uint8_t *data, size_t size, const uint8_t **ret_b, size_t *ret_bsize,
	       size_t *ret_asize)
{
	const uint8_t *sep = size >= 4 ? memmem(data, size, "\n--\n", 4) : NULL;

	if (!sep)
		return -1;
	*ret_asize = (size_t)(sep - data);
	*ret_b = sep + 4;
	*ret_bsize = size - *ret_asize - 4;
	return 0;
}

FILE *fuzz_null(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "we");
	return f;
}

void fuzz_quiet(void)
{
	/*
	 * The streams, not the descriptors: libFuzzer keeps its own copy of the stderr FILE
	 * (its stats, which ci/fuzz reads) and the sanitizers write to fd 2, so both still
	 * reach the log while the command's printf and fprintf(stderr) go nowhere.
	 */
	if (fuzz_null())
		stdout = stderr = fuzz_null();
}
