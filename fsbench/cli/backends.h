/* The kernel gate's boot backends other than the local QEMU boot: one table (backends.c) that the CLI goes through. */
#ifndef FSB_CLI_BACKENDS_H
#define FSB_CLI_BACKENDS_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "fsbench/kgate/gate_flow.h"

/*
 * Every backend's options as kernel-gate's and kernel-run's tables fill them
 * (CMD_BACKEND_OPTS, at @base in the command's own struct); NULL: not given.
 */
struct cmd_backend_cfg {
	char *lava, *lava_token_file; /* --lava: each boot a job on that LAVA server */
	char *lava_priority, *lava_tags; /* its jobs' controls */
	char *lava_files_url; /* where its workers fetch the work directory's files */
};

#define CMD_BACKEND_AT(base, f) ((base) + offsetof(struct cmd_backend_cfg, f))
/* The backends' option rows, at the end of the VM's options (their order is --help's). */
/* clang-format off */
#define CMD_BACKEND_OPTS(base) \
	{ .name = "lava", .type = OPT_STRING, .offset = CMD_BACKEND_AT(base, lava), \
	  .help = "boot each time as a job on the LAVA server at URL (http(s)://HOST[:PORT]/), " \
		  "as many at once as it has idle qemu devices; the VM options are refused" }, \
	{ .name = "lava-token-file", .type = OPT_STRING, \
	  .offset = CMD_BACKEND_AT(base, lava_token_file), .file = OPT_FILE, \
	  .help = "with --lava: a file holding an API token of the server (yours or root's, " \
		  "writable by no one else)" }, \
	{ .name = "lava-priority", .type = OPT_STRING, \
	  .offset = CMD_BACKEND_AT(base, lava_priority), \
	  .help = "with --lava: each job's priority, high, medium, low or 0..100 (default " \
		  "medium)" }, \
	{ .name = "lava-tags", .type = OPT_STRING, .offset = CMD_BACKEND_AT(base, lava_tags), \
	  .help = "with --lava: device tags each job asks for, comma-separated (letters, " \
		  "digits, _.-)" }, \
	{ .name = "lava-files-url", .type = OPT_STRING, \
	  .offset = CMD_BACKEND_AT(base, lava_files_url), \
	  .help = "with --lava and --workdir DIR: the http(s) URL where the workers fetch DIR's " \
		  "files (the kernels and initramfs copied there), as a lab's file server " \
		  "serves DIR (default: file:// paths, for workers that see this machine's DIR)" }
/* clang-format on */

/* A boot backend as the command line sees it: how it is chosen, what it fixes, its words. */
struct cmd_backend {
	const char *name;
	/* the option that selects it (without "--"), its value at @select in the cfg */
	const char *option;
	size_t select;
	/*
	 * Its own options' rules, checked whether it is selected or not (an option of its
	 * given without the one that selects it), with the command's other options @a: 0, or
	 * -EINVAL with @err one line.
	 */
	int (*check)(const struct cmd_backend_cfg *c, const struct kg_args *a, char *err,
		     size_t errlen);
	/*
	 * The kernel-gate and kernel-run options it sets itself or that say nothing of where
	 * it boots, refused unless at their defaults, with @fixed_why; NULL-terminated. --disk
	 * @fixed_disk is what it boots, so given explicitly it changes nothing.
	 */
	const char *const *fixed;
	const char *fixed_why;
	const char *fixed_disk;
	/*
	 * Opens it for @cmd ("kernel-gate"), warning on stderr about what the user should
	 * know: 0, or -errno with @err and *@ret_usage when the options were refused before
	 * any work. @close releases @ret either way.
	 */
	int (*open)(const struct cmd_backend_cfg *c, const char *cmd, struct kg_boot_backend *ret,
		    bool *ret_usage, char *err, size_t errlen);
	void (*close)(struct kg_boot_backend *be);
	/*
	 * A finished boot's line after "boot N/M: SIDE RELEASE: ", from its record (@b's
	 * times and status; the record's own members): 0, or -ENOENT when @record is not one
	 * of its boots'.
	 */
	int (*boot_words)(const json_t *record, const struct kg_boot *b, char *out, size_t len);
};

/* The backends, ended by a NULL name; none selected is the local QEMU boot. */
extern const struct cmd_backend cmd_backends[];

/* The backend that @c's options select, or NULL (the local QEMU boot). */
const struct cmd_backend *cmd_backend_selected(const struct cmd_backend_cfg *c);

#endif
