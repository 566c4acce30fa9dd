/* What machine a result came from: kernel, CPU, memory. */
#ifndef PROBE_HOST_H
#define PROBE_HOST_H

#include <jansson.h>

/*
 * Describes the host under @root ("" or NULL for "/"; tests pass a fixture tree):
 * hostname, kernel release and cmdline, CPU model, online cores, memory bytes.
 * Returns a new object, or NULL on allocation failure.
 */
json_t *probe_host_json(const char *root);

#endif
