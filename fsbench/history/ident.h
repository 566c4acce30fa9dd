/*
 * A result file as the history keeps it, decoded once: its content hash, its kernel's
 * identity (release, package version, git commit, the order key), and each run's identity
 * and metric values.
 */
#ifndef FSB_HIST_IDENT_H
#define FSB_HIST_IDENT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "fsbench/history/version.h"

/* Which kernel a result ran on; '' where a field is unknown. */
struct hist_kernel {
	char release[256]; /* uname -r: the boot record's, else the result's host */
	char package[256]; /* Debian package version, from the .deb booted or uname -v */
	char commit[64]; /* git commit, from the boot record or a -gHASH release */
	/* hist_version_key() of the package version ("p" before it), else of the release ("r") */
	char sort_key[HIST_KEY_MAX + 1];
};

struct hist_value {
	char metric[64]; /* "files_per_sec", "fsync.p50" */
	char *series; /* the series' key: the run's sample key and @metric */
	double value; /* raw, as the result holds it (ns, bytes/s) */
};

struct hist_run {
	size_t index; /* in the file's runs[] */
	char *sample_key; /* the cell (model/run.h) */
	char *params; /* canonical JSON */
	char host[256], cpu[256], disk[256], fs[64], mount_options[512], workload[64];
	char version[64], date[32];
	long long threads;
	int repetition; /* coords.repetition: the run's place among its cell's repetitions */
	bool complete;
	struct hist_value *values;
	size_t nvalues;
};

struct hist_file {
	char sha256[65]; /* hist_canon_sha256() of its content */
	char dump_sha256[65]; /* with HIST_PARSE_DUMP_HASH: the older stores' hash, else "" */
	char path[4096];
	char created[32];
	struct hist_kernel kernel;
	struct hist_run *runs;
	size_t nruns;
};

/*
 * Reads the result at @path (version 1 or 2). The hash is of the document's content
 * (hist_canon_sha256), so a copy re-indented is the same file. 0 with *@ret set, -ENOMEM,
 * or -EPROTO with @err naming the file and what makes it unusable.
 */
int hist_file_read(const char *path, struct hist_file **ret, char *err, size_t errlen);

/* Also the hash older stores knew a file by (the sorted compact dump's), for their rows. */
#define HIST_PARSE_DUMP_HASH 1u

/* The same of the file's bytes @buf (@len of them), read from @path (named in @err). */
int hist_file_parse(const char *path, const char *buf, size_t len, unsigned flags,
		    struct hist_file **ret, char *err, size_t errlen);

/*
 * The SHA-256 in hex of @doc's content, independent of its layout: a tagged binary walk
 * with object keys in byte order and numbers as their 8 bytes. 0, -ENOMEM or -EIO.
 */
int hist_canon_sha256(json_t *doc, char out[65]);
/*
 * The SHA-256 of @len bytes at @buf in hex: a file's bytes as they are, by which the store
 * knows a file added before without reading it (its canonical hash is the identity).
 */
int hist_raw_sha256(const char *buf, size_t len, char out[65]);
void hist_file_free(struct hist_file *f);

/*
 * The kernel a result document ran on: its "vm" boot record (kernel-run, kernel-gate)
 * first, else its host. Exposed for the tests and for bisection's kernels.
 */
void hist_kernel_of(const json_t *doc, struct hist_kernel *ret);

/*
 * The Debian version in a .deb's file name (PACKAGE_VERSION_ARCH.deb, %3a an epoch's colon),
 * as the store keeps a booted .deb's kernel; '' for any other @spec.
 */
void hist_deb_version(const char *spec, char *out, size_t len);

/* Fills @k->sort_key from its package version or release. */
void hist_kernel_key(struct hist_kernel *k);

/* The time now as "YYYY-MM-DDTHH:MM:SSZ". */
void hist_now_utc(char *out, size_t len);

#endif
