/* Commands that take files: an option table, a handler, and one parser for both (opt.h). */
#ifndef FSB_CMD_ARGS_H
#define FSB_CMD_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fsbench/core/opt.h"

#define CMD_MAX_FILES 256

/* A macro's value as the text an option table's .def holds. */
#define CMD_STR(x) #x
#define CMD_XSTR(x) CMD_STR(x)

/*
 * The gate's two numbers, as compare and kernel-gate both take them: doubles at @off in the
 * command's cfg (the includer has report/verdict.h for the defaults).
 */
#define CMD_OPT_ALPHA(off, text)                                                                 \
	{                                                                                        \
		.name = "alpha", .type = OPT_DOUBLE, .offset = (off), .dmin = 1e-9, .dmax = 0.5, \
		.def = CMD_XSTR(RPT_DEFAULT_ALPHA), .help = (text)                               \
	}
#define CMD_OPT_THRESHOLD(off, text)                                                    \
	{                                                                               \
		.name = "threshold", .type = OPT_DOUBLE, .offset = (off), .dmax = 1000, \
		.def = CMD_XSTR(RPT_DEFAULT_THRESHOLD_PCT), .unit = "%", .help = (text) \
	}

/* The operands (files) of a command that has no use for their order against the options. */
struct cmd_files {
	char *v[CMD_MAX_FILES];
	int n;
};

/*
 * Operands on two sides, as `compare` and `report` take them: files go to the baseline until
 * --candidate, and --baseline switches back. The two flags are OPT_BOOLs bound to
 * @baseline and @candidate; cmd_sides_add() is the command's .operand (through a wrapper).
 */
struct cmd_sides {
	bool baseline, candidate; /* given since the last file; consumed by the next one */
	const char *files[2][CMD_MAX_FILES];
	size_t nfiles[2];
	int side;
	bool saw_candidate; /* --candidate was given at all */
};

/* Adds @arg to the current side. 0, or -EINVAL with @err set. */
int cmd_sides_add(struct cmd_sides *s, char *arg, char *err, size_t errlen);

/* Takes a trailing --baseline/--candidate after the last file. 0, or -EINVAL with @err set. */
int cmd_sides_finish(struct cmd_sides *s, char *err, size_t errlen);

/*
 * The files of both sides in one list, baseline first: @ret_paths[i] and its side
 * @ret_sides[i] (each array 2 * CMD_MAX_FILES long). Returns how many.
 */
size_t cmd_sides_flatten(const struct cmd_sides *s, const char **ret_paths, int *ret_sides);

struct cmd_spec {
	const char *name;
	const struct fsb_opt *opts; /* bound to the command's config struct */
	/* Takes one operand in command-line order: 0, or -EINVAL with @err set. NULL: files. */
	int (*operand)(void *cfg, char *arg, char *err, size_t errlen);
	size_t files_offset; /* without .operand: where the struct cmd_files is in the config */
	/*
	 * Without .operand: the option of @opts that the command's one operand sets, wherever
	 * it stands (`dbench 4 -c client.txt`); a second operand is refused. NULL: files.
	 */
	const char *operand_opt;
	/* printed above the table's help; NULL: "usage: fsbench NAME [options]" and @summary */
	void (*usage)(FILE *out);
	const char *summary;
	void (*more_help)(FILE *out); /* printed below it, or NULL */
	/*
	 * A drop-in's help, as the original gives it (fs_mark: usage on stderr, exit 1):
	 * --help's stream, NULL for stdout, and its exit status.
	 */
	FILE *help_out;
	int help_status;
	bool *ret_operand_seen; /* set when the operand_opt operand was given, or NULL */
	/* Runs the command on the parsed config; returns the exit status. */
	int (*run)(void *cfg);
};

/*
 * The parse of cmd_args_run() without the run: fills @cfg (zeroed by the caller) with the
 * table's defaults and parses @argv. True when the command should go on; false with
 * *@ret_status set (FSB_EXIT_OK after -h, FSB_EXIT_USAGE after a bad flag, said on stderr).
 * The caller frees @cfg's strings with opt_free() either way.
 */
bool cmd_args_parse(const struct cmd_spec *spec, void *cfg, int argc, char **argv, int *ret_status);

/* Says "fsbench @cmd: MESSAGE" on stderr and returns @status: a command's one-line refusal. */
int cmd_fail(int status, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* An .operand for commands that take none: every operand is refused. */
int cmd_no_operand(void *cfg, char *arg, char *err, size_t errlen);

/* Takes @arg into *@slot if it is the first operand, else refuses it (-EINVAL, @err set). */
int cmd_one_operand(const char **slot, char *arg, char *err, size_t errlen);

/*
 * `fsbench <spec->name> ...`: fills @cfg (zeroed by the caller) with the table's defaults,
 * parses @argv (argv[0] is the command) with opt_parse_argv(), options and operands in any
 * order (after "--" everything is an operand), runs the command and frees @cfg's strings.
 * Returns the exit status: FSB_EXIT_OK after -h, FSB_EXIT_USAGE after a bad flag.
 */
int cmd_args_run(const struct cmd_spec *spec, void *cfg, int argc, char **argv);

#endif
