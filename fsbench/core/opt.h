/* Option tables: one declaration per option, one parser for the command line and suite files. */
#ifndef FSB_OPT_H
#define FSB_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

enum opt_type {
	OPT_BOOL, /* flag; "0/1/true/false" from a suite */
	OPT_INT, /* plain integer */
	OPT_SIZE, /* bytes: 4096, 4k, 8M, 1G, 2T (binary multiples) */
	OPT_DURATION, /* nanoseconds: 30 (seconds), 500ms, 10s, 2m, 1h */
	OPT_STRING, /* char * */
	OPT_STRLIST, /* repeatable: struct opt_strlist */
	OPT_ENUM, /* int index into .choices */
	OPT_DOUBLE, /* double in .dmin...dmax; nan and inf refused unless .nonfinite */
};

#define OPT_MAX_LIST 256

/* What an OPT_STRING or OPT_STRLIST value names, for shell completion and the man page. */
enum opt_file {
	OPT_NOT_FILE, /* plain text */
	OPT_FILE, /* a file's path */
	OPT_DIR, /* a directory's path */
};

struct opt_strlist {
	int n;
	char *v[OPT_MAX_LIST];
};

struct fsb_opt {
	const char *name; /* long name, also the key in suite files and JSON params */
	int short_name; /* fs_mark's one-letter flag, or 0 */
	enum opt_type type;
	size_t offset; /* into the workload's config struct */
	int64_t min, max; /* inclusive range for numbers */
	const char *def; /* default as the user would type it, or NULL */
	const char *unit; /* shown in help and kept in JSON param names' docs */
	const char *help;
	const char *const *choices; /* OPT_ENUM: NULL-terminated */
	double dmin, dmax; /* OPT_DOUBLE: inclusive range */
	bool nonfinite; /* OPT_DOUBLE: nan, inf and -inf are meaningful values of this option */
	enum opt_file file; /* OPT_STRING/OPT_STRLIST: the value is a path */
};

/* Longest error message the parser produces. */
#define OPT_ERR_MAX 512

int opt_parse_size(const char *s, int64_t *ret);
int opt_parse_duration(const char *s, int64_t *ret_ns);
int opt_parse_int(const char *s, int64_t *ret);
/* A decimal number; -EINVAL for text that is not one, -ERANGE for nan/inf and overflow. */
int opt_parse_double(const char *s, double *ret);

/* Fills @cfg with every option's default. Returns 0 or -EINVAL (a broken table). */
int opt_set_defaults(const struct fsb_opt *tbl, void *cfg, char *err, size_t errlen);

/* Sets one option by long name from text. -ENOENT for an unknown name, -EINVAL for a bad value. */
int opt_set(const struct fsb_opt *tbl, void *cfg, const char *name, const char *value, char *err,
	    size_t errlen);

/*
 * Parses argv (argv[0] is the subcommand) against @tbl with getopt_long; stops at the
 * first non-option. Returns the index of the first unparsed argument, or -EINVAL with
 * @err set to one line naming the flag and why. "-h/--help" returns -ECANCELED.
 */
int opt_parse_argv(const struct fsb_opt *tbl, void *cfg, int argc, char **argv, char *err,
		   size_t errlen);

void opt_print_help(const struct fsb_opt *tbl, FILE *out);

/*
 * The text --help prints after an option's flags: its help, choices, range with unit and
 * default. The man page prints the same (cli/man_cmd.c), so the two cannot disagree.
 */
void opt_help_text(const struct fsb_opt *o, char *buf, size_t len);

/*
 * While set, opt_print_help() hands its table to @fn instead of printing it: the man page
 * and completion generator (cli/man_cmd.c) runs each command's --help this way to learn its
 * tables. NULL restores printing.
 */
typedef void opt_help_hook_fn(const struct fsb_opt *tbl, FILE *out, void *data);
void opt_set_help_hook(opt_help_hook_fn *fn, void *data);

/* Frees strings the parser duplicated into @cfg. */
void opt_free(const struct fsb_opt *tbl, void *cfg);

/* Typed access for code that walks a table (JSON params). */
const struct fsb_opt *opt_find(const struct fsb_opt *tbl, const char *name);

/* Whether option @o holds the same in configs @a and @b (two nans are the same). */
bool opt_same_value(const struct fsb_opt *o, const void *a, const void *b);

/*
 * The index of the first of @names[@from...] (NULL-terminated) that @tbl has and whose
 * value in @cfg differs from @def's (as opt_set_defaults fills it), or -1 when none does.
 */
int opt_next_changed(const struct fsb_opt *tbl, const void *cfg, const void *def,
		     const char *const *names, int from);

#endif
