/* What machine a result came from: kernel, CPU, memory. */
#include "probes/target/host.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static FILE *open_under(const char *root, const char *path)
{
	char full[4096];

	snprintf(full, sizeof(full), "%s%s", root ? root : "", path);
	return fopen(full, "re");
}

json_t *probe_host_json(const char *root)
{
	json_t *o = json_object();
	struct utsname u;
	char line[1024], host[256];
	FILE *f;

	if (!o)
		return NULL;
	if (uname(&u) == 0) {
		json_object_set_new(o, "kernel", json_string(u.release));
		json_object_set_new(o, "kernel_version", json_string(u.version));
		json_object_set_new(o, "machine", json_string(u.machine));
	}
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = 0;
		json_object_set_new(o, "hostname", json_string(host));
	}
	f = open_under(root, "/proc/cmdline");
	if (f) {
		if (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			json_object_set_new(o, "cmdline", json_string(line));
		}
		fclose(f);
	}
	f = open_under(root, "/proc/cpuinfo");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');

			if (!colon || strncmp(line, "model name", 10))
				continue;
			colon++;
			colon += strspn(colon, " \t");
			colon[strcspn(colon, "\n")] = 0;
			json_object_set_new(o, "cpu_model", json_string(colon));
			break;
		}
		fclose(f);
	}
	json_object_set_new(o, "cores", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	f = open_under(root, "/proc/meminfo");
	if (f) {
		unsigned long long kb;

		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) {
				json_object_set_new(o, "memory_bytes",
						    json_integer((json_int_t)(kb * 1024)));
				break;
			}
		fclose(f);
	}
	return o;
}
